// Server state the screens read: one query (key + request) per resource, and one hook each, so
// every screen reading a resource reads it the same way and in the same shape. The keys come from
// queryKeys.ts; queryOptions tags each key with its data's type, so writing a different shape
// under a key (queryClient.setQueryData) does not compile.
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { fetchAccessTokens } from './api/accessTokens';
import { fetchChangeRequest, fetchReviewQueue, fetchSiteChangeRequests } from './api/changeRequests';
import { fetchAdminUsers } from './api/admin';
import { ApiError } from './api/errors';
import { AUTH_ERRORS } from '@server/auth/errors';
import { fetchAccount, fetchIdentities, fetchPasskeys, fetchPendingEmailChange, fetchSecurityEvents, fetchSessions, fetchTotpStatus } from './api/account';
import { fetchAuthConfig } from './api/signIn';
import { fetchPartnerChecks, fetchSite, fetchSiteInstall, fetchSiteSummaries, fetchSiteVersions, fetchTrash } from './api/sites';
import { fetchSiteUsage, fetchWorkspaceUsage, type UsageGranularity } from './api/usage';
import { fetchDeliveries, fetchWebhooks } from './api/webhooks';
import { type AuditLogFilterQuery, fetchAuditLog, fetchInvitations, fetchMembers, fetchWorkspaces } from './api/workspaces';
import { type AuditLogFilter, queryKeys } from './queryKeys';
import type { SiteListQuery } from './siteList';

/** A page of a list read by cursor: `next_cursor` null on the last one. */
const firstPage = null as string | null;
const nextCursor = (page: { next_cursor: string | null }) => page.next_cursor;

// ---- The account ----

export type { Account } from './api/account';

function sessionEndedError(): ApiError {
  return new ApiError(401, AUTH_ERRORS.SESSION_EXPIRED, 'Your session has ended. Sign in again to carry on.');
}
export { fetchAccount };

export const accountQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.me(),
    queryFn: async ({ signal, client, queryKey }) => {
      const account = await fetchAccount(signal);
      // Signed in until now (a refresh on returning to the tab): an ended session is not answered
      // by swapping the screen, unsaved work and all, for the sign-in page. The data stays, and the
      // next request's sign-in dialog signs the person in again over their work.
      if (account === null && client.getQueryState(queryKey)?.data != null) throw sessionEndedError();
      return account;
    },
    // Confirming the address, a new name or 2FA in another tab shows here on returning to this one.
    refetchOnWindowFocus: 'always',
  });

/** The account as the server holds it now (until when the sign-in is recent): read again whenever a screen asks. */
export const useAccount = () => useQuery({ ...accountQuery(), staleTime: 0 });

export const sessionsQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.sessions(),
    queryFn: ({ signal }) => fetchSessions(signal),
  });

export const passkeysQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.passkeys(),
    queryFn: ({ signal }) => fetchPasskeys(signal),
  });

export const totpQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.totp(),
    queryFn: ({ signal }) => fetchTotpStatus(signal),
  });

export const emailChangeQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.emailChange(),
    queryFn: ({ signal }) => fetchPendingEmailChange(signal),
    // The change completes from the new address's inbox, usually in another tab.
    refetchOnWindowFocus: 'always',
  });

const SECURITY_EVENTS_PAGE = 10;

export const securityEventsQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.account.securityEvents(),
    queryFn: ({ pageParam, signal }) => fetchSecurityEvents(pageParam, SECURITY_EVENTS_PAGE, signal),
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const useSessions = () => useQuery(sessionsQuery());
export const usePasskeys = () => useQuery(passkeysQuery());
export const useTotpStatus = () => useQuery(totpQuery());
export const usePendingEmailChange = () => useQuery(emailChangeQuery());
export const useSecurityEvents = () => useInfiniteQuery(securityEventsQuery());

export const identitiesQuery = () =>
  queryOptions({
    queryKey: queryKeys.account.identities(),
    queryFn: ({ signal }) => fetchIdentities(signal),
  });

export const useIdentities = () => useQuery(identitiesQuery());

// ---- What the server offers for signing in ----

/** Asked once per page load: it changes only when the server is reconfigured. */
export const authConfigQuery = () =>
  queryOptions({
    queryKey: queryKeys.authConfig.all(),
    queryFn: () => fetchAuthConfig(),
    staleTime: Number.POSITIVE_INFINITY,
  });

export const useAuthConfigQuery = () => useQuery(authConfigQuery());

// ---- Access tokens ----

export const accessTokensQuery = () =>
  queryOptions({
    queryKey: queryKeys.accessTokens.list(),
    queryFn: ({ signal }) => fetchAccessTokens(signal),
  });

export const useAccessTokens = () => useQuery(accessTokensQuery());

// ---- Workspaces ----

/** The caller's workspaces with their role in each: the switcher, the dialogs, the editor's read-only mode and the settings all read this one. */
export const workspacesQuery = () =>
  queryOptions({
    queryKey: queryKeys.workspaces.list(),
    queryFn: ({ signal }) => fetchWorkspaces(signal),
  });

export const membersQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.workspaces.members(workspaceId),
    queryFn: ({ signal }) => fetchMembers(workspaceId, signal),
  });

export const invitationsQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.workspaces.invitations(workspaceId),
    queryFn: ({ signal }) => fetchInvitations(workspaceId, signal),
  });

export const webhooksQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.workspaces.webhooks(workspaceId),
    queryFn: ({ signal }) => fetchWebhooks(workspaceId, signal),
  });

const DELIVERIES_PAGE = 20;

