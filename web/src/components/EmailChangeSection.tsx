import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { USER_ERRORS } from '@server/users/errors';
import { ApiError, errorMessage } from '../api/errors';
import { emailChangeQuery, usePendingEmailChange } from '../queries';
import { asSentence, formatDateTime } from '../format';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { emailRules } from './formRules';
import { requestEmailChange, withdrawEmailChange } from '../api/account';

/** What the server said about the address, worded for the field; undefined for other failures. */
function emailFieldError(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === USER_ERRORS.EMAIL_TAKEN) return 'Another account already uses this address.';
  const message = error.fieldMessage('email');
  return message === undefined ? undefined : asSentence(message);
}

/**
 * Settings > Profile > E-mail address. The change needs a recent sign-in (the confirmation dialog
 * opens by itself when it has lapsed) and completes only when the link mailed to the new address
 * is used: until then the account keeps its address, and this says which change is waiting.
 */
export function EmailChangeSection() {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const pending = usePendingEmailChange();
  const { register, handleSubmit, reset, formState } = useForm<{ email: string }>({ defaultValues: { email: '' } });
  const change = useMutation({
    mutationFn: (email: string) => requestEmailChange(email.trim()),
    onSuccess: (created) => {
      queryClient.setQueryData(emailChangeQuery().queryKey, created);
      reset({ email: '' });
    },
  });
  const withdraw = useMutation({
    mutationFn: withdrawEmailChange,
    onSuccess: async () => {
      change.reset();
      await queryClient.invalidateQueries({ queryKey: emailChangeQuery().queryKey });
    },
  });
  const fieldError = formState.errors.email?.message ?? emailFieldError(change.error);
  const sent = change.isSuccess;
  const waiting = pending.data;

  return (
    <section className="card" aria-labelledby="profile-email-title">
      <div className="card-header">
        <div>
          <h2 id="profile-email-title">E-mail address</h2>
          <p>
            You sign in with <strong>{user?.email}</strong>. A new address takes over once you confirm it from its own inbox; the current one is then told of
            the change and no longer signs in.
          </p>
        </div>
      </div>
      {pending.error !== null && <Alert kind="error">{errorMessage(pending.error)}</Alert>}
      {waiting !== undefined && waiting !== null && (
        <Alert kind={sent ? 'success' : 'info'} title={sent ? 'Check the new address' : 'Change waiting for confirmation'}>
          <p>
            We sent a link to <strong>{waiting.email}</strong>. Open it and press “Change address” before {formatDateTime(waiting.expires_at)}. Until then you
            keep signing in with {user?.email}.
          </p>
          <div className="row">
            <Button onClick={() => withdraw.mutate()} busy={withdraw.isPending}>
              Withdraw this change
            </Button>
            {withdraw.error !== null && <span role="alert">{errorMessage(withdraw.error)}</span>}
          </div>
        </Alert>
      )}
      {change.error !== null && emailFieldError(change.error) === undefined && <Alert kind="error">{errorMessage(change.error)}</Alert>}
      <form onSubmit={handleSubmit(({ email }) => change.mutate(email))} noValidate className="password-form">
        <Field
          label="New e-mail address"
          type="email"
          autoComplete="email"
          error={fieldError}
          hint="We will send a link there; nothing changes until you open it and confirm."
          required
          {...register('email', { ...emailRules, onChange: () => change.reset() })}
        />
        <div className="row">
          <Button type="submit" variant="primary" busy={change.isPending}>
            Change e-mail
          </Button>
        </div>
      </form>
    </section>
  );
}
