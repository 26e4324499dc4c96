import { useState } from 'react';
import { api, ApiError, errorMessage, type User } from '../api';
import { useSubmission } from '../useSubmission';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';

interface SignInPasswordFormProps {
  email: string;
  onEmailChange: (email: string) => void;
  /** The password was right; with TOTP on, `secondFactorRequired` asks for the code next. */
  onPasswordAccepted: (user: User, secondFactorRequired: boolean) => Promise<void>;
}

/** E-mail and password → POST /auth/session, which sets the session cookie (pending when TOTP is on). */
export function SignInPasswordForm({ email, onEmailChange, onPasswordAccepted }: SignInPasswordFormProps) {
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmission(
    async () => {
      const { data } = await api.post<{ user: User; second_factor_required: boolean }>('/auth/session', { email: email.trim(), password });
      await onPasswordAccepted(data.user, data.second_factor_required);
    },
    {
      // A refused password is retyped, never reused by accident.
      onFailure: (caught) => {
        if (caught instanceof ApiError && caught.status === 401) setPassword('');
      },
    },
  );

  const emailError = error instanceof ApiError ? error.fieldMessage('email') : undefined;
  const passwordError = error instanceof ApiError ? error.fieldMessage('password') : undefined;
  const showAlert = error !== undefined && emailError === undefined && passwordError === undefined;
  return (
    <form onSubmit={submit}>
      {showAlert && <Alert kind="error">{errorMessage(error)}</Alert>}
      <Field
        label="E-mail"
        type="email"
        name="email"
        autoComplete="username"
        required
        autoFocus
        value={email}
        onChange={(event) => onEmailChange(event.target.value)}
        error={emailError}
      />
      <Field
        label="Password"
        type="password"
        name="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        error={passwordError}
      />
      <Button type="submit" variant="primary" className="button-block" busy={busy}>
        Sign in
      </Button>
    </form>
  );
}
