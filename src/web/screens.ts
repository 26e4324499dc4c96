/**
 * The dashboard's screens, as path patterns (`:name` stands for one path segment). The server
 * answers each with index.html and status 200; the dashboard's router draws the screen. No
 * imports: the dashboard builds its routes from this list (web/src/routes/screens.tsx).
 */
export const SCREENS = [
  '/',
  '/sign-in',
  '/sign-up',
  '/sites',
  '/sites/:id',
  '/sites/:id/:section',
  '/sites/:id/change-requests/:cr_id',
  '/trash',
  '/settings',
  '/settings/profile',
  '/settings/access-tokens',
  '/settings/security',
  '/settings/workspaces',
  '/settings/workspaces/:id',
  '/settings/workspaces/:id/audit-log',
  '/settings/workspaces/:id/webhooks',
  '/admin',
] as const;

export type Screen = (typeof SCREENS)[number];

/** The screens for people signed out: opened by someone not signed in, they answer the signed-out document (src/web/static.ts), which asks the API nothing at first. */
export const SIGNED_OUT_SCREENS = ['/sign-in', '/sign-up'] as const satisfies readonly Screen[];

/** The sites list's screens: opened without a query, they show the list's first page. */
export const SITE_LIST_SCREENS = ['/', '/sites'] as const satisfies readonly Screen[];

/** How the sites list opens: the sites changed most recently first (the ones people come back to), 25 to a page. */
export const SITE_LIST_OPENING = { sort: '-updated_at', limit: 25 } as const;

/**
 * The list's first page exactly as the dashboard asks for it (web/src/api/sites.ts, the parameters
 * in openapi-fetch's order): index.html on the list's screens preloads this address, and the
 * browser hands the preloaded answer to the dashboard's request only when the two match.
 */
export const SITE_LIST_FIRST_PAGE = `/api/v1/sites?fields=summary&sort=${SITE_LIST_OPENING.sort}&limit=${String(SITE_LIST_OPENING.limit)}`;
