/**
 * The dashboard's screens, as path patterns (`:name` stands for one path segment). The server
 * answers each with index.html and status 200; the dashboard's router draws the screen. No
 * imports: the dashboard builds its routes from this list (web/src/App.tsx).
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
