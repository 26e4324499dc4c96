// Where a finished sign-in goes. One function for the server (the single sign-on round trip) and
// the dashboard (its sign-in screens, through the `@server/` alias): it imports nothing, so it runs
// in both.

/** Where a finished sign-in goes when `next` is missing or not a path of this site. */
export const DEFAULT_NEXT = '/';
const NEXT_MAX_LENGTH = 2048;
/** Layers of percent-encoding undone before a path is judged; a path with more is none we made. */
const MAX_DECODINGS = 3;
/** Control characters, and in the raw value spaces too: URL parsers drop tabs and newlines ("/\t/evil" reads "//evil"). */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;

/**
 * `next` when it is a path of this site, else "/". It is the one value of a sign-in that a
 * stranger's link chooses, so anything that could leave the site is refused (an open redirect
 * would lend a phishing page our address). The path is judged as a browser will read it, after
 * every step that can turn it into another site's address: backslashes are slashes to browsers,
 * dot segments are resolved ("/..//evil" is "//evil", protocol-relative once sent as Location),
 * and percent-encoded forms ("/%2f%2fevil", "/%2e%2e//evil") are judged decoded too, since a proxy
 * or a router in front may decode them. Only what stays a same-origin path that does not start
 * with "//" is kept, as the resolved path. The sign-in pages themselves would only bounce.
 */
export function safeNextPath(next: string | null | undefined, origin: string): string {
  if (typeof next !== 'string' || next.length > NEXT_MAX_LENGTH || !next.startsWith('/') || CONTROL_OR_SPACE.test(next)) return DEFAULT_NEXT;
  let base: URL;
  try {
    base = new URL(origin);
  } catch {
    return DEFAULT_NEXT;
  }
  const resolved = sameOriginPath(next, base);
  if (resolved === undefined) return DEFAULT_NEXT;
  const decoded = fullyDecoded(next.split(/[?#]/, 1)[0] ?? '');
  if (decoded === undefined || CONTROL.test(decoded)) return DEFAULT_NEXT;
  const resolvedDecoded = sameOriginPath(decoded, base);
  if (resolvedDecoded === undefined || bounces(resolved.pathname) || bounces(resolvedDecoded.pathname)) return DEFAULT_NEXT;
  return resolved.pathname + resolved.search + resolved.hash;
}

/** The path resolved against this origin, when it stays there as a path that does not start with "//". */
function sameOriginPath(path: string, base: URL): URL | undefined {
  // Browsers read a backslash as a slash: "/\evil" and "\\evil" are "//evil".
  const slashed = path.replaceAll('\\', '/');
  if (!slashed.startsWith('/') || slashed.startsWith('//')) return undefined;
  let url: URL;
  try {
    url = new URL(slashed, base);
  } catch {
    return undefined;
  }
  // Dot segments are resolved by now: "/.//x" and "/a/../..//x" end as "//x".
  if (url.origin !== base.origin || url.pathname.startsWith('//')) return undefined;
  return url;
}

/** The text with percent-encoding undone until it stops changing; undefined when malformed or layered too deep. */
function fullyDecoded(text: string): string | undefined {
  let current = text;
  for (let layer = 0; layer <= MAX_DECODINGS; layer++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (decoded === current) return current;
    current = decoded;
  }
  return undefined;
}

/** Sign-in and sign-up screens, and the sign-in routes: going back to them would only bounce. */
function bounces(pathname: string): boolean {
  return pathname === '/sign-in' || pathname === '/sign-up' || pathname.startsWith('/auth/');
}
