import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { TrashEntry } from '../api/types';
import { errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { formatDateTime, formatRelative } from '../format';
import { Link } from '../router';
import { useTitle } from '../useTitle';
import { can } from '../workspaceAccess';
import { type Workspace } from '../workspaces';
import { useTrash, useWorkspaces } from '../queries';
import { queryKeys } from '../queryKeys';
import { restoreFromTrash } from '../api/sites';

/** Deleted sites of the caller's workspaces, restorable until they are purged. */
export function TrashPage() {
  useTitle('Trash');
  const queryClient = useQueryClient();
  const workspaces = useWorkspaces();
  const [restoring, setRestoring] = useState<TrashEntry | undefined>();
  const [restored, setRestored] = useState<{ id: string; name: string } | undefined>();
  const trash = useTrash();
  const restore = useMutation({
    mutationFn: (entry: TrashEntry) => restoreFromTrash(entry.site.id),
    onSuccess: (_answer, entry) => {
      setRestoring(undefined);
      setRestored({ id: entry.site.id, name: entry.site.name });
      void queryClient.invalidateQueries({ queryKey: queryKeys.trash.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
    },
    onError: () => setRestoring(undefined),
  });
  const entries = trash.data?.pages.flatMap((page) => page.sites) ?? [];
  const workspaceOf = (id: string): Workspace | undefined => workspaces.data?.find((workspace) => workspace.id === id);
  const showWorkspace = (workspaces.data?.length ?? 0) > 1;

  return (
    <>
      <header className="page-header">
        <div>
          <Link to="/sites" className="back-link">
            ← Sites
          </Link>
          <h1>Trash</h1>
          <p>Deleted sites stay here, with their history, until they are deleted for good. Admins and owners of a site’s workspace can bring it back.</p>
        </div>
      </header>
      {restored !== undefined && (
        <Alert kind="success" title={`${restored.name} is back`}>
          <p>
            <Link to={`/sites/${encodeURIComponent(restored.id)}`}>Open {restored.name}</Link>
          </p>
        </Alert>
      )}
      {restore.isError && (
        <Alert kind="error" title="The site was not restored">
          <p>{errorMessage(restore.error)}</p>
        </Alert>
      )}
      <section className="card" aria-labelledby="trash-title">
        <h2 id="trash-title" className="visually-hidden">
          Deleted sites, most recently deleted first
        </h2>
        {trash.isError ? (
          <LoadFailed title="The trash could not be loaded" message={errorMessage(trash.error)} error={trash.error} onRetry={() => void trash.refetch()} />
        ) : trash.data === undefined ? (
          <Loading label="Loading the trash…" />
        ) : entries.length === 0 ? (
          <p className="muted">The trash is empty.</p>
        ) : (
          <>
            <ul className="list trash-list" aria-busy={trash.isFetchingNextPage || undefined}>
              {entries.map((entry) => {
                const workspace = workspaceOf(entry.site.workspace_id);
                return (
                  <li key={entry.site.id}>
                    <div className="list-main">
                      <strong>{entry.site.name}</strong>
                      <span className="muted small">
                        Deleted{' '}
                        <time dateTime={entry.deleted_at} title={formatDateTime(entry.deleted_at)}>
                          {formatRelative(entry.deleted_at)}
                        </time>
                        {entry.deleted_by !== null && ` by ${entry.deleted_by.name.trim() === '' ? entry.deleted_by.email : entry.deleted_by.name}`}
                        {showWorkspace && workspace !== undefined && ` · ${workspace.name}`} · restorable until{' '}
                        <time dateTime={entry.purge_at} title={formatDateTime(entry.purge_at)}>
                          {formatDateTime(entry.purge_at)}
                        </time>
                      </span>
                    </div>
                    {workspace !== undefined && can(workspace.role, 'site.delete') && (
                      <Button onClick={() => setRestoring(entry)} aria-label={`Restore ${entry.site.name}`}>
                        Restore
                      </Button>
                    )}
                  </li>
                );
              })}
            </ul>
            {trash.hasNextPage && (
              <Button onClick={() => void trash.fetchNextPage()} busy={trash.isFetchingNextPage}>
                Show more
              </Button>
            )}
          </>
        )}
      </section>
      <ConfirmDialog
        open={restoring !== undefined}
        title={`Restore ${restoring?.site.name ?? ''}?`}
        confirmLabel="Restore site"
        busy={restore.isPending}
        onCancel={() => setRestoring(undefined)}
        onConfirm={() => {
          if (restoring !== undefined) restore.mutate(restoring);
        }}
      >
        <p>It comes back as it was when it was deleted, with its history and partner connection, for everyone in its workspace.</p>
      </ConfirmDialog>
    </>
  );
}
