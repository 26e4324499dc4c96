import { navigate } from './router';

/**
 * Where to go after signing in: the `next` query parameter when it names a screen of this
 * dashboard, else "/". Anything that could leave the site is ignored (open redirect): "//host" and
 * "/\host" are protocol-relative to browsers, and absolute URLs name another origin.
 */
export function safeNextPath(next: string | null): string {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  let url: URL;
  try {
    url = new URL(next, window.location.origin);
  } catch {
    return '/';
  }
  if (url.origin !== window.location.origin) return '/';
  // Back to a sign-in screen would only bounce; the dashboard is the sensible landing.
  if (url.pathname === '/sign-in' || url.pathname === '/sign-up') return '/';
  return url.pathname + url.search + url.hash;
}

/**
 * Addresses the server renders itself rather than the dashboard (an invitation's page, which a
 * signed-out person leaves to sign in or up and comes back to): reached by a full page load, since
 * the dashboard's router has no screen for them.
 */
const SERVER_PAGES: readonly string[] = ['/invitations/accept'];

export function isServerPage(path: string): boolean {
  return SERVER_PAGES.includes(path.split(/[?#]/)[0] ?? '');
}

/** The `next` parameter to hand on to the other sign-in screen (sign-in ↔ sign-up), or "". */
export function nextQuery(next: string | null): string {
  return next === null || next === '' ? '' : `?next=${encodeURIComponent(next)}`;
}

/** Goes where a finished sign-in (or sign-up) leads: `next` when it is ours, else the dashboard. */
export function goAfterSignIn(next: string | null): void {
  const path = safeNextPath(next);
  if (isServerPage(path)) window.location.assign(path);
  else navigate(path, { replace: true, force: true });
}
