// A small history router: the dashboard has a handful of screens, and owning navigation lets an
// editor with unsaved changes hold it (useLeaveGuard) for links and the back button alike.
import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

type Listener = () => void;
const listeners = new Set<Listener>();
let guard: { message: string } | null = null;
let currentPath = window.location.pathname + window.location.search;

function notify(): void {
  currentPath = window.location.pathname + window.location.search;
  for (const listener of listeners) listener();
}

function allowedToLeave(): boolean {
  return guard === null || window.confirm(guard.message);
}

export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  if (to === currentPath) return;
  if (options.force !== true && !allowedToLeave()) return;
  if (options.force === true) guard = null;
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  notify();
}

window.addEventListener('popstate', () => {
  if (guard !== null && !window.confirm(guard.message)) {
    // Put the address back: the page did not change.
    window.history.pushState(null, '', currentPath);
    return;
  }
  notify();
});

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current path with its query string, e.g. "/sites/0193…" or "/sign-in?next=%2F". */
export function useLocation(): string {
  return useSyncExternalStore(subscribe, () => currentPath);
}

export function pathOf(location: string): string {
  return location.split('?')[0] ?? '/';
}

export function queryOf(location: string): URLSearchParams {
  return new URLSearchParams(location.split('?')[1] ?? '');
}

/** While `active`, leaving the screen (link, back button, reload, closing the tab) asks first. */
export function useLeaveGuard(active: boolean, message = 'You have unsaved changes. Leave without saving?'): void {
  useEffect(() => {
    if (!active) return;
    const mine = { message };
    guard = mine;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      if (guard === mine) guard = null;
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [active, message]);
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  function follow(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    // Let the browser handle new tabs and windows.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  }
  return <a href={to} onClick={follow} {...rest} />;
}
