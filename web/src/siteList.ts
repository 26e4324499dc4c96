// The sites list's request (api/sites.ts fetches it): GET /api/v1/sites with a workspace (or every one), a search, a sort,
// a page size, a cursor, and `fields=summary`, which answers a light row per site (what is
// configured, partner health) instead of every settings group of every site.
import { SITE_LIST_SORTS, type SiteListSort } from '@server/sites/contract';
import { SITE_LIST_OPENING } from '@server/web/screens';

export type SiteSort = SiteListSort;

/** The list opens on the sites changed most recently (the server's index.html preloads that first page). */
export const DEFAULT_SITE_SORT: SiteSort = SITE_LIST_OPENING.sort;

export function isSiteSort(value: string | null): value is SiteSort {
  return value !== null && (SITE_LIST_SORTS as readonly string[]).includes(value);
}

export interface SiteListQuery {
  /** One workspace's sites; null for every workspace the person is in. */
  workspaceId: string | null;
  q: string;
  sort: SiteSort;
  cursor: string | null;
  limit: number;
}

/** Rows per page of the list. */
export const SITE_LIST_PAGE_SIZE: number = SITE_LIST_OPENING.limit;

/** The list's request as its address states it (`?workspace=&q=&sort=&cursor=`). */
export function siteListQueryFrom(parameters: URLSearchParams): SiteListQuery {
  const sort = parameters.get('sort');
  const workspace = parameters.get('workspace') ?? '';
  return { workspaceId: workspace === '' ? null : workspace, q: (parameters.get('q') ?? '').trim(), sort: isSiteSort(sort) ? sort : DEFAULT_SITE_SORT, cursor: parameters.get('cursor'), limit: SITE_LIST_PAGE_SIZE };
}
