import { type ReactNode, useId } from 'react';
import '../editor/editor.css';
import { COLOR_PATTERN } from '../color';
import { FieldErrorText } from './Field';

interface ColorFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  onBlur?: () => void;
  error?: string | undefined;
  hint?: ReactNode;
  /** Empty is allowed (a settings colour not set), and shown as "not set" rather than invalid. */
  optional?: boolean;
}

/** "#abc" → "#aabbcc": the native picker only understands the six-digit form. */
function pickerValue(value: string): string {
  if (value.length === 7) return value.toLowerCase();
  const [r = '0', g = '0', b = '0'] = value.slice(1).toLowerCase();
  return `#${r}${r}${g}${g}${b}${b}`;
}

/**
 * A colour as a swatch with the native picker behind it, and a hex text field kept in step: the
 * picker writes #rrggbb into the text, and the text (#rgb or #rrggbb) colours the swatch once it is
 * a valid colour. Until then the swatch shows "no colour" (never black, which reads as a choice).
 * The text is kept as typed, so the server stores what the person wrote (it keeps #rgb short).
 */
export function ColorField({ label, value, onChange, onBlur, error, hint, optional = false }: ColorFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const valid = COLOR_PATTERN.test(value);
  const empty = value === '';
  const invalid = error !== undefined || (!valid && !(optional && empty));
  const state = valid ? '' : empty ? ' (not set)' : ' (not a valid colour yet)';
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="color-field">
        <span className={`color-swatch ${valid ? '' : empty ? 'color-swatch-empty' : 'color-swatch-none'}`}>
          <span className="color-swatch-fill" style={valid ? { backgroundColor: value } : undefined} aria-hidden="true" />
          <input
            type="color"
            className="color-picker"
            value={valid ? pickerValue(value) : '#ffffff'}
            onChange={(event) => onChange(event.target.value)}
            onBlur={onBlur}
            aria-label={`${label} picker`}
          />
        </span>
        <input
          id={id}
          type="text"
          className="color-hex mono"
          value={value}
          onChange={(event) => onChange(event.target.value.trim())}
          onBlur={onBlur}
          maxLength={7}
          spellCheck={false}
          autoComplete="off"
          placeholder={optional ? '#rrggbb' : undefined}
          aria-invalid={invalid}
          aria-describedby={`${hintId}${error !== undefined ? ` ${errorId}` : ''}`}
        />
      </div>
      <p className="hint" id={hintId}>
        {hint ?? 'Hex: #rgb or #rrggbb'}
        {error === undefined && !(optional && empty) ? state : ''}
      </p>
      <FieldErrorText id={errorId} error={error} />
    </div>
  );
}
