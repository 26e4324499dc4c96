import { useForm } from 'react-hook-form';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { emailRules } from './formRules';
import { requestMagicLink } from '../api/signIn';

/**
 * "E-mail me a sign-in link". The server answers the same for every address (no account
 * enumeration), so neither step says whether an account exists.
 */
export function MagicLinkRequestForm({ initialEmail, onSent, onBack }: { initialEmail: string; onSent: (email: string) => void; onBack: () => void }) {
  const { register, handleSubmit, setError, formState } = useForm<{ email: string }>({ defaultValues: { email: initialEmail } });

  async function submit({ email }: { email: string }) {
    try {
      await requestMagicLink(email.trim());
      onSent(email.trim());
    } catch (caught) {
      const emailError = caught instanceof ApiError ? caught.fieldMessage('email') : undefined;
      if (emailError !== undefined) setError('email', { message: emailError });
      else setError('root', { message: errorMessage(caught) });
    }
  }

  const { errors, isSubmitting } = formState;
  return (
    <form onSubmit={handleSubmit(submit)} noValidate>
      {errors.root?.message !== undefined && <Alert kind="error">{errors.root.message}</Alert>}
      <Field label="E-mail" type="email" autoComplete="email" required autoFocus error={errors.email?.message} {...register('email', emailRules)} />
      <Button type="submit" variant="primary" className="button-block" busy={isSubmitting}>
        E-mail me a link
      </Button>
      <Button variant="ghost" className="button-block auth-secondary-action" onClick={onBack} disabled={isSubmitting}>
        Back to sign in
      </Button>
    </form>
  );
}

/** What happens next, once a link was asked for. */
export function MagicLinkSent({ email, onDifferentAddress, onBack }: { email: string; onDifferentAddress: () => void; onBack: () => void }) {
  return (
    <div className="magic-link-sent">
      <p role="status">
        If an account exists for <strong>{email}</strong>, a link is on its way. It expires in 15 minutes.
      </p>
      <p className="muted small">Open it on this device or another. Nothing there after a minute? Look in your spam folder, or ask again.</p>
      <Button className="button-block" onClick={onDifferentAddress}>
        Use a different address
      </Button>
      <Button variant="ghost" className="button-block auth-secondary-action" onClick={onBack}>
        Back to sign in
      </Button>
    </div>
  );
}

/** An envelope, for the "check your inbox" step. */
export function MailIcon({ size = 18 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <rect x="3" y="5" width="18" height="14" rx="2" />
      <path d="m3.5 6.5 8.5 6.5 8.5-6.5" />
    </svg>
  );
}
