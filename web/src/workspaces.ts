// Workspaces as the dashboard names them; their queries (useWorkspaces, the members…) are in queries.ts.

export type { Invitation, Member, Workspace } from './api/types';

/** The workspace's screen under Settings. */
export function workspacePath(workspaceId: string): string {
  return `/settings/workspaces/${encodeURIComponent(workspaceId)}`;
}

/** After leaving or deleting a workspace, its list screen opens with this state and says what happened. */
export interface WorkspacesNotice {
  notice: string;
}
