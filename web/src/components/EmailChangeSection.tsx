import { useState } from 'react';
import { USER_ERRORS } from '@server/users/errors';
import { api, ApiError, errorMessage, type PendingEmailChange } from '../api';
import { asSentence, formatDateTime } from '../format';
import { useSession } from '../session';
import { useResource } from '../useResource';
import { useSubmission } from '../useSubmission';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';

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
  const { data: pending, setData: setPending, reload } = useResource('/api/v1/me/email', (body: { pending_email_change: PendingEmailChange | null }) => body.pending_email_change);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmission(
    async () => {
      setSent(false);
      const { data } = await api.post<{ pending_email_change: PendingEmailChange }>('/api/v1/me/email', { email });
      setPending(data.pending_email_change);
      setEmail('');
      setSent(true);
    },
    { staysAfterSuccess: true },
  );
  const withdraw = useSubmission(
    async () => {
      await api.delete('/api/v1/me/email');
      setSent(false);
      await reload();
    },
    { staysAfterSuccess: true },
  );
  const fieldError = emailFieldError(error);

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
      {pending !== undefined && pending !== null && (
        <Alert kind={sent ? 'success' : 'info'} title={sent ? 'Check the new address' : 'Change waiting for confirmation'}>
          <p>
            We sent a link to <strong>{pending.email}</strong>. Open it and press “Change address” before {formatDateTime(pending.expires_at)}. Until then you
            keep signing in with {user?.email}.
          </p>
          <div className="row">
            <Button onClick={() => void withdraw.submit()} busy={withdraw.busy}>
              Withdraw this change
            </Button>
            {withdraw.error !== undefined && <span role="alert">{errorMessage(withdraw.error)}</span>}
          </div>
        </Alert>
      )}
      {error !== undefined && fieldError === undefined && <Alert kind="error">{errorMessage(error)}</Alert>}
      <form onSubmit={submit} noValidate className="password-form">
        <Field
          label="New e-mail address"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fieldError}
          hint="We will send a link there; nothing changes until you open it and confirm."
          required
        />
        <div className="row">
          <Button type="submit" variant="primary" busy={busy}>
            Change e-mail
          </Button>
        </div>
      </form>
    </section>
  );
}
