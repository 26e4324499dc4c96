// Server state the screens read: one query (key + request) per resource, and one hook each, so
// every screen reading a resource reads it the same way and in the same shape. The keys come from
// queryKeys.ts; queryOptions tags each key with its data's type, so writing a different shape
// under a key (queryClient.setQueryData) does not compile.
import type { AuditLogPageJson } from '@server/audit/schema';
import type { PartnerCheckListJson } from '@server/partner/schema';
import type { SecurityEventPageJson } from '@server/security/schema';
import type { SiteSummaryListJson, TrashEntryJson } from '@server/sites/schema';
import type { TotpStatusJson } from '@server/totp/schema';
import type { DeliveryPageJson } from '@server/webhooks/schema';
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type AccessToken, api, ApiError, type Passkey, type PendingEmailChange, type Site, type User, type WebSession } from './api';
import type { SiteVersion } from './historyText';
import { type AuditLogFilter, queryKeys } from './queryKeys';
import { type SiteListQuery, fetchSiteSummaries } from './siteList';
import type { Webhook } from './webhookText';
import type { Invitation, Member, Workspace } from './workspaces';

/** A page of a list read by cursor: `next_cursor` null on the last one. */
const firstPage = null as string | null;
const nextCursor = (page: { next_cursor: string | null }) => page.next_cursor;

function pageQuery(limit: number, cursor: string | null, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ limit: String(limit), ...extra });
  if (cursor !== null) query.set('cursor', cursor);
  return query.toString();
}

// ---- The account ----

export interface Account {
  user: User;
  /** Until when the sign-in counts as recent (changes to sign-in methods need no password until then). */
  recent_authentication_until: string | null;
}

/** The signed-in account, or null: a 401 here is the answer (signed out), not a session to renew. */
export async function fetchAccount(): Promise<Account | null> {
  try {
    return (await api.get<Account>('/api/v1/me', { signInPrompt: false })).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export const accountQuery = () => queryOptions({ queryKey: queryKeys.account.me(), queryFn: fetchAccount });

/** The account as the server holds it now (until when the sign-in is recent): read again whenever a screen asks. */
export const useAccount = () => useQuery({ ...accountQuery(), staleTime: 0 });

export const sessionsQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.sessions(),
    queryFn: async ({ signal }) => (await api.get<{ sessions: WebSession[] }>('/api/v1/me/sessions', { signal })).data.sessions,
  });

export const passkeysQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.passkeys(),
    queryFn: async ({ signal }) => (await api.get<{ passkeys: Passkey[] }>('/api/v1/me/passkeys', { signal })).data.passkeys,
  });

export const totpQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.totp(),
    queryFn: async ({ signal }) => (await api.get<TotpStatusJson>('/api/v1/me/totp', { signal })).data,
  });

export const emailChangeQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.emailChange(),
    queryFn: async ({ signal }) => (await api.get<{ pending_email_change: PendingEmailChange | null }>('/api/v1/me/email', { signal })).data.pending_email_change,
  });

const SECURITY_EVENTS_PAGE = 10;

export const securityEventsQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.account.securityEvents(),
    queryFn: async ({ pageParam, signal }) => (await api.get<SecurityEventPageJson>(`/api/v1/me/security-events?${pageQuery(SECURITY_EVENTS_PAGE, pageParam)}`, { signal })).data,
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const useSessions = () => useQuery(sessionsQuery());
export const usePasskeys = () => useQuery(passkeysQuery());
export const useTotpStatus = () => useQuery(totpQuery());
export const usePendingEmailChange = () => useQuery(emailChangeQuery());
export const useSecurityEvents = () => useInfiniteQuery(securityEventsQuery());

// ---- Access tokens ----

export const accessTokensQuery = () =>
  queryOptions({
    queryKey: queryKeys.accessTokens.list(),
    queryFn: async ({ signal }) => (await api.get<{ access_tokens: AccessToken[] }>('/api/v1/access-tokens', { signal })).data.access_tokens,
  });

export const useAccessTokens = () => useQuery(accessTokensQuery());

// ---- Workspaces ----

/** The caller's workspaces with their role in each: the switcher, the dialogs, the editor's read-only mode and the settings all read this one. */
export const workspacesQuery = () =>
  queryOptions({
    queryKey: queryKeys.workspaces.list(),
    queryFn: async ({ signal }) => (await api.get<{ workspaces: Workspace[] }>('/api/v1/workspaces', { signal })).data.workspaces,
  });

