import { type KeyboardEvent, type ReactNode, useId, useRef, useState } from 'react';
import { FieldErrorText } from './Field';

interface TagInputProps {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  hint?: ReactNode;
  error?: string | undefined;
  maxLength?: number;
}

/**
 * A list of short strings edited as tags: Enter or a comma adds what was typed, Backspace in the
 * empty input removes the last tag, and every tag has its own remove button. Text still in the
 * input when it loses focus is added too, so nothing typed is silently dropped before a save.
 */
export function TagInput({ label, values, onChange, hint, error, maxLength = 200 }: TagInputProps) {
  const id = useId();
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint !== undefined ? hintId : '', error !== undefined ? errorId : ''].filter(Boolean).join(' ') || undefined;

  function add(raw: string[]): void {
    const next = [...values];
    for (const candidate of raw.map((item) => item.trim())) {
      if (candidate !== '' && !next.includes(candidate)) next.push(candidate);
    }
    if (next.length !== values.length) onChange(next);
  }

  function remove(index: number): void {
    onChange(values.filter((_, position) => position !== index));
  }

  function typed(value: string): void {
    // A comma (typed or pasted) ends a tag; the part after the last comma keeps being typed.
    if (!value.includes(',')) {
      setText(value);
      return;
    }
    const parts = value.split(',');
    const rest = parts.pop() ?? '';
    add(parts);
    setText(rest);
  }

  function keyDown(event: KeyboardEvent<HTMLInputElement>): void {
    if (event.key === 'Enter') {
      // Enter adds a tag; it must not submit the surrounding form.
      event.preventDefault();
      add([text]);
      setText('');
    } else if (event.key === 'Backspace' && text === '' && values.length > 0) {
      event.preventDefault();
      remove(values.length - 1);
    }
  }

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className={`tag-input ${error !== undefined ? 'tag-input-invalid' : ''}`}>
        {values.length > 0 && (
          <ul className="tag-list" aria-label={`${label}: added`}>
            {values.map((value, index) => (
              <li key={value} className="tag">
                <span className="tag-text">{value}</span>
                <button
                  type="button"
                  className="tag-remove"
                  aria-label={`Remove ${value} from ${label}`}
                  onClick={() => {
                    remove(index);
                    // The button goes away with its tag; keep the keyboard in the field.
                    input.current?.focus();
                  }}
                >
                  <span aria-hidden="true">×</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        <input
          ref={input}
          id={id}
          type="text"
          value={text}
          maxLength={maxLength}
          onChange={(event) => typed(event.target.value)}
          onKeyDown={keyDown}
          onBlur={() => {
            if (text.trim() !== '') {
              add([text]);
              setText('');
            }
          }}
          aria-invalid={error !== undefined}
          aria-describedby={describedBy}
          placeholder={values.length === 0 ? 'Type and press Enter' : 'Add another'}
        />
      </div>
      {hint !== undefined && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <FieldErrorText id={errorId} error={error} />
    </div>
  );
}
