import { errorMessage } from '../api/errors';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { useWorkspaces } from '../queries';
import { Link } from '../router';
import { useSession } from '../session';
import { useTitle } from '../useTitle';
import { can, ROLE_LABELS } from '../workspaceAccess';
import { type Workspace, workspacePath } from '../workspaces';
import { DeleteSection } from './workspace/DeleteSection';
import { LeaveSection } from './workspace/LeaveSection';
import { MembersSection } from './workspace/MembersSection';
import { RenameSection } from './workspace/RenameSection';
import { ReviewPolicySection } from './workspace/ReviewPolicySection';
import { TwoFactorRequirementSection } from './workspace/TwoFactorRequirementSection';
import { InvitationsSection } from './WorkspaceInvitations';

/** Settings > Workspaces > one workspace: its name, its members and their roles, leaving and deleting it. */
export function WorkspaceDetailPage({ workspaceId }: { workspaceId: string }) {
  const workspaces = useWorkspaces();
  const workspace = workspaces.data?.find((each) => each.id === workspaceId);
  useTitle(workspace?.name ?? 'Workspace');

  if (workspaces.isError) return <LoadFailed title="The workspace could not be loaded" message={errorMessage(workspaces.error)} onRetry={() => void workspaces.refetch()} />;
  if (workspaces.data === undefined) return <Loading label="Loading the workspace…" />;
  if (workspace === undefined) {
    return (
      <section className="empty">
        <h1>Workspace not found</h1>
        <p>You are not a member of a workspace at this address. It may have been deleted, or you were removed from it.</p>
        <Link to="/settings/workspaces" className="button button-primary">
          Back to your workspaces
        </Link>
      </section>
    );
  }
  return <WorkspaceScreen workspace={workspace} />;
}

function WorkspaceScreen({ workspace }: { workspace: Workspace }) {
  const { user } = useSession();

  return (
    <>
      <div className="page-header">
        <div className="workspace-heading">
          <Link to="/settings/workspaces" className="back-link">
            ← All workspaces
          </Link>
          <h1>{workspace.name}</h1>
          <p>
            Your role: {ROLE_LABELS[workspace.role]}
            {workspace.personal && ' · your personal workspace'}
            {workspace.require_two_factor && ' · two-factor authentication required of every member'}
            {can(workspace.role, 'audit.read') && (
              <>
                {' · '}
                <Link to={`${workspacePath(workspace.id)}/audit-log`}>Audit log</Link>
              </>
            )}
            {can(workspace.role, 'webhook.manage') && (
              <>
                {' · '}
                <Link to={`${workspacePath(workspace.id)}/webhooks`}>Webhooks</Link>
              </>
            )}
          </p>
        </div>
      </div>

      {can(workspace.role, 'workspace.update') && <RenameSection workspace={workspace} />}
      {can(workspace.role, 'workspace.update') && <TwoFactorRequirementSection workspace={workspace} />}
      <ReviewPolicySection workspace={workspace} />

      <MembersSection workspace={workspace} currentUserId={user?.id} />
      {can(workspace.role, 'invitation.manage') && <InvitationsSection workspace={workspace} />}

      <LeaveSection workspace={workspace} currentUserId={user?.id} />
      {can(workspace.role, 'workspace.delete') && !workspace.personal && <DeleteSection workspace={workspace} />}
    </>
  );
}
