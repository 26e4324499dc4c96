import type { Cache } from '../cache/cache.js';
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

/** What a write to a site has learnt of it so far; the write fills it in as it reads the site. */
export interface TouchedSite {
  workspaceId?: string | undefined;
  siteId?: string | undefined;
}

/**
 * Runs a write to a site, then reports what it touched to the cache whether or not the write
 * claims success: a commit whose answer was lost still changed the pages. Forgetting too much
 * only costs a read.
 */
export async function invalidatingAfter<T>(cache: Pick<Cache, 'invalidate'>, touched: TouchedSite, write: (touched: TouchedSite) => Promise<T>): Promise<T> {
  try {
    return await write(touched);
  } finally {
    cache.invalidate(siteChangeTags(touched.workspaceId, touched.siteId));
  }
}
