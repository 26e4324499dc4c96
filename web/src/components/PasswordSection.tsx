import { type FormEvent, useState } from 'react';
import { api, ApiError, errorMessage } from '../api';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';

interface FieldErrors {
  current?: string | undefined;
  next?: string | undefined;
  confirm?: string | undefined;
}

/** "must be at least 8 characters" → "Must be at least 8 characters." */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const { user, refresh } = useSession();
  // After an account reset there is no password: one is set without the current one.
  const needsCurrent = user?.has_password !== false;
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
      await api.post('/api/v1/me/password', needsCurrent ? { current_password: current, new_password: next } : { new_password: next });
      if (!needsCurrent) await refresh();
      setCurrent('');
      setNext('');
      setConfirm('');
      setDone(true);
      onChanged();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'current_password_invalid') {
        setErrors({ current: 'This is not your current password.' });
      } else if (error instanceof ApiError && error.fieldMessage('new_password') !== undefined) {
        setErrors({ next: sentence(error.fieldMessage('new_password') ?? '') });
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
          <h2 id="password-title">{needsCurrent ? 'Password' : 'Set a password'}</h2>
          <p>
            {needsCurrent
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
            {needsCurrent ? 'Change password' : 'Set password'}
          </Button>
        </div>
      </form>
    </section>
  );
}
