import { useId, useState } from 'react';
import type { TokenChange } from '../siteDraft';
import { Button } from './Button';
import { ConfirmDialog } from './ConfirmDialog';
import { FieldErrorText } from './Field';

interface AccessTokenFieldProps {
  /** Whether the server holds a token now (access_token_configured). */
  configured: boolean;
  change: TokenChange;
  onChange: (change: TokenChange) => void;
  error?: string | undefined;
}

/**
 * The partner access token is write-only: the server never sends it back, so this field shows only
 * whether one is stored. Replace reveals an empty password input; Clear (after a confirmation)
 * marks the token for removal on the next save; Cancel drops either.
 */
export function AccessTokenField({ configured, change, onChange, error }: AccessTokenFieldProps) {
  const id = useId();
  const [confirmingClear, setConfirmingClear] = useState(false);
  const errorId = `${id}-error`;

  return (
    <div className="field token-field">
      <span className="label" id={`${id}-label`}>
        Access token
      </span>
      <div className="row token-state" aria-labelledby={`${id}-label`} role="group">
        <TokenBadge configured={configured} change={change} />
        {change.kind === 'keep' ? (
          <>
            <Button onClick={() => onChange({ kind: 'replace', value: '' })}>{configured ? 'Replace' : 'Set token'}</Button>
            {configured && (
              <Button variant="ghost" onClick={() => setConfirmingClear(true)}>
                Clear
              </Button>
            )}
          </>
        ) : (
          <Button variant="ghost" onClick={() => onChange({ kind: 'keep' })}>
            Cancel
          </Button>
        )}
      </div>
      {change.kind === 'replace' && (
        <div className="token-input">
          <label htmlFor={id}>New access token</label>
          <input
            id={id}
            type="password"
            value={change.value}
            onChange={(event) => onChange({ kind: 'replace', value: event.target.value })}
            autoComplete="new-password"
            spellCheck={false}
            maxLength={4096}
            autoFocus
            aria-invalid={error !== undefined}
            aria-describedby={error !== undefined ? errorId : undefined}
          />
          <p className="hint">Stored encrypted. It is sent with the next save and never shown again.</p>
        </div>
      )}
      {change.kind === 'clear' && <p className="hint token-clear-note">The token will be removed when you save.</p>}
      <FieldErrorText id={errorId} error={error} />
      <ConfirmDialog
        open={confirmingClear}
        title="Clear the access token?"
        confirmLabel="Clear token"
        danger
        onCancel={() => setConfirmingClear(false)}
        onConfirm={() => {
          setConfirmingClear(false);
          onChange({ kind: 'clear' });
        }}
      >
        <p>The stored token is removed when you save. Calls to the partner service that need it will fail until you set a new one.</p>
      </ConfirmDialog>
    </div>
  );
}

function TokenBadge({ configured, change }: { configured: boolean; change: TokenChange }) {
  if (change.kind === 'clear') return <span className="badge badge-danger">Will be cleared</span>;
  if (change.kind === 'replace' && change.value !== '') return <span className="badge badge-accent">Will be replaced</span>;
  return configured ? <span className="badge badge-success">Configured</span> : <span className="badge">Not set</span>;
}
