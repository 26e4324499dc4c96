// The sites list's request: GET /api/v1/sites with a search, a sort, a page size, a cursor, and
// `fields=summary`, which answers a light row per site (what is configured, partner health)
// instead of every settings group of every site.
import type { SettingsField } from '@server/sites/contract';
import { api, type PartnerSettings, type Site } from './api';

/** The orders the list offers; the API's `sort` values ("-" is newest or Z first). */
export const SITE_SORTS = ['-updated_at', 'name', '-name', '-created_at', 'created_at', 'updated_at'] as const;
export type SiteSort = (typeof SITE_SORTS)[number];
export const DEFAULT_SITE_SORT: SiteSort = '-updated_at';

export function isSiteSort(value: string | null): value is SiteSort {
  return value !== null && (SITE_SORTS as readonly string[]).includes(value);
}

/** One row of `fields=summary`. */
export interface SiteSummary extends Pick<Site, 'id' | 'name' | 'color' | 'created_at' | 'updated_at'> {
  /** The settings groups that are not empty. */
  configured: SettingsField[];
  partner: Pick<PartnerSettings, 'enabled' | 'access_token_configured' | 'last_status' | 'last_checked_at'>;
}

export interface SiteSummaryPage {
  sites: SiteSummary[];
  next_cursor: string | null;
  /** How many sites match the search, over every page. */
  total: number;
}

export interface SiteListQuery {
  q: string;
  sort: SiteSort;
  cursor: string | null;
  limit: number;
}

export function siteListQueryKey(query: SiteListQuery) {
  return ['sites', 'list', query] as const;
}

export async function fetchSiteSummaries(query: SiteListQuery, signal?: AbortSignal): Promise<SiteSummaryPage> {
  const parameters = new URLSearchParams({ fields: 'summary', sort: query.sort, limit: String(query.limit) });
  if (query.q !== '') parameters.set('q', query.q);
  if (query.cursor !== null) parameters.set('cursor', query.cursor);
  const { data } = await api.get<SiteSummaryPage>(`/api/v1/sites?${parameters.toString()}`, { signal });
  return data;
}

/**
 * What a screen that leaves for the list may hand it to show (navigate's `state`), e.g. the
 * editor after deleting a site: `navigate('/sites', { force: true, state: listNotice('Deleted X.') })`.
 */
export interface ListNoticeState {
  notice: string;
}

export function listNotice(notice: string): ListNoticeState {
  return { notice };
}

export function noticeFrom(state: unknown): string | undefined {
  if (typeof state !== 'object' || state === null || !('notice' in state)) return undefined;
  const { notice } = state;
  return typeof notice === 'string' ? notice : undefined;
}
