// The caller's workspaces (GET /api/v1/workspaces), with their role in each: the sites list's
// switcher, the new-site dialog, the editor's read-only mode and the settings screens all read
// this one query, so a change made on one screen (a workspace created, a role lowered) reaches all.
import { useQuery } from '@tanstack/react-query';
import type { InvitationJson, MemberJson, WorkspaceJson } from '@server/workspaces/schema';
import { api } from './api';

export type Workspace = WorkspaceJson;
export type Member = MemberJson;
export type Invitation = InvitationJson;

export const WORKSPACES_QUERY_KEY = ['workspaces'] as const;

export function workspaceMembersKey(workspaceId: string) {
  return ['workspaces', workspaceId, 'members'] as const;
}

export function workspaceInvitationsKey(workspaceId: string) {
  return ['workspaces', workspaceId, 'invitations'] as const;
}

/** The workspace's screen under Settings. */
export function workspacePath(workspaceId: string): string {
  return `/settings/workspaces/${encodeURIComponent(workspaceId)}`;
}

/** After leaving or deleting a workspace, its list screen opens with this state and says what happened. */
export interface WorkspacesNotice {
  notice: string;
}

export function workspaceUrl(workspaceId: string): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}`;
}

async function fetchWorkspaces(signal: AbortSignal): Promise<Workspace[]> {
  return (await api.get<{ workspaces: Workspace[] }>('/api/v1/workspaces', { signal })).data.workspaces;
}

export function useWorkspaces() {
  return useQuery({ queryKey: WORKSPACES_QUERY_KEY, queryFn: ({ signal }) => fetchWorkspaces(signal) });
}
