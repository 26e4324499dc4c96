// What reached the sites' public path: one site's buckets, and every site's at a glance. One function per call.
import { client, dataOf } from './client';

export type UsageGranularity = 'hour' | 'day';

/** A site's usage: the last 24 hours by hour, or the last 30 days by day (the server's default spans), with its origins and visitors now. */
export const fetchSiteUsage = (siteId: string, granularity: UsageGranularity, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/sites/{id}/usage', { params: { path: { id: siteId }, query: { granularity } }, signal }));

/** Every site of a workspace (or of all of yours, for null): loads of the last day and week, by day for the sparkline, last load, visitors now. */
export const fetchWorkspaceUsage = (workspaceId: string | null, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/usage', { params: { query: workspaceId === null ? {} : { workspace_id: workspaceId } }, signal }));
