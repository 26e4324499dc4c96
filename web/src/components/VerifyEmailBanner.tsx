import { useState } from 'react';
import { api, errorMessage } from '../api';
import { useSubmission } from '../useSubmission';
import { Button } from './Button';

/**
 * Shown while the account's address is unconfirmed: until then the account may not invite anyone
 * or create webhooks, and whoever holds the mailbox can reset it by signing in with a link.
 */
export function VerifyEmailBanner({ email }: { email: string }) {
  const [sent, setSent] = useState<string>();
  const { busy, error, submit } = useSubmission(
    async () => {
      const { data } = await api.post<{ detail: string }>('/auth/verify-email/resend');
      setSent(data.detail);
    },
    { staysAfterSuccess: true },
  );

  return (
    <section className="alert alert-warning verify-banner" aria-labelledby="verify-email-title">
      <strong className="alert-title" id="verify-email-title">
        Confirm your e-mail address
      </strong>
      <p>
        We sent a confirmation link to <strong>{email}</strong>. Open it and press Confirm; until then, features that act in your name (invitations,
        webhooks) stay off.
      </p>
      <div className="row" aria-live="polite">
        <Button onClick={() => void submit()} busy={busy}>
          Send a new link
        </Button>
        {sent !== undefined && <span role="status">{sent}</span>}
        {error !== undefined && <span role="alert">{errorMessage(error)}</span>}
      </div>
    </section>
  );
}
