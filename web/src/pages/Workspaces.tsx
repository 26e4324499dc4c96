import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { WORKSPACE_NAME_MAX_LENGTH } from '@server/workspaces/contract';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { Field } from '../components/Field';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { asSentence } from '../format';
import { Link, useLocationState } from '../router';
import { useTitle } from '../useTitle';
import { ROLE_LABELS } from '../workspaceAccess';
import { type Workspace, workspacePath } from '../workspaces';
import { useWorkspaces, workspacesQuery } from '../queries';
import { createWorkspace } from '../api/workspaces';

/** What the person did on a workspace's screen that took them back here ("You left …"). */
function noticeOf(state: unknown): string | undefined {
  return typeof state === 'object' && state !== null && 'notice' in state && typeof state.notice === 'string' ? state.notice : undefined;
}

/** Settings > Workspaces: the workspaces the person is in, with their role, and a new one. */
export function WorkspacesPage() {
  useTitle('Workspaces');
  const workspaces = useWorkspaces();
  const notice = noticeOf(useLocationState());

  return (
    <>
      <div className="page-header">
        <div>
          <h1>Workspaces</h1>
          <p>A workspace holds sites and the people who work on them. Your role in each decides what you can do there.</p>
        </div>
      </div>

      {notice !== undefined && <Alert kind="success">{notice}</Alert>}

      <section className="card" aria-labelledby="workspace-list-title">
        <div className="card-header">
          <div>
            <h2 id="workspace-list-title">Your workspaces</h2>
          </div>
        </div>
        {workspaces.isError ? (
          <LoadFailed title="Your workspaces could not be loaded" message={errorMessage(workspaces.error)} onRetry={() => void workspaces.refetch()} />
        ) : workspaces.data === undefined ? (
          <Loading label="Loading workspaces…" />
        ) : (
          <ul className="list workspace-list">
            {workspaces.data.map((workspace) => (
              <WorkspaceRow key={workspace.id} workspace={workspace} />
            ))}
          </ul>
        )}
      </section>

      <CreateWorkspaceSection />
    </>
  );
}

function WorkspaceRow({ workspace }: { workspace: Workspace }) {
  return (
    <li>
      <div className="list-main">
        <Link to={workspacePath(workspace.id)} className="workspace-name">
          {workspace.name}
        </Link>
        {workspace.personal && <span className="muted small">Your personal workspace</span>}
      </div>
      <span className="badge">
        <span className="visually-hidden">Your role: </span>
        {ROLE_LABELS[workspace.role]}
      </span>
    </li>
  );
}

function CreateWorkspaceSection() {
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, formState } = useForm<{ name: string }>({ defaultValues: { name: '' } });
  const create = useMutation({
    mutationFn: (name: string) => createWorkspace(name),
    onSuccess: (workspace) => {
      queryClient.setQueryData(workspacesQuery().queryKey, (current) => (current === undefined ? current : [...current, workspace]));
      void queryClient.invalidateQueries({ queryKey: workspacesQuery().queryKey });
      reset({ name: '' });
    },
  });
  const serverFieldError = create.error instanceof ApiError ? create.error.fieldMessage('name') : undefined;
  const nameError = formState.errors.name?.message ?? (serverFieldError === undefined ? undefined : asSentence(serverFieldError));

  return (
    <section className="card" aria-labelledby="workspace-create-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-create-title">Create a workspace</h2>
          <p>You become its owner. Add sites to it from the sites list, choosing it in New site.</p>
        </div>
      </div>
      {create.isSuccess && (
        <Alert kind="success">
          Created <Link to={workspacePath(create.data.id)}>{create.data.name}</Link>.
        </Alert>
      )}
      {create.error !== null && serverFieldError === undefined && <Alert kind="error">{errorMessage(create.error)}</Alert>}
      <form onSubmit={handleSubmit(({ name }) => create.mutate(name.trim()))} noValidate className="workspace-create">
        <Field
          label="Workspace name"
          maxLength={WORKSPACE_NAME_MAX_LENGTH}
          autoComplete="off"
          error={nameError}
          {...register('name', { validate: (value) => value.trim() !== '' || 'Enter a name.', onChange: () => create.reset() })}
        />
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create workspace
        </Button>
      </form>
    </section>
  );
}
