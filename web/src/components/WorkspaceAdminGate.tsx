import type { ReactNode } from 'react';
import type { WorkspaceAction } from '@server/memberships/contract';
import { errorMessage } from '../api/errors';
import { Link } from '../router';
import { useTitle } from '../useTitle';
import { can } from '../workspaceAccess';
import { type Workspace, workspacePath } from '../workspaces';
import { useWorkspaces } from '../queries';
import { LoadFailed } from './LoadFailed';
import { Loading } from './Loading';

interface WorkspaceAdminGateProps {
  workspaceId: string;
  /** The screen's name: the tab's title, with the workspace's name once known. */
  title: string;
  /** What the screen needs the caller's role to allow. */
  action: WorkspaceAction;
  /** Said to a member whose role does not allow it. */
  refusal: string;
  children: (workspace: Workspace) => ReactNode;
}

/**
 * A workspace screen under Settings that only some roles may open (the audit log, webhooks): the
 * workspace once loaded, or a screen saying why there is nothing to show. The server refuses the
 * same people; this only spares them a screen of errors.
 */
export function WorkspaceAdminGate({ workspaceId, title, action, refusal, children }: WorkspaceAdminGateProps) {
  const workspaces = useWorkspaces();
  const workspace = workspaces.data?.find((each) => each.id === workspaceId);
  useTitle(workspace === undefined ? title : `${title} · ${workspace.name}`);
  if (workspaces.isError) return <LoadFailed title="The workspace could not be loaded" message={errorMessage(workspaces.error)} onRetry={() => void workspaces.refetch()} />;
  if (workspaces.data === undefined) return <Loading label="Loading the workspace…" />;
  if (workspace === undefined || !can(workspace.role, action)) {
    return (
      <section className="empty">
        <h1>No {title.toLowerCase()} to show</h1>
        <p>{workspace === undefined ? 'You are not a member of a workspace at this address.' : refusal}</p>
        <Link to={workspace === undefined ? '/settings/workspaces' : workspacePath(workspace.id)} className="button button-primary">
          {workspace === undefined ? 'Back to your workspaces' : `Back to ${workspace.name}`}
        </Link>
      </section>
    );
  }
  return children(workspace);
}

/** The heading of such a screen: the way back to the workspace, the title and what the screen is for. */
export function WorkspaceScreenHeader({ workspace, title, children }: { workspace: Workspace; title: string; children: ReactNode }) {
  return (
    <div className="page-header">
      <div className="workspace-heading">
        <Link to={workspacePath(workspace.id)} className="back-link">
          ← {workspace.name}
        </Link>
        <h1>{title}</h1>
        <p>{children}</p>
      </div>
    </div>
  );
}
