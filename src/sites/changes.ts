import { changeTag } from '../cache/change-feed.js';
import { workspaceSitesTag } from '../memberships/changes.js';

/** What depends on one site: its answers. */
export function siteTag(siteId: string): string {
  return changeTag('sites', 'id', siteId);
}

/**
 * What a committed write to a site touched, as this process reports it to the cache: the same tags
 * the trigger of migration 011 announces to the other processes on PostgreSQL.
 */
export function siteChangeTags(workspaceId: string | undefined, siteId?: string): string[] {
  const tags = siteId === undefined ? [] : [siteTag(siteId)];
  if (workspaceId !== undefined) tags.push(workspaceSitesTag(workspaceId));
  return tags;
}
