import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ApiError, errorMessage } from '../api/errors';
import type { User } from '../api/types';
import { type Account, accountQuery, fetchAccount } from '../queries';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { ModalDialog } from './ModalDialog';
import { AUTH_ERRORS } from '@server/auth/errors';
import { TOTP_ERRORS } from '@server/totp/errors';
import { finishSecondFactor, signInWithPassword } from '../api/signIn';

interface SignInAgainDialogProps {
  /** Who was signed in: the dialog signs this account in again, never another one. */
  email: string;
  onSignedIn: () => void;
  onCancel: () => void;
}

interface Values {
  password: string;
  code: string;
}

/**
 * "Your session has ended": opened over the screen when a request is refused because the session
 * is gone (expired, or ended from another device). The screen stays as it was, unsaved work
 * included; once signed in, the refused request is sent again.
 */
export function SignInAgainDialog({ email, onSignedIn, onCancel }: SignInAgainDialogProps) {
  const queryClient = useQueryClient();
  const [needsCode, setNeedsCode] = useState(false);
  const { register, handleSubmit, setError, clearErrors, setValue, setFocus, formState } = useForm<Values>({ defaultValues: { password: '', code: '' } });

  function signedIn(user: User) {
    // The new sign-in is recent: the account is read again for until when.
    // Until it is read again, the Admin area stays as it was for the same person.
    const before = queryClient.getQueryData(accountQuery().queryKey);
    const account: Account = { user, recent_authentication_until: null, instance_admin: before?.user.id === user.id && before.instance_admin };
    queryClient.setQueryData(accountQuery().queryKey, account);
    void queryClient.invalidateQueries({ queryKey: accountQuery().queryKey });
    onSignedIn();
  }

  async function submit(values: Values) {
    otherTab.reset();
    try {
      if (needsCode) {
        signedIn(await finishSecondFactor(values.code.trim()));
        return;
      }
      const data = await signInWithPassword({ email, password: values.password });
      if (data.second_factor_required) {
        setNeedsCode(true);
        return;
      }
      signedIn(data.user);
    } catch (error) {
      if (error instanceof ApiError && error.code === AUTH_ERRORS.INVALID_CREDENTIALS) {
        setValue('password', '');
        setError('password', { message: 'That is not your password.' });
        setFocus('password');
      } else if (error instanceof ApiError && (error.code === TOTP_ERRORS.OTP_INVALID || error.code === TOTP_ERRORS.OTP_REQUIRED)) {
        setValue('code', '');
        setError('code', { message: 'That code is wrong or has already been used. Wait for the next one and try again.' });
        setFocus('code');
      } else {
        setError('root', { message: errorMessage(error) });
      }
    }
  }

  /** A sign-in finished in another tab (an e-mail link, a passkey) set the same cookie. */
  const otherTab = useMutation({
    mutationFn: async () => {
      const user = (await fetchAccount())?.user ?? null;
      if (user === null) throw new Error('You are not signed in yet. Finish signing in in the other tab, or enter your password here.');
      if (user.email !== email) throw new Error(`That tab signed in as ${user.email}. Sign in as ${email} to keep your changes.`);
      return user;
    },
    onMutate: () => clearErrors('root'),
    onSuccess: signedIn,
  });
  const checking = otherTab.isPending;

  const busy = formState.isSubmitting || checking;
  const alert = formState.errors.root?.message ?? (otherTab.error === null ? undefined : errorMessage(otherTab.error));
  return (
    <ModalDialog
      title="Your session has ended"
      onCancel={() => {
        if (!busy) onCancel();
      }}
    >
      <form onSubmit={handleSubmit(submit)} noValidate>
        <p className="muted">
          Sign in again as <strong>{email}</strong> to carry on. Nothing on this screen is lost: what you were doing is sent again once you are back.
        </p>
        {alert !== undefined && <Alert kind="error">{alert}</Alert>}
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        {needsCode ? (
          <Field
            label="Authentication code"
            autoComplete="one-time-code"
            autoCapitalize="off"
            spellCheck={false}
            autoFocus
            hint="The 6-digit code from your authenticator app, or a recovery code."
            error={formState.errors.code?.message}
            {...register('code', { validate: (value) => value.trim() !== '' || 'Enter the code from your authenticator app.' })}
          />
        ) : (
          <Field
            label="Password"
            type="password"
            autoComplete="current-password"
            autoFocus
            error={formState.errors.password?.message}
            {...register('password', { required: 'Enter your password.' })}
          />
        )}
        <p className="hint">
          Use an e-mail link or a passkey instead? Sign in with it in another tab, then choose “Done, I signed in there”.
        </p>
        <div className="dialog-actions">
          <Button onClick={() => otherTab.mutate()} busy={checking} disabled={formState.isSubmitting}>
            Done, I signed in there
          </Button>
          <Button onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={formState.isSubmitting} disabled={checking}>
            Sign in
          </Button>
        </div>
      </form>
    </ModalDialog>
  );
}
