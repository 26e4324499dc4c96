// Single sign-on in the dashboard: what the server offers (GET /auth/config), and the address that
// starts a sign-in at a provider. The sign-in itself is a full page load: the browser goes to the
// provider and comes back to the server's callback, which sends it on to `next`.
import { useQuery } from '@tanstack/react-query';
import { api, type AuthConfig } from './api';
import { QUERY_KEYS } from './queries';
import { safeNextPath } from './signInRedirect';

/**
 * The server's sign-in offer: whether sign-up is open and which providers to show. undefined until
 * known; a failed request stays unknown, so the screens neither promise nor hide anything wrongly.
 * Asked once per page load: it changes only when the server is reconfigured.
 */
export function useAuthConfig(): AuthConfig | undefined {
  const query = useQuery({
    queryKey: QUERY_KEYS.authConfig,
    queryFn: async ({ signal }) => (await api.get<AuthConfig>('/auth/config', { signal, signInPrompt: false })).data,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return query.data;
}

/** GET /auth/oidc/{id}/start, coming back to `next` when it is a place in the dashboard. */
export function singleSignOnStartPath(providerId: string, next: string | null): string {
  const path = next === null ? '/' : safeNextPath(next);
  return `/auth/oidc/${encodeURIComponent(providerId)}/start${path === '/' ? '' : `?next=${encodeURIComponent(path)}`}`;
}
