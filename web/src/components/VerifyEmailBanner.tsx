import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '../api/errors';
import { Button } from './Button';
import { resendVerificationEmail } from '../api/account';

/**
 * Shown while the account's address is unconfirmed: until then the account may not invite anyone
 * or create webhooks, and whoever holds the mailbox can reset it by signing in with a link.
 */
export function VerifyEmailBanner({ email }: { email: string }) {
  const resend = useMutation({ mutationFn: resendVerificationEmail });

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
        <Button onClick={() => resend.mutate()} busy={resend.isPending}>
          Send a new link
        </Button>
        {resend.data !== undefined && <span role="status">{resend.data}</span>}
        {resend.error !== null && <span role="alert">{errorMessage(resend.error)}</span>}
      </div>
    </section>
  );
}
