import { useMutation } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { NAME_MAX_LENGTH } from '@server/users/contract';
import { ApiError, errorMessage } from '../api/errors';
import { asSentence } from '../format';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { renameAccount } from '../api/account';

/** Settings > Profile > Name: how Siteward addresses you. */
export function ProfileNameSection() {
  const { user, refresh } = useSession();
  const { register, handleSubmit, reset, formState } = useForm<{ name: string }>({ defaultValues: { name: user?.name ?? '' } });
  // Follows the name as the server holds it (changed in another tab, say), unless it is being edited here.
  const serverName = user?.name ?? '';
  const editing = formState.isDirty;
  useEffect(() => {
    if (!editing) reset({ name: serverName });
  }, [serverName, editing, reset]);
  const save = useMutation({
    mutationFn: renameAccount,
    onSuccess: async (saved) => {
      reset({ name: saved.name });
      await refresh();
    },
  });
  const fieldError = save.error instanceof ApiError ? save.error.fieldMessage('name') : undefined;

  return (
    <section className="card" aria-labelledby="profile-name-title">
      <div className="card-header">
        <div>
          <h2 id="profile-name-title">Your name</h2>
          <p>How Siteward addresses you. It may be left empty.</p>
        </div>
      </div>
      {save.isSuccess && <Alert kind="success">Name saved.</Alert>}
      {save.error !== null && fieldError === undefined && <Alert kind="error">{errorMessage(save.error)}</Alert>}
      <form onSubmit={handleSubmit(({ name }) => save.mutate(name))} noValidate className="password-form">
        <Field
          label="Name"
          autoComplete="name"
          maxLength={NAME_MAX_LENGTH}
          error={fieldError === undefined ? undefined : asSentence(fieldError)}
          {...register('name', { onChange: () => save.reset() })}
        />
        <div className="row">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save name
          </Button>
        </div>
      </form>
    </section>
  );
}
