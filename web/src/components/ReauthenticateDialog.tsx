import { startAuthentication } from '@simplewebauthn/browser';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api/errors';
import { useTotpStatus } from '../queries';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { CodeField } from './CodeField';
import { Field } from './Field';
import { SingleSignOnReauthentication } from './SingleSignOnReauthentication';
import { ACCOUNT_ERRORS } from '@server/account/errors';
import { TOTP_ERRORS } from '@server/totp/errors';
import { reauthenticateWithPasskey, reauthenticateWithPassword, reauthenticationPasskeyOptions } from '../api/account';

interface ReauthenticateDialogProps {
  /** The server took the proof: the refused request may be sent again. */
  onConfirmed: () => void;
  onCancel: () => void;
}

/** The person closed the browser's prompt or let it time out. */
function wasCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/**
 * "Confirm it's you": the password (and a code when 2FA is on) or a passkey, sent
 * to POST /api/v1/me/reauthenticate. Mounted by the ReauthenticationProvider whenever a change is
 * refused for want of a recent sign-in, and unmounted after, so each confirmation starts blank.
 */
export function ReauthenticateDialog({ onConfirmed, onCancel }: ReauthenticateDialogProps) {
  const { user } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // With 2FA on the code is asked for at once, not only after the server has said so.
  const twoFactor = useTotpStatus();
  const [codeRefused, setNeedsCode] = useState(false);
  const needsCode = codeRefused || twoFactor.data?.enabled === true;
  const [errors, setErrors] = useState<{ password?: string; code?: string; alert?: string }>({});
  const [busy, setBusy] = useState<'password' | 'passkey'>();

  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
  }, []);

  async function confirmWithPassword(event: FormEvent) {
    event.preventDefault();
    if (password === '') {
      setErrors({ password: 'Enter your password.' });
      return;
    }
    if (needsCode && code.trim() === '') {
      setErrors({ code: 'Enter a code from your authenticator app, or a recovery code.' });
      return;
    }
    setBusy('password');
    setErrors({});
    try {
      await reauthenticateWithPassword(password, needsCode ? code : undefined);
      onConfirmed();
    } catch (error) {
      if (error instanceof ApiError && error.code === ACCOUNT_ERRORS.PASSWORD_INVALID) {
        setPassword('');
        setErrors({ password: 'That is not your password.' });
      } else if (error instanceof ApiError && error.code === TOTP_ERRORS.OTP_REQUIRED) {
        setNeedsCode(true);
        setErrors({ code: 'Two-factor authentication is on: enter the code from your app, or a recovery code.' });
      } else if (error instanceof ApiError && error.code === TOTP_ERRORS.OTP_INVALID) {
        setCode('');
        setErrors({ code: 'That code is wrong or has already been used. Wait for the next one and try again.' });
      } else {
        setErrors({ alert: errorMessage(error) });
      }
    } finally {
      setBusy(undefined);
    }
  }

  async function confirmWithPasskey() {
    setBusy('passkey');
    setErrors({});
    try {
      const data = await reauthenticationPasskeyOptions();
      const response = await startAuthentication({ optionsJSON: data.options });
      await reauthenticateWithPasskey(data.challenge_id, response);
      onConfirmed();
    } catch (error) {
      if (wasCancelled(error)) setErrors({ alert: 'The passkey prompt was closed. Try again, or use your password.' });
      else setErrors({ alert: errorMessage(error) });
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (busy === undefined) onCancel();
      }}
    >
      <form onSubmit={confirmWithPassword} noValidate>
        <h2 id={titleId}>Confirm it’s you</h2>
        <p className="muted">This change needs a recent sign-in. Confirm with your password{needsCode ? ' and a code' : ''} or a passkey, and it goes ahead.</p>
        {errors.alert !== undefined && <Alert kind="error">{errors.alert}</Alert>}
        {/* Lets a password manager offer the right account's password. */}
        <input type="email" name="username" autoComplete="username" value={user?.email ?? ''} readOnly hidden />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={errors.password}
          autoFocus
          required
        />
        {needsCode && <CodeField value={code} onChange={setCode} error={errors.code} allowRecoveryCode autoFocus={codeRefused} label="Code" />}
        <div className="dialog-actions">
          {typeof window.PublicKeyCredential !== 'undefined' && (
            <Button onClick={() => void confirmWithPasskey()} busy={busy === 'passkey'} disabled={busy === 'password'}>
              Use a passkey
            </Button>
          )}
          <Button onClick={onCancel} disabled={busy !== undefined}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy === 'password'} disabled={busy === 'passkey'}>
            Confirm
          </Button>
        </div>
        <SingleSignOnReauthentication />
      </form>
    </dialog>
  );
}
