import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { deleteWorkspace } from '../../api/workspaces';
import { Alert } from '../../components/Alert';
import { Button } from '../../components/Button';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { Workspace } from '../../workspaces';
import { useLeaveWorkspaceScreen } from './leaveWorkspaceScreen';

/** Delete the workspace and every site in it, after a confirmation. */
export function DeleteSection({ workspace }: { workspace: Workspace }) {
  const leaveScreen = useLeaveWorkspaceScreen();
  const [deleting, setDeleting] = useState(false);
  const deletion = useMutation({
    mutationFn: () => deleteWorkspace(workspace.id),
    onSuccess: async () => {
      setDeleting(false);
      await leaveScreen(`${workspace.name} and its sites were deleted.`);
    },
  });

  return (
    <>
      <section className="card danger-zone" aria-labelledby="workspace-delete-title">
        <div className="card-header">
          <div>
            <h2 id="workspace-delete-title">Delete workspace</h2>
            <p>Deletes the workspace and every site in it, for all of its members.</p>
          </div>
          <Button
            variant="danger"
            onClick={() => {
              deletion.reset();
              setDeleting(true);
            }}
          >
            Delete workspace…
          </Button>
        </div>
        {deletion.error !== null && !deleting && (
          <Alert kind="error" title="The workspace was not deleted">
            <p>{errorMessage(deletion.error)}</p>
          </Alert>
        )}
      </section>
      <ConfirmDialog
        open={deleting}
        title={`Delete ${workspace.name}?`}
        confirmLabel="Delete workspace and its sites"
        danger
        busy={deletion.isPending}
        onCancel={() => setDeleting(false)}
        onConfirm={() => deletion.mutate(undefined, { onError: () => setDeleting(false) })}
      >
        <p>{workspace.name}, every site in it and their settings are deleted for all members. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
