import { useId } from 'react';
import { COLOR_PATTERN } from '../siteDraft';

interface ColorFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}

/** "#abc" → "#aabbcc": the native picker only understands the six-digit form. */
function pickerValue(value: string, fallback = '#000000'): string {
  if (!COLOR_PATTERN.test(value)) return fallback;
  if (value.length === 7) return value.toLowerCase();
  const [r = '0', g = '0', b = '0'] = value.slice(1).toLowerCase();
  return `#${r}${r}${g}${g}${b}${b}`;
}

/**
 * A colour as a native picker and a hex text field kept in step: the picker writes #rrggbb into
 * the text, and the text (#rgb or #rrggbb) moves the picker once it is a valid colour. The text is
 * kept as typed, so the server stores what the person wrote (it keeps #rgb short).
 */
export function ColorField({ label, value, onChange, error }: ColorFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const valid = COLOR_PATTERN.test(value);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="color-field">
        <input type="color" className="color-picker" value={pickerValue(value)} onChange={(event) => onChange(event.target.value)} aria-label={`${label} picker`} />
        <input
          id={id}
          type="text"
          className="color-hex mono"
          value={value}
          onChange={(event) => onChange(event.target.value.trim())}
          maxLength={7}
          spellCheck={false}
          autoComplete="off"
          aria-invalid={error !== undefined || !valid}
          aria-describedby={`${hintId}${error !== undefined ? ` ${errorId}` : ''}`}
        />
      </div>
      <p className="hint" id={hintId}>
        Hex: #rgb or #rrggbb{!valid && value !== '' && error === undefined ? ' (not a valid colour yet)' : ''}
      </p>
      {error !== undefined && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
