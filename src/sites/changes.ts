import { changeTag } from '../cache/change-feed.js';

/** What depends on one site: its answer. */
export function siteTag(siteId: string): string {
  return changeTag('sites', 'id', siteId);
}

/** What depends on any of an owner's sites: the pages of their list. */
export function ownerSitesTag(userId: string): string {
  return changeTag('sites', 'user_id', userId);
}

/**
 * What a committed write to a site touched, as this process reports it to the cache: the same tags
 * the trigger of migration 008 announces to the other processes on PostgreSQL.
 */
export function siteChangeTags(userId: string, siteId?: string): string[] {
  return siteId === undefined ? [ownerSitesTag(userId)] : [siteTag(siteId), ownerSitesTag(userId)];
}