export const deliveriesQuery = (workspaceId: string, webhookId: string) =>
  infiniteQueryOptions({
    queryKey: queryKeys.workspaces.deliveries(workspaceId, webhookId),
    queryFn: ({ pageParam, signal }) => fetchDeliveries(workspaceId, webhookId, pageParam, DELIVERIES_PAGE, signal),
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

const AUDIT_LOG_PAGE = 50;

/** The audit log's filter as the API's query parameters. */
export function auditLogFilterQuery(filter: AuditLogFilter): AuditLogFilterQuery {
  return { ...(filter.action === '' ? {} : { action: filter.action }), ...(filter.actorId === '' ? {} : { actor_id: filter.actorId }) };
}

export const auditLogQuery = (workspaceId: string, filter: AuditLogFilter) =>
  infiniteQueryOptions({
    queryKey: queryKeys.workspaces.auditLog(workspaceId, filter),
    queryFn: ({ pageParam, signal }) => fetchAuditLog(workspaceId, auditLogFilterQuery(filter), pageParam, AUDIT_LOG_PAGE, signal),
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const useWorkspaces = () => useQuery(workspacesQuery());
export const useMembers = (workspaceId: string) => useQuery(membersQuery(workspaceId));
export const useInvitations = (workspaceId: string) => useQuery(invitationsQuery(workspaceId));
export const useWebhooks = (workspaceId: string) => useQuery(webhooksQuery(workspaceId));

// ---- Sites ----

/** A page read moments ago (the cold load's early start, the page just left) is shown without asking again; a change made here refreshes every list at once. */
const SITE_LIST_FRESH_MS = 5_000;

export const siteListQuery = (query: SiteListQuery) =>
  queryOptions({ queryKey: queryKeys.sites.list(query), queryFn: ({ signal }) => fetchSiteSummaries(query, signal), staleTime: SITE_LIST_FRESH_MS });

export type { LoadedSite } from './api/sites';

// The editor holds a draft over what it loaded: the site is read again only when the editor asks.
export const siteQuery = (siteId: string) => queryOptions({ queryKey: queryKeys.sites.detail(siteId), queryFn: ({ signal }) => fetchSite(siteId, signal), staleTime: Number.POSITIVE_INFINITY });

const VERSIONS_PAGE = 20;

export const siteVersionsQuery = (siteId: string) =>
  infiniteQueryOptions({
    queryKey: queryKeys.sites.versions(siteId),
    queryFn: ({ pageParam, signal }) => fetchSiteVersions(siteId, pageParam, VERSIONS_PAGE, signal),
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const partnerChecksQuery = (siteId: string) =>
  queryOptions({
    queryKey: queryKeys.sites.partnerChecks(siteId),
    queryFn: ({ signal }) => fetchPartnerChecks(siteId, signal),
  });

export const siteInstallQuery = (siteId: string) =>
  queryOptions({
    queryKey: queryKeys.sites.install(siteId),
    queryFn: ({ signal }) => fetchSiteInstall(siteId, signal),
  });

/** Usage is written every 30 s by each server and visitors now every 5 s: refetched while shown, a screen stays current. */
const USAGE_REFRESH_MS = 15_000;

export const siteUsageQuery = (siteId: string, granularity: UsageGranularity) =>
  queryOptions({
    queryKey: queryKeys.usage.site(siteId, granularity),
    queryFn: ({ signal }) => fetchSiteUsage(siteId, granularity, signal),
    refetchInterval: USAGE_REFRESH_MS,
  });

export const workspaceUsageQuery = (workspaceId: string | null) =>
  queryOptions({
    queryKey: queryKeys.usage.workspace(workspaceId),
    queryFn: ({ signal }) => fetchWorkspaceUsage(workspaceId, signal),
    refetchInterval: 2 * USAGE_REFRESH_MS,
  });

const TRASH_PAGE = 50;

export const trashQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.trash.list(),
    queryFn: ({ pageParam, signal }) => fetchTrash(pageParam, TRASH_PAGE, signal),
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });

export const useSite = (siteId: string) => useQuery(siteQuery(siteId));
export const useSiteVersions = (siteId: string) => useInfiniteQuery(siteVersionsQuery(siteId));
export const usePartnerChecks = (siteId: string) => useQuery(partnerChecksQuery(siteId));
export const useSiteInstall = (siteId: string) => useQuery(siteInstallQuery(siteId));
export const useTrash = () => useInfiniteQuery(trashQuery());

// ---- Change requests ----

export const reviewQueueQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: queryKeys.changeRequests.queue(workspaceId),
    queryFn: ({ signal }) => fetchReviewQueue(workspaceId, signal),
  });

/** Every request of a site, newest first; the screens split waiting from ended ones. */
export const siteChangeRequestsQuery = (siteId: string) =>
  queryOptions({
    queryKey: queryKeys.changeRequests.site(siteId),
    queryFn: ({ signal }) => fetchSiteChangeRequests(siteId, undefined, signal),
  });

export const changeRequestQuery = (siteId: string, changeRequestId: string) =>
  queryOptions({
    queryKey: queryKeys.changeRequests.detail(siteId, changeRequestId),
    queryFn: ({ signal }) => fetchChangeRequest(siteId, changeRequestId, signal),
  });

export const useReviewQueue = (workspaceId: string) => useQuery(reviewQueueQuery(workspaceId));
export const useSiteChangeRequests = (siteId: string) => useQuery(siteChangeRequestsQuery(siteId));
export const useChangeRequest = (siteId: string, changeRequestId: string) => useQuery(changeRequestQuery(siteId, changeRequestId));
// ---- The Admin area (instance administrators) ----

export const adminUsersQuery = (query: string) =>
  infiniteQueryOptions({
    queryKey: queryKeys.admin.users(query),
    queryFn: ({ pageParam, signal }) => fetchAdminUsers(query, pageParam, signal),
    initialPageParam: firstPage,
    getNextPageParam: nextCursor,
  });
