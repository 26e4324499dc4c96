import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors.js';
import { AUTH_ERRORS } from './errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/**
 * Cross-site request forgery defence for cookie-authenticated requests and sign-in forms (login
 * CSRF): the browser's Origin header must name our own origin; where a browser sends no Origin,
 * Sec-Fetch-Site must say same-origin. A request with neither is refused: browsers send one of
 * them on every cross-site POST, so only non-browser clients lack both, and those use tokens.
 */
export function assertSameOrigin(headers: IncomingHttpHeaders, publicOrigin: string): void {
  const origin = headers.origin;
  // A page served with Referrer-Policy: no-referrer (the /magic and /auth/2fa pages) makes the
  // browser send "Origin: null" even on a same-origin form POST; Sec-Fetch-Site, which no page
  // can forge, then decides. Opaque origins (sandboxed frames, data: URLs) say cross-site there.
  const named = origin !== undefined && origin !== 'null';
  if (named ? origin === publicOrigin : headers['sec-fetch-site'] === 'same-origin') return;
  throw new AppError(403, AUTH_ERRORS.CROSS_SITE_REQUEST, `This request must come from Siteward's own pages (its Origin must be ${publicOrigin}).`);
}
