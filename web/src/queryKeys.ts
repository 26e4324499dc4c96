// Every key the dashboard caches server state under, one factory per resource. A key names one
// request and so one shape of answer: two screens that read the same resource ask for its key here
// (through its hook in queries.ts), so they can never cache different shapes under one key. Keys
// of a resource share its root, so a change can refresh all of it (invalidateQueries({queryKey:
// queryKeys.sites.lists()})) without touching another resource.
import type { AuditAction } from '@server/audit/contract';
import type { SiteListQuery } from './siteList';

/** The audit log's filter, as its screen holds it ('' for any). */
export interface AuditLogFilter {
  action: AuditAction | '';
  actorId: string;
}

export const queryKeys = {
  /** The signed-in account (GET /api/v1/me), or null when signed out. */
  account: {
    all: () => ['account'] as const,
    me: () => ['account', 'me'] as const,
    sessions: () => ['account', 'sessions'] as const,
    passkeys: () => ['account', 'passkeys'] as const,
    totp: () => ['account', 'totp'] as const,
    securityEvents: () => ['account', 'security-events'] as const,
    emailChange: () => ['account', 'email-change'] as const,
    identities: () => ['account', 'identities'] as const,
  },
  /** What the server offers for signing in (GET /auth/config): sign-up open or closed, single sign-on providers. */
  authConfig: {
    all: () => ['auth-config'] as const,
  },
  accessTokens: {
    all: () => ['access-tokens'] as const,
    list: () => ['access-tokens', 'list'] as const,
  },
  workspaces: {
    all: () => ['workspaces'] as const,
    list: () => ['workspaces', 'list'] as const,
    members: (workspaceId: string) => ['workspaces', 'members', workspaceId] as const,
    invitations: (workspaceId: string) => ['workspaces', 'invitations', workspaceId] as const,
    webhooks: (workspaceId: string) => ['workspaces', 'webhooks', workspaceId] as const,
    deliveries: (workspaceId: string, webhookId: string) => ['workspaces', 'deliveries', workspaceId, webhookId] as const,
    auditLog: (workspaceId: string, filter: AuditLogFilter) => ['workspaces', 'audit-log', workspaceId, filter] as const,
  },
  sites: {
    all: () => ['sites'] as const,
    /** Every page of every list: what a created, changed or deleted site refreshes. */
    lists: () => ['sites', 'list'] as const,
    list: (query: SiteListQuery) => ['sites', 'list', query] as const,
    /** The command palette's search of site names. */
    search: (text: string) => ['sites', 'list', 'search', text] as const,
    detail: (siteId: string) => ['sites', 'detail', siteId] as const,
    versions: (siteId: string) => ['sites', 'versions', siteId] as const,
    partnerChecks: (siteId: string) => ['sites', 'partner-checks', siteId] as const,
    /** Apart from the detail: refreshing where a site was fetched from never reloads the form. */
    install: (siteId: string) => ['sites', 'install', siteId] as const,
  },
  /** What reached the sites' public path: a site's buckets, its week for the sparkline, a workspace's glance. */
  usage: {
    all: () => ['usage'] as const,
    site: (siteId: string, granularity: 'hour' | 'day') => ['usage', 'site', siteId, granularity] as const,
    workspace: (workspaceId: string | null) => ['usage', 'workspace', workspaceId] as const,
  },
  /** Change requests: a workspace's review queue, a site's requests, one request. */
  changeRequests: {
    all: () => ['change-requests'] as const,
    queue: (workspaceId: string) => ['change-requests', 'queue', workspaceId] as const,
    site: (siteId: string) => ['change-requests', 'site', siteId] as const,
    detail: (siteId: string, changeRequestId: string) => ['change-requests', 'detail', siteId, changeRequestId] as const,
  },
  trash: {
    all: () => ['trash'] as const,
    list: () => ['trash', 'list'] as const,
  },
  /** The Admin area (instance administrators): every account, searched. */
  admin: {
    all: () => ['admin'] as const,
    users: (query: string) => ['admin', 'users', query] as const,
  },
} as const;
