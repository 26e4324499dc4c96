import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { LoadFailed } from '../../components/LoadFailed';
import { Loading } from '../../components/Loading';
import { useToasts } from '../../toasts';
import { can, ROLE_LABELS, type WorkspaceRole } from '../../workspaceAccess';
import type { Member, Workspace } from '../../workspaces';
import { changeMemberRole, removeMember } from '../../api/workspaces';
import { membersQuery, useMembers } from '../../queries';
import { displayName, MemberRow } from './MemberRow';

/** The members and their roles: change a role, remove a member with a few seconds to undo. */
export function MembersSection({ workspace, currentUserId }: { workspace: Workspace; currentUserId: string | undefined }) {
  const queryClient = useQueryClient();
  const key = membersQuery(workspace.id).queryKey;
  const members = useMembers(workspace.id);
  const [removing, setRemoving] = useState<Member>();
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; text: string }>();

  const changeRole = useMutation({
    mutationFn: ({ member, role }: { member: Member; role: WorkspaceRole }) => changeMemberRole(workspace.id, member.user.id, role),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, (current) => current?.map((each) => (each.user.id === saved.user.id ? saved : each)));
      setOutcome({ kind: 'success', text: `${displayName(saved)} is now ${ROLE_LABELS[saved.role].toLowerCase()}.` });
    },
    onError: (error, { member }) => setOutcome({ kind: 'error', text: `${displayName(member)} keeps their role. ${errorMessage(error)}` }),
  });
  const toasts = useToasts();
  const remove = useMutation({
    mutationFn: (member: Member) => removeMember(workspace.id, member.user.id),
    onSuccess: (_answer, member) => setOutcome({ kind: 'success', text: `${displayName(member)} was removed from ${workspace.name}.` }),
    onError: (error, member) => {
      setOutcome({ kind: 'error', text: `${displayName(member)} is still a member. ${errorMessage(error)}` });
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });

  /**
   * Removing someone ends their access and withdraws their invitations, which the server cannot
   * take back: it waits for the notice to end, and until then Undo keeps them (docs/decisions/dashboard-toasts-and-undo.md).
   */
  function removeWithUndo(member: Member) {
    setRemoving(undefined);
    setOutcome(undefined);
    queryClient.setQueryData(key, (current) => current?.filter((each) => each.user.id !== member.user.id));
    toasts.show({
      message: `${displayName(member)} will be removed from ${workspace.name} when this notice closes.`,
      action: { label: 'Undo', run: () => void queryClient.invalidateQueries({ queryKey: key }) },
      onExpire: () => remove.mutate(member),
    });
  }

  return (
    <section className="card" aria-labelledby="workspace-members-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-members-title">Members</h2>
          <p>
            {can(workspace.role, 'member.manage')
              ? 'Viewers read sites; editors also change them and run partner checks; admins also delete sites and manage members; owners also rename or delete the workspace and make owners.'
              : 'The people in this workspace. Admins and owners change their roles.'}
          </p>
        </div>
      </div>
      {outcome !== undefined && <Alert kind={outcome.kind}>{outcome.text}</Alert>}
      {members.isError ? (
        <LoadFailed title="The members could not be loaded" message={errorMessage(members.error)} error={members.error} onRetry={() => void members.refetch()} />
      ) : members.data === undefined ? (
        <Loading label="Loading members…" />
      ) : (
        <ul className="list member-list" aria-busy={changeRole.isPending || undefined}>
          {members.data.map((member) => (
            <MemberRow
              key={member.user.id}
              member={member}
              callerRole={workspace.role}
              isSelf={member.user.id === currentUserId}
              busy={changeRole.isPending && changeRole.variables.member.user.id === member.user.id}
              onRoleChange={(role) => {
                setOutcome(undefined);
                changeRole.mutate({ member, role });
              }}
              onRemove={() => {
                setOutcome(undefined);
                setRemoving(member);
              }}
            />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove ${removing === undefined ? '' : displayName(removing)}?`}
        confirmLabel="Remove member"
        danger
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => removing !== undefined && removeWithUndo(removing)}
      >
        <p>They lose access to every site in {workspace.name}. You can undo this for a few seconds.</p>
      </ConfirmDialog>
    </section>
  );
}
