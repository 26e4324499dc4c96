// Workspaces as the dashboard names them; their queries (useWorkspaces, the members…) are in queries.ts.
import type { InvitationJson, MemberJson, WorkspaceJson } from '@server/workspaces/schema';

export type Workspace = WorkspaceJson;
export type Member = MemberJson;
export type Invitation = InvitationJson;

/** The workspace's screen under Settings. */
export function workspacePath(workspaceId: string): string {
  return `/settings/workspaces/${encodeURIComponent(workspaceId)}`;
}

/** After leaving or deleting a workspace, its list screen opens with this state and says what happened. */
export interface WorkspacesNotice {
  notice: string;
}
