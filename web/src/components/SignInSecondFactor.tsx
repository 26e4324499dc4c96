import { type FormEvent, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api/errors';
import type { User } from '../api/types';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { AUTH_ERRORS } from '@server/auth/errors';
import { TOTP_ERRORS } from '@server/totp/errors';
import { finishSecondFactor, signOut } from '../api/signIn';

interface SignInSecondFactorProps {
  email: string;
  onSignedIn: (user: User) => Promise<void>;
  /** Back to the first step; `notice` says why when the server ended the waiting sign-in. */
  onRestart: (notice?: string) => void;
}

/**
 * The second sign-in step with TOTP on: the password opened only a pending session, which this code
 * (or a recovery code) turns into a real one. Cancelling ends the pending session on the server.
 */
export function SignInSecondFactor({ email, onSignedIn, onRestart }: SignInSecondFactorProps) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [codeError, setCodeError] = useState<string>();
  const [error, setError] = useState<string>();
  const form = useRef<HTMLFormElement>(null);

  function focusCode() {
    const field = form.current?.elements.namedItem('code');
    if (field instanceof HTMLInputElement) field.focus();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    if (code.trim() === '') {
      setCodeError('Enter the code from your authenticator app.');
      focusCode();
      return;
    }
    setBusy(true);
    setCodeError(undefined);
    try {
      const user = await finishSecondFactor(code.trim());
      await onSignedIn(user);
    } catch (caught) {
      setBusy(false);
      if (caught instanceof ApiError && caught.code === AUTH_ERRORS.SECOND_FACTOR_NOT_PENDING) {
        onRestart('That sign-in waited too long and has ended. Sign in again.');
        return;
      }
      if (caught instanceof ApiError && (caught.code === TOTP_ERRORS.OTP_INVALID || caught.code === TOTP_ERRORS.OTP_REQUIRED)) {
        setCodeError('That code is wrong or has already been used. Wait for the next code and try again.');
        setCode('');
        focusCode();
        return;
      }
      setError(errorMessage(caught));
    }
  }

  async function cancel() {
    setCancelling(true);
    try {
      await signOut();
      onRestart();
    } catch (caught) {
      setError(errorMessage(caught));
      setCancelling(false);
    }
  }

  return (
    <form ref={form} onSubmit={submit} noValidate>
      <p className="auth-intro">
        Signing in as <strong>{email}</strong>. Enter the 6-digit code from your authenticator app, or a recovery code.
      </p>
      {error !== undefined && <Alert kind="error">{error}</Alert>}
      <Field
        // The step replaces the password form: the cursor belongs where the code goes.
        autoFocus
        label="Authentication code"
        name="code"
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        required
        value={code}
        onChange={(event) => setCode(event.target.value)}
        error={codeError}
        hint="Codes change every 30 seconds. A recovery code works once."
      />
      <Button type="submit" variant="primary" className="button-block" busy={busy} disabled={cancelling}>
        Verify and sign in
      </Button>
      <Button variant="ghost" className="button-block auth-secondary-action" onClick={cancel} busy={cancelling} disabled={busy}>
        Cancel
      </Button>
    </form>
  );
}
