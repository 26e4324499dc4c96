// What reached the sites' public path: one site's buckets, and every site's at a glance. One function per call.
import { client, dataOf } from './client';

export type UsageGranularity = 'hour' | 'day';

/** A site's usage: the last 24 hours by hour, or the last 30 days by day (the server's default spans), with its origins and visitors now. */
export const fetchSiteUsage = (siteId: string, granularity: UsageGranularity, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/sites/{id}/usage', { params: { path: { id: siteId }, query: { granularity } }, signal }));

/** A site's loads of the last 7 days, by day: the sites list's sparkline. */
export function fetchSiteWeek(siteId: string, now: number, signal?: AbortSignal) {
  const from = new Date(now - 6 * 24 * 60 * 60 * 1000).toISOString();
  return dataOf(client.GET('/api/v1/sites/{id}/usage', { params: { path: { id: siteId }, query: { granularity: 'day', from } }, signal }));
}

/** Every site of a workspace (or of all of yours, for null): loads of the last day and week, last load, visitors now. */
export const fetchWorkspaceUsage = (workspaceId: string | null, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/usage', { params: { query: workspaceId === null ? {} : { workspace_id: workspaceId } }, signal }));
