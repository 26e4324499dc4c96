import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { WORKSPACE_NAME_MAX_LENGTH } from '@server/workspaces/contract';
import { ApiError, errorMessage } from '../../api/errors';
import { Alert } from '../../components/Alert';
import { Button } from '../../components/Button';
import { Field } from '../../components/Field';
import { asSentence } from '../../format';
import type { Workspace } from '../../workspaces';
import { renameWorkspace } from '../../api/workspaces';
import { workspacesQuery } from '../../queries';
import { queryKeys } from '../../queryKeys';

/** The workspace's name (PATCH name), for those who may update the workspace. */
export function RenameSection({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, formState } = useForm<{ name: string }>({ defaultValues: { name: workspace.name } });
  const rename = useMutation({
    mutationFn: (name: string) => renameWorkspace(workspace.id, name),
    onSuccess: async (saved) => {
      reset({ name: saved.name });
      queryClient.setQueryData(workspacesQuery().queryKey, (current) => current?.map((each) => (each.id === saved.id ? saved : each)));
      await queryClient.invalidateQueries({ queryKey: queryKeys.sites.all() });
    },
  });
  const serverFieldError = rename.error instanceof ApiError ? rename.error.fieldMessage('name') : undefined;
  const nameError = formState.errors.name?.message ?? (serverFieldError === undefined ? undefined : asSentence(serverFieldError));

  return (
    <section className="card" aria-labelledby="workspace-rename-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-rename-title">Name</h2>
          <p>How the workspace is called in every member’s dashboard.</p>
        </div>
      </div>
      {rename.isSuccess && <Alert kind="success">Name saved.</Alert>}
      {rename.error !== null && serverFieldError === undefined && <Alert kind="error">{errorMessage(rename.error)}</Alert>}
      <form onSubmit={handleSubmit(({ name }) => rename.mutate(name.trim()))} noValidate className="workspace-create">
        <Field
          label="Workspace name"
          maxLength={WORKSPACE_NAME_MAX_LENGTH}
          autoComplete="off"
          error={nameError}
          {...register('name', { validate: (value) => value.trim() !== '' || 'Enter a name.', onChange: () => rename.reset() })}
        />
        <Button type="submit" variant="primary" busy={rename.isPending}>
          Save name
        </Button>
      </form>
    </section>
  );
}
