import { Field } from './Field';

interface CodeFieldProps {
  label?: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  /** Recovery codes ("abcde-fghij") are letters: allow them where the server accepts one. */
  allowRecoveryCode?: boolean;
  autoFocus?: boolean;
}

/** The code from an authenticator app: numeric keyboard on phones, and the browser may fill it in. */
export function CodeField({ label = 'Code from your authenticator app', value, onChange, error, allowRecoveryCode = false, autoFocus }: CodeFieldProps) {
  return (
    <Field
      label={label}
      className="code-field"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      error={error}
      inputMode={allowRecoveryCode ? 'text' : 'numeric'}
      autoComplete="one-time-code"
      spellCheck={false}
      autoCapitalize="off"
      maxLength={allowRecoveryCode ? 64 : 7}
      required
      autoFocus={autoFocus}
      hint={allowRecoveryCode ? 'The 6-digit code, or one of your recovery codes.' : 'The 6-digit code the app shows now.'}
    />
  );
}
