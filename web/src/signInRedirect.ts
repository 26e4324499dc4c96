import { safeNextPath } from '@server/lib/next-path';
import { navigate } from './router';

/**
 * Where to go after signing in: `next` when it names a path of this site, else "/"; judged by the
 * server's own rule (open redirects: src/lib/next-path.ts), against this page's origin.
 */
export function nextPathHere(next: string | null): string {
  return safeNextPath(next, window.location.origin);
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

// A sign-in link opens a new page, which the server sends to "/" once the link is redeemed. So that
// it still leads where the sign-in was headed (an invitation, say), that place is kept in this
// browser for as long as the link works (15 minutes) and taken by the first signed-in screen. A link
// opened on another device lands on the dashboard, as a sign-in without `next` does.
const LINK_NEXT_KEY = 'siteward.next-after-sign-in-link';
const SIGN_IN_LINK_LIFETIME_MS = 15 * 60 * 1000;

/** When a sign-in link is asked for: remember `next` (if any) for the page the link will open. */
export function rememberNextForSignInLink(next: string | null, now = Date.now()): void {
  try {
    if (next === null || nextPathHere(next) === '/') window.localStorage.removeItem(LINK_NEXT_KEY);
    else window.localStorage.setItem(LINK_NEXT_KEY, JSON.stringify({ next, until: now + SIGN_IN_LINK_LIFETIME_MS }));
  } catch {
    // Storage refused (private mode, quota): the link then leads to the dashboard.
  }
}

/** The remembered `next`, once: null when none, when it is too old, or when it is not ours. */
export function takeNextAfterSignInLink(now = Date.now()): string | null {
  try {
    const stored = window.localStorage.getItem(LINK_NEXT_KEY);
    if (stored === null) return null;
    window.localStorage.removeItem(LINK_NEXT_KEY);
    const parsed: unknown = JSON.parse(stored);
    if (typeof parsed !== 'object' || parsed === null || !('next' in parsed) || !('until' in parsed)) return null;
    const { next, until } = parsed;
    if (typeof next !== 'string' || typeof until !== 'number' || until < now) return null;
    const path = nextPathHere(next);
    return path === '/' ? null : path;
  } catch {
    return null;
  }
}

/** Goes where a finished sign-in (or sign-up) leads: `next` when it is ours, else the dashboard. */
export function goAfterSignIn(next: string | null): void {
  // Signed in some other way than the link: it no longer decides where to go.
  rememberNextForSignInLink(null);
  const path = nextPathHere(next);
  if (isServerPage(path)) window.location.assign(path);
  else navigate(path, { replace: true, force: true });
}
