import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { ApiError, errorMessage } from '../api/errors';
import { asSentence } from '../format';
import { useAccount } from '../queries';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { USER_ERRORS } from '@server/users/errors';
import { changePassword } from '../api/account';

interface Values {
  current: string;
  next: string;
  confirm: string;
}

/**
 * Settings > Security > Password. The current password is asked for unless the sign-in is recent
 * (the server says until when): after signing in by e-mail link, someone who forgot it sets a new
 * one here. Should the recent sign-in lapse while the form is open, the server refuses and the
 * confirmation dialog (reauthentication.tsx) takes over.
 */
export function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const { user, refresh } = useSession();
  const account = useAccount();
  const recent = typeof account.data?.recent_authentication_until === 'string';
  // After an account reset there is no password to give; a recent sign-in needs none either.
  const hasPassword = user?.has_password !== false;
  const needsCurrent = hasPassword && !recent;
  const { register, handleSubmit, reset, setError, getValues, formState } = useForm<Values>({ defaultValues: { current: '', next: '', confirm: '' } });
  const change = useMutation({
    mutationFn: async ({ current, next }: Values) => {
      await changePassword(current === '' ? { new_password: next } : { current_password: current, new_password: next });
      if (!hasPassword) await refresh();
    },
    onSuccess: () => {
      reset();
      onChanged();
    },
    // A refusal about a field is said at that field (the form's own error state), anything else above the form.
    onError: (error) => {
      if (error instanceof ApiError && error.code === USER_ERRORS.CURRENT_PASSWORD_INVALID) {
        setError('current', { message: 'This is not your current password.' });
      } else if (error instanceof ApiError && error.fieldMessage('new_password') !== undefined) {
        setError('next', { message: asSentence(error.fieldMessage('new_password') ?? '') });
      }
    },
  });
  const done = change.isSuccess;
  const refusedField = change.error instanceof ApiError && (change.error.code === USER_ERRORS.CURRENT_PASSWORD_INVALID || change.error.fieldMessage('new_password') !== undefined);
  const alert = change.error === null || refusedField ? undefined : errorMessage(change.error);

  const { errors } = formState;
  return (
    <section className="card security-card" id="password" aria-labelledby="password-title">
      <div className="card-header">
        <div>
          <h2 id="password-title">{hasPassword ? 'Password' : 'Set a password'}</h2>
          <p>
            {hasPassword
              ? 'Changing it signs you out on every other device and revokes API tokens (JWTs) issued before.'
              : 'Your account has no password (it was made through a sign-in provider, or reset). Choose one to sign in with e-mail and password too.'}
          </p>
        </div>
      </div>
      {done && (
        <Alert kind="success" title="Password changed">
          You were signed out on all other devices. This browser stays signed in.
        </Alert>
      )}
      {alert !== undefined && <Alert kind="error">{alert}</Alert>}
      <form onSubmit={handleSubmit((values) => change.mutate(values))} noValidate className="password-form">
        {/* Lets password managers file the new password under the right account. */}
        <input type="email" name="username" autoComplete="username" value={user?.email ?? ''} readOnly hidden />
        {hasPassword && recent && <p className="muted">You signed in a moment ago, so your current password is not needed.</p>}
        {needsCurrent && (
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            error={errors.current?.message}
            required
            {...register('current', { validate: (value) => !needsCurrent || value !== '' || 'Enter your current password.' })}
          />
        )}
        <div className="form-grid">
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            error={errors.next?.message}
            hint="At least 8 characters. Common passwords, repeats, sequences and your own e-mail address or name are refused."
            required
            {...register('next', { required: 'Choose a new password.' })}
          />
          <Field
            label="Confirm new password"
            type="password"
            autoComplete="new-password"
            error={errors.confirm?.message}
            required
            {...register('confirm', { validate: (value) => getValues('next') === '' || value === getValues('next') || 'The passwords do not match.' })}
          />
        </div>
        <div className="row">
          <Button type="submit" variant="primary" busy={change.isPending}>
            {hasPassword ? 'Change password' : 'Set password'}
          </Button>
        </div>
      </form>
    </section>
  );
}
