/** Where a finished sign-in goes when `next` is missing or not a path of this site. */
export const DEFAULT_NEXT = '/';
const NEXT_MAX_LENGTH = 2048;

/**
 * Where to go after signing in at a provider: `next` when it is a path of this site, else "/". It
 * is the one value of the round trip a stranger's link chooses, so anything that could leave the
 * site is refused (an open redirect would lend a phishing page our address): "//host" and "/\host"
 * are protocol-relative to browsers, absolute URLs name another origin, and control characters
 * are stripped by URL parsers in ways that differ. The sign-in pages themselves would only bounce.
 */
export function safeNextPath(next: string | undefined, publicOrigin: string): string {
  if (next === undefined || next.length > NEXT_MAX_LENGTH || !next.startsWith('/') || next.startsWith('//')) return DEFAULT_NEXT;
  // Backslashes are slashes to browsers; control characters and spaces never belong in a path we made.
  if (/[\\\u0000-\u0020\u007f]/.test(next)) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(next, publicOrigin);
  } catch {
    return DEFAULT_NEXT;
  }
  if (url.origin !== publicOrigin) return DEFAULT_NEXT;
  if (url.pathname === '/sign-in' || url.pathname === '/sign-up' || url.pathname.startsWith('/auth/')) return DEFAULT_NEXT;
  return url.pathname + url.search + url.hash;
}
