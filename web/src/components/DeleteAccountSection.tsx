import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ACCOUNT_ERRORS } from '@server/account/errors';
import { ApiError, errorMessage } from '../api/errors';
import { navigate } from '../router';
import { useSession } from '../session';
import { leaveSignInNotice } from '../signInNotice';
import { Alert } from './Alert';
import { Button } from './Button';
import { ConfirmDialog } from './ConfirmDialog';
import { Field } from './Field';
import { deleteAccount } from '../api/account';

/**
 * Settings > Profile > Delete account. The address must be typed out, so a stray click on a
 * borrowed laptop cannot do it; the server also asks for a recent sign-in, which the confirmation
 * dialog (reauthentication.tsx) handles before the request goes out again.
 */
export function DeleteAccountSection() {
  const { user, forget } = useSession();
  const [open, setOpen] = useState(false);
  const { register, handleSubmit, reset, formState } = useForm<{ email: string }>({ defaultValues: { email: '' } });
  const remove = useMutation({
    mutationFn: async () => {
      await deleteAccount();
    },
    onSuccess: () => {
      // The server ended every session, this one too: nothing of the account may stay on screen.
      leaveSignInNotice('Your account was deleted, and every sign-in of it has ended.');
      forget();
      navigate('/sign-in', { force: true });
    },
  });
  const blocking = remove.error instanceof ApiError && remove.error.code === ACCOUNT_ERRORS.OWNERSHIP_TRANSFER_REQUIRED ? (remove.error.extensions.workspaces ?? []) : [];

  function close() {
    setOpen(false);
    reset();
    remove.reset();
  }

  const matches = (typed: string) => typed.trim().toLowerCase() === (user?.email ?? '').toLowerCase() || 'Type your e-mail address exactly as shown.';

  return (
    <section className="card danger-zone" aria-labelledby="delete-account-title">
      <div className="card-header">
        <div>
          <h2 id="delete-account-title">Delete account</h2>
          <p>This cannot be undone.</p>
        </div>
      </div>
      <ul className="danger-zone-list">
        <li>Your personal workspace and its sites are deleted, and so is every workspace where you are the only member.</li>
        <li>Every sign-in ends: web sessions, API tokens (JWTs), access tokens, passkeys and two-factor setup.</li>
        <li>Sites in workspaces you share with others stay there for them.</li>
      </ul>
      <div className="row">
        <Button variant="danger" onClick={() => setOpen(true)}>
          Delete account…
        </Button>
      </div>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete account"
        danger
        busy={remove.isPending}
        onConfirm={() => void handleSubmit(() => remove.mutate())()}
        onCancel={close}
      >
        <p>Your personal workspace, its sites and every sign-in of yours end for good. Sites in workspaces you share with others stay.</p>
        {remove.error !== null && (
          <Alert kind="error">
            {errorMessage(remove.error)}
            {blocking.length > 0 && (
              <ul aria-label="Workspaces to hand over">
                {blocking.map((workspace) => (
                  <li key={workspace.id}>{workspace.name}</li>
                ))}
              </ul>
            )}
          </Alert>
        )}
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void handleSubmit(() => remove.mutate())();
          }}
        >
          <Field
            label={`Type ${user?.email ?? 'your e-mail address'} to confirm`}
            type="email"
            autoComplete="off"
            error={formState.errors.email?.message}
            {...register('email', { validate: matches })}
          />
        </form>
      </ConfirmDialog>
    </section>
  );
}
