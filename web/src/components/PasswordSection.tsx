import { type FormEvent, useState } from 'react';
import { api, ApiError, errorMessage } from '../api';
import { asSentence } from '../format';
import { useSession } from '../session';
import { useResource } from '../useResource';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { USER_ERRORS } from '@server/users/errors';

interface FieldErrors {
  current?: string | undefined;
  next?: string | undefined;
  confirm?: string | undefined;
}

/**
 * Settings > Security > Password. The current password is asked for unless the sign-in is recent
 * (the server says until when): after signing in by e-mail link, someone who forgot it sets a new
 * one here. Should the recent sign-in lapse while the form is open, the server refuses and the
 * confirmation dialog (reauthentication.tsx) takes over.
 */
export function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const { user, refresh } = useSession();
  const { data: recentUntil } = useResource('/api/v1/me', (body: { recent_authentication_until: string | null }) => body.recent_authentication_until);
  const recent = typeof recentUntil === 'string';
  // After an account reset there is no password to give; a recent sign-in needs none either.
  const hasPassword = user?.has_password !== false;
  const needsCurrent = hasPassword && !recent;
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [alert, setAlert] = useState<string>();
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    setAlert(undefined);
    const local: FieldErrors = {
      current: needsCurrent && current === '' ? 'Enter your current password.' : undefined,
      next: next === '' ? 'Choose a new password.' : undefined,
      confirm: next !== '' && confirm !== next ? 'The passwords do not match.' : undefined,
    };
    setErrors(local);
    if (Object.values(local).some((message) => message !== undefined)) return;

    setBusy(true);
    try {
      await api.post('/api/v1/me/password', current === '' ? { new_password: next } : { current_password: current, new_password: next });
      if (!hasPassword) await refresh();
      setCurrent('');
      setNext('');
      setConfirm('');
      setDone(true);
      onChanged();
    } catch (error) {
      if (error instanceof ApiError && error.code === USER_ERRORS.CURRENT_PASSWORD_INVALID) {
        setErrors({ current: 'This is not your current password.' });
      } else if (error instanceof ApiError && error.fieldMessage('new_password') !== undefined) {
        setErrors({ next: asSentence(error.fieldMessage('new_password') ?? '') });
      } else {
        setAlert(errorMessage(error));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card security-card" id="password" aria-labelledby="password-title">
      <div className="card-header">
        <div>
          <h2 id="password-title">{hasPassword ? 'Password' : 'Set a password'}</h2>
          <p>
            {hasPassword
              ? 'Changing it signs you out on every other device and revokes API tokens (JWTs) issued before.'
              : 'Your account has no password since it was reset. Choose one to sign in with e-mail and password.'}
          </p>
        </div>
      </div>
      {done && (
        <Alert kind="success" title="Password changed">
          You were signed out on all other devices. This browser stays signed in.
        </Alert>
      )}
      {alert !== undefined && <Alert kind="error">{alert}</Alert>}
      <form onSubmit={submit} noValidate className="password-form">
        {/* Lets password managers file the new password under the right account. */}
        <input type="email" name="username" autoComplete="username" value={user?.email ?? ''} readOnly hidden />
        {hasPassword && recent && <p className="muted">You signed in a moment ago, so your current password is not needed.</p>}
        {needsCurrent && (
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(event) => setCurrent(event.target.value)}
            error={errors.current}
            required
          />
        )}
        <div className="form-grid">
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(event) => setNext(event.target.value)}
            error={errors.next}
            hint="At least 8 characters. Common passwords, repeats, sequences and your own e-mail address or name are refused."
            required
          />
          <Field
            label="Confirm new password"
            type="password"
            autoComplete="new-password"
            value={confirm}
            onChange={(event) => setConfirm(event.target.value)}
            error={errors.confirm}
            required
          />
        </div>
        <div className="row">
          <Button type="submit" variant="primary" busy={busy}>
            {hasPassword ? 'Change password' : 'Set password'}
          </Button>
        </div>
      </form>
    </section>
  );
}
