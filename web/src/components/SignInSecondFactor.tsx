import { useMutation } from '@tanstack/react-query';
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

function isWrongCode(error: unknown): boolean {
  return error instanceof ApiError && (error.code === TOTP_ERRORS.OTP_INVALID || error.code === TOTP_ERRORS.OTP_REQUIRED);
}

function isExpired(error: unknown): boolean {
  return error instanceof ApiError && error.code === AUTH_ERRORS.SECOND_FACTOR_NOT_PENDING;
}

/**
 * The second sign-in step with TOTP on: the password opened only a pending session, which this code
 * (or a recovery code) turns into a real one. Cancelling ends the pending session on the server.
 */
export function SignInSecondFactor({ email, onSignedIn, onRestart }: SignInSecondFactorProps) {
  const [code, setCode] = useState('');
  // Submitted with no code: said at the field, before any request.
  const [codeMissing, setCodeMissing] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  function focusCode() {
    const field = form.current?.elements.namedItem('code');
    if (field instanceof HTMLInputElement) field.focus();
  }

  const verify = useMutation({
    mutationFn: async (submitted: string) => {
      const user = await finishSecondFactor(submitted);
      // Stays busy until the dashboard has moved on.
      await onSignedIn(user);
    },
    onError: (caught) => {
      if (isExpired(caught)) {
        onRestart('That sign-in waited too long and has ended. Sign in again.');
      } else if (isWrongCode(caught)) {
        setCode('');
        focusCode();
      }
    },
  });
  const cancel = useMutation({ mutationFn: signOut, onSuccess: () => onRestart() });

  function submit(event: FormEvent) {
    event.preventDefault();
    cancel.reset();
    if (code.trim() === '') {
      verify.reset();
      setCodeMissing(true);
      focusCode();
      return;
    }
    setCodeMissing(false);
    verify.mutate(code.trim());
  }

  const codeError = codeMissing
    ? 'Enter the code from your authenticator app.'
    : isWrongCode(verify.error)
      ? 'That code is wrong or has already been used. Wait for the next code and try again.'
      : undefined;
  const failure = cancel.error ?? (verify.error !== null && !isWrongCode(verify.error) && !isExpired(verify.error) ? verify.error : null);
  const error = failure === null ? undefined : errorMessage(failure);

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
      <Button type="submit" variant="primary" className="button-block" busy={verify.isPending} disabled={cancel.isPending}>
        Verify and sign in
      </Button>
      <Button variant="ghost" className="button-block auth-secondary-action" onClick={() => cancel.mutate()} busy={cancel.isPending} disabled={verify.isPending}>
        Cancel
      </Button>
    </form>
  );
}
