import { changeTag } from '../cache/change-feed.js';

/**
 * What depends on a user's memberships (which workspaces, which roles): their principal, and
 * every site answer and list kept for them. Named as the trigger of migration 011 announces it.
 */
export function membershipsTag(userId: string): string {
  return changeTag('workspace_members', 'user_id', userId);
}

/** What depends on a workspace's own row: whether it requires two-factor authentication of its members. */
export function workspaceTag(workspaceId: string): string {
  return changeTag('workspaces', 'id', workspaceId);
}

/** What depends on any of a workspace's sites: the lists that show them. */
export function workspaceSitesTag(workspaceId: string): string {
  return changeTag('sites', 'workspace_id', workspaceId);
}