export function workspaceUrl(workspaceId: string): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}`;
}

export const membersQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.workspaces.members(workspaceId),
    queryFn: async ({ signal }) => (await api.get<{ members: Member[] }>(`${workspaceUrl(workspaceId)}/members`, { signal })).data.members,
  });

export const invitationsQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.workspaces.invitations(workspaceId),
    queryFn: async ({ signal }) => (await api.get<{ invitations: Invitation[] }>(`${workspaceUrl(workspaceId)}/invitations`, { signal })).data.invitations,
  });

export const webhooksQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.workspaces.webhooks(workspaceId),
    queryFn: async ({ signal }) => (await api.get<{ webhooks: Webhook[] }>(`${workspaceUrl(workspaceId)}/webhooks`, { signal })).data.webhooks,
  });

const DELIVERIES_PAGE = 20;

export const deliveriesQuery = (workspaceId: string, webhookId: string) =>
  infiniteQueryOptions({
    queryKey: queryKeys.workspaces.deliveries(workspaceId, webhookId),
    queryFn: async ({ pageParam, signal }) =>
      (await api.get<DeliveryPageJson>(`${workspaceUrl(workspaceId)}/webhooks/${encodeURIComponent(webhookId)}/deliveries?${pageQuery(DELIVERIES_PAGE, pageParam)}`, { signal })).data,
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

const AUDIT_LOG_PAGE = 50;

/** The audit log's filter as query parameters. */
export function auditLogFilterQuery(filter: AuditLogFilter): Record<string, string> {
  const query: Record<string, string> = {};
  if (filter.action !== '') query.action = filter.action;
  if (filter.actorId !== '') query.actor_id = filter.actorId;
  return query;
}

export const auditLogQuery = (workspaceId: string, filter: AuditLogFilter) =>
  infiniteQueryOptions({
    queryKey: queryKeys.workspaces.auditLog(workspaceId, filter),
    queryFn: async ({ pageParam, signal }) =>
      (await api.get<AuditLogPageJson>(`${workspaceUrl(workspaceId)}/audit-log?${pageQuery(AUDIT_LOG_PAGE, pageParam, auditLogFilterQuery(filter))}`, { signal })).data,
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const useWorkspaces = () => useQuery(workspacesQuery());
export const useMembers = (workspaceId: string) => useQuery(membersQuery(workspaceId));
export const useInvitations = (workspaceId: string) => useQuery(invitationsQuery(workspaceId));
export const useWebhooks = (workspaceId: string) => useQuery(webhooksQuery(workspaceId));

// ---- Sites ----

export const siteListQuery = (query: SiteListQuery, options: { signInPrompt?: boolean } = {}) =>
  queryOptions<SiteSummaryListJson>({ queryKey: queryKeys.sites.list(query), queryFn: ({ signal }) => fetchSiteSummaries(query, signal, options) });

/** A site as the editor loaded it, with the version it was loaded at. */
export interface LoadedSite {
  site: Site;
  /** Sent as If-Match so no one's save is overwritten unseen. */
  etag: string | null;
}

export function siteUrl(siteId: string): string {
  return `/api/v1/sites/${encodeURIComponent(siteId)}`;
}

export async function fetchSite(siteId: string, signal?: AbortSignal): Promise<LoadedSite> {
  const response = await api.get<{ site: Site }>(siteUrl(siteId), { signal });
  return { site: response.data.site, etag: response.headers.get('etag') };
}

// The editor holds a draft over what it loaded: the site is read again only when the editor asks.
export const siteQuery = (siteId: string) => queryOptions({ queryKey: queryKeys.sites.detail(siteId), queryFn: ({ signal }) => fetchSite(siteId, signal), staleTime: Number.POSITIVE_INFINITY });

const VERSIONS_PAGE = 20;

export const siteVersionsQuery = (siteId: string) =>
  infiniteQueryOptions({
    queryKey: queryKeys.sites.versions(siteId),
    queryFn: async ({ pageParam, signal }) =>
      (await api.get<{ versions: SiteVersion[]; next_cursor: string | null }>(`${siteUrl(siteId)}/versions?${pageQuery(VERSIONS_PAGE, pageParam)}`, { signal })).data,
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const partnerChecksQuery = (siteId: string) =>
  queryOptions({
    queryKey: queryKeys.sites.partnerChecks(siteId),
    queryFn: async ({ signal }) => (await api.get<PartnerCheckListJson>(`${siteUrl(siteId)}/partner/checks`, { signal })).data.checks,
  });

const TRASH_PAGE = 50;

export const trashQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.trash.list(),
    queryFn: async ({ pageParam, signal }) => (await api.get<{ sites: TrashEntryJson[]; next_cursor: string | null }>(`/api/v1/trash?${pageQuery(TRASH_PAGE, pageParam)}`, { signal })).data,
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const useSite = (siteId: string) => useQuery(siteQuery(siteId));
export const useSiteVersions = (siteId: string) => useInfiniteQuery(siteVersionsQuery(siteId));
export const usePartnerChecks = (siteId: string) => useQuery(partnerChecksQuery(siteId));
export const useTrash = () => useInfiniteQuery(trashQuery());
