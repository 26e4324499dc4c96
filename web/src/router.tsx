// Navigation is React Router's data router (App.tsx builds it). The screens use the few names
// below, so that leaving with unsaved changes is asked about in one place: links, the back button,
// sign-out and reload alike.
import { type AnchorHTMLAttributes, useCallback, useEffect } from 'react';
import { type createBrowserRouter, type Location, Link as RouterLink, useBlocker, useLocation as useRouterLocation } from 'react-router';

type DataRouter = ReturnType<typeof createBrowserRouter>;

let router: DataRouter | undefined;
/** True for the duration of a forced navigation, which no leave guard holds. */
let forcing = false;
/** The message of the leave guard in force, if any (one editor at a time). */
let activeGuardMessage: string | undefined;

export const DEFAULT_LEAVE_MESSAGE = 'You have unsaved changes. Leave without saving?';

/** App.tsx hands over the router it built, so `navigate` works outside components too. */
export function connectRouter(built: DataRouter): void {
  router = built;
}

export interface NavigateOptions {
  replace?: boolean;
  /** Leave even with unsaved changes (after a sign-out or a delete the person already confirmed). */
  force?: boolean;
  /** Travels with the history entry, e.g. the list's earlier cursors for Previous. */
  state?: unknown;
}

export function navigate(to: string, options: NavigateOptions = {}): void {
  if (router === undefined) throw new Error('navigate before the router exists');
  const here = router.state.location;
  if (to === here.pathname + here.search && options.state === undefined) return;
  // The blocker is consulted synchronously when a navigation starts.
  forcing = options.force === true;
  try {
    void router.navigate(to, { replace: options.replace === true, state: options.state });
  } finally {
    forcing = false;
  }
}

/** The current path with its query string, e.g. "/sites/0193…" or "/sign-in?next=%2F". */
export function useLocation(): string {
  const location = useRouterLocation();
  return location.pathname + location.search;
}

/** The state the current history entry was pushed with (see `navigate`). */
export function useLocationState(): unknown {
  return useRouterLocation().state as unknown;
}

export { pathOf, queryOf } from './location';

/**
 * The screen a path belongs to: the editor's sections (/sites/:id/ai) are one screen with one
 * draft, so moving between them is not leaving; a change request's page is a screen of its own.
 */
export function screenOf(pathname: string): string {
  // A change request has a screen of its own under its site's address.
  if (/^\/sites\/[^/]+\/change-requests\/[^/]+/.test(pathname)) return pathname;
  return /^\/sites\/[^/]+/.exec(pathname)?.[0] ?? pathname;
}

function isLeaving(current: Location, next: Location): boolean {
  return screenOf(current.pathname) !== screenOf(next.pathname);
}

/** While `active`, leaving the screen (link, back button, sign-out, reload, closing the tab) asks first. */
export function useLeaveGuard(active: boolean, message = DEFAULT_LEAVE_MESSAGE): void {
  const shouldBlock = useCallback(({ currentLocation, nextLocation }: { currentLocation: Location; nextLocation: Location }) => active && !forcing && isLeaving(currentLocation, nextLocation), [active]);
  const blocker = useBlocker(shouldBlock);

  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm(message)) blocker.proceed();
    else blocker.reset();
  }, [blocker, message]);

  useEffect(() => {
    if (!active) return;
    activeGuardMessage = message;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the dialog only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      if (activeGuardMessage === message) activeGuardMessage = undefined;
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [active, message]);
}

/**
 * For leaving that is not a navigation yet (signing out): true when nothing unsaved is on screen
 * or the person chose to drop it.
 */
export function confirmLeaving(): boolean {
  return activeGuardMessage === undefined || window.confirm(activeGuardMessage);
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string; state?: unknown };

export function Link({ to, ...rest }: LinkProps) {
  return <RouterLink to={to} {...rest} />;
}
