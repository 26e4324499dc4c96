import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { removeMember } from '../../api/workspaces';
import { Alert } from '../../components/Alert';
import { Button } from '../../components/Button';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useMembers } from '../../queries';
import type { Workspace } from '../../workspaces';
import { useLeaveWorkspaceScreen } from './leaveWorkspaceScreen';

/** Leave the workspace (DELETE of one's own membership), after a confirmation. */
export function LeaveSection({ workspace, currentUserId }: { workspace: Workspace; currentUserId: string | undefined }) {
  const leaveScreen = useLeaveWorkspaceScreen();
  const [leaving, setLeaving] = useState(false);
  // The last owner cannot leave (the server refuses it too): said before any confirmation.
  const members = useMembers(workspace.id);
  const soleOwner = workspace.role === 'owner' && members.data !== undefined && members.data.filter((member) => member.role === 'owner').length === 1;

  const leave = useMutation({
    mutationFn: () => removeMember(workspace.id, currentUserId ?? ''),
    onSuccess: async () => {
      setLeaving(false);
      await leaveScreen(`You left ${workspace.name}.`);
    },
  });

  return (
    <>
      <section className="card" aria-labelledby="workspace-leave-title">
        <div className="card-header">
          <div>
            <h2 id="workspace-leave-title">Leave workspace</h2>
            <p>
              {workspace.personal
                ? 'Your personal workspace stays yours: it cannot be left or deleted.'
                : soleOwner
                  ? 'You are its only owner: make another member an owner first, or delete the workspace.'
                  : 'You lose access to its sites. A member who manages people can add you again.'}
            </p>
          </div>
          {!workspace.personal && !soleOwner && (
            <Button
              onClick={() => {
                leave.reset();
                setLeaving(true);
              }}
            >
              Leave workspace…
            </Button>
          )}
        </div>
        {leave.error !== null && !leaving && (
          <Alert kind="error" title="You are still a member">
            <p>{errorMessage(leave.error)}</p>
          </Alert>
        )}
      </section>
      <ConfirmDialog
        open={leaving}
        title={`Leave ${workspace.name}?`}
        confirmLabel="Leave workspace"
        danger
        busy={leave.isPending}
        onCancel={() => setLeaving(false)}
        onConfirm={() => leave.mutate(undefined, { onError: () => setLeaving(false) })}
      >
        <p>You will no longer see its sites.</p>
      </ConfirmDialog>
    </>
  );
}
