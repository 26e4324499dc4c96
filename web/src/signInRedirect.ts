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
