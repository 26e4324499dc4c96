// Single sign-on in the dashboard: what the server offers (GET /auth/config), and the address that
// starts a sign-in at a provider. The sign-in itself is a full page load: the browser goes to the
// provider and comes back to the server's callback, which sends it on to `next`.
import type { AuthConfig } from './api/types';
import { useAuthConfigQuery } from './queries';
import { nextPathHere } from './signInRedirect';

/**
 * The server's sign-in offer: whether sign-up is open and which providers to show. undefined until
 * known; a failed request stays unknown, so the screens neither promise nor hide anything wrongly.
 * Asked once per page load: it changes only when the server is reconfigured.
 */
export function useAuthConfig(): AuthConfig | undefined {
  return useAuthConfigQuery().data;
}

/** GET /auth/oidc/{id}/start, coming back to `next` when it is a place in the dashboard. */
export function singleSignOnStartPath(providerId: string, next: string | null): string {
  const path = next === null ? '/' : nextPathHere(next);
  return `/auth/oidc/${encodeURIComponent(providerId)}/start${path === '/' ? '' : `?next=${encodeURIComponent(path)}`}`;
}
