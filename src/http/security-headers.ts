import type { App } from './types.js';

/**
 * The security headers every response carries unless its route sets its own: exactly the values
 * @fastify/helmet 13 (helmet 8) sends with our options (security-headers.test.ts compares them
 * with the plugin's, so an upgrade that changes helmet's defaults fails the test). They are fixed
 * strings, so they are built once at start-up: the plugin rebuilt helmet's middleware, parsing
 * the CSP directives, on every request (docs/performance.md).
 *
 * What each one stops: the CSP keeps injected markup from loading scripts, plugins or forms from
 * elsewhere and from being framed by another origin (clickjacking, with X-Frame-Options for old
 * browsers); nosniff keeps a JSON or text answer from being run as script; the cross-origin
 * policies keep other sites from embedding our responses or sharing our browsing context;
 * no-referrer keeps URLs with tokens in them (/magic?token=) out of Referer headers.
 */
export function securityHeaders(options: { https: boolean }): Readonly<Record<string, string>> {
  const csp = [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' https: data:",
    "form-action 'self'",
    "frame-ancestors 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' https: 'unsafe-inline'",
    // Over plain http (local use) the upgrade, like HSTS below, would only break the page.
    ...(options.https ? ['upgrade-insecure-requests'] : []),
  ].join(';');
  return Object.freeze({
    'content-security-policy': csp,
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'no-referrer',
    ...(options.https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'SAMEORIGIN',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  });
}

/**
 * The two header sets a response starts from. Answers of the API and of sign-in hold account data
 * or credentials (tokens, recovery codes, user records), so no browser or proxy cache may keep one:
 * they carry `Cache-Control: no-store` on every status, errors and 304s included.
 */
export interface ResponseHeaders {
  common: Readonly<Record<string, string>>;
  noStore: Readonly<Record<string, string>>;
  /**
   * /public/v1, what visitors' browsers fetch from other sites' pages: readable by any origin
   * (CORS) and loadable across origins (the resource policy), errors included, so a page's script
   * learns why it got nothing. It names no person and takes no credential, so nothing is lost.
   */
  publicPath: Readonly<Record<string, string>>;
}

export function responseHeaders(options: { https: boolean }): ResponseHeaders {
  const common = securityHeaders(options);
  return {
    common,
    noStore: Object.freeze({ ...common, 'cache-control': 'no-store' }),
    publicPath: Object.freeze({
      ...common,
      'cross-origin-resource-policy': 'cross-origin',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ETag',
    }),
  };
}

const API_PREFIXES = ['/api/v1', '/auth'];
const PUBLIC_PREFIX = '/public/v1';

function underPrefix(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url[prefix.length];
  return next === undefined || next === '/' || next === '?';
}

/** The header set for a request URL (path and query as sent): no-store under /api/v1 and /auth, the public set under /public/v1. */
export function headersFor(headers: ResponseHeaders, url: string): Readonly<Record<string, string>> {
  for (const prefix of API_PREFIXES) if (underPrefix(url, prefix)) return headers.noStore;
  return underPrefix(url, PUBLIC_PREFIX) ? headers.publicPath : headers.common;
}

/**
 * Sets the security headers on every response, 404s and errors included, as defaults: the hook
 * runs first (onRequest, before any route hook or handler), so a route that sets one of these
 * headers itself, such as the stricter CSP of the server-rendered pages or the dashboard's own,
 * replaces the default rather than being overwritten by it. Errors Fastify raises before this hook
 * (a malformed URL) get the same headers from the one error handler's framework-error path.
 */
export function registerSecurityHeaders(app: App, headers: ResponseHeaders): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headersFor(headers, request.url));
    done();
  });
}
