import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { OUTBOUND_FAILURE, OutboundError } from './errors.js';
import { AddressRefusedError, type AddressPolicy, DnsLookupError, type Resolver, resolveAllowedAddresses, type ResolvedAddress } from './network-guard.js';

/** The fetch shape the MCP SDK's transport accepts as its `fetch` option. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  policy: AddressPolicy;
  resolver: Resolver;
  /** Every response body is cut off with an error past this many bytes. */
  maxResponseBytes: number;
  maxRedirects: number;
  /** Aborts every request of the check: the check's total deadline. */
  signal: AbortSignal;
  /** The only origin a request carrying an Authorization header may go to; null: none. */
  credentialOrigin: string | null;
  /** Sent unless the request sets its own. */
  userAgent: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
/** Connection failures after which the next resolved address is worth a try. */
const TRY_NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

interface Outgoing {
  url: URL;
  method: string;
  headers: Headers;
  body: Buffer | undefined;
}

/**
 * A fetch for requests to other servers (partner services), and the only way Siteward reaches one:
 *
 * - only http: and https: URLs, without user:password;
 * - the host is resolved once, every address is checked against the policy, and the socket is
 *   opened to that checked address (the Host header and TLS server name stay the host name, so
 *   virtual hosting and certificate checks work as usual). A DNS answer that changes between the
 *   check and the connection (rebinding) therefore cannot reach an address that was refused;
 * - redirects are followed by hand, each target checked the same way, at most `maxRedirects`;
 *   with `redirect: "manual"` the redirect response is returned as is;
 * - a request carrying the Authorization header goes only to `credentialOrigin`: a redirect of such
 *   a request to another origin is not followed at all. Browsers drop the header and follow, but a
 *   partner check that then reports the other host's 401 would hide what happened, and nothing the
 *   token was meant for lives there;
 * - response bodies are capped, and no compression is requested, so the cap counts real bytes;
 * - everything is aborted with the check's deadline.
 */
export function createGuardedFetch(options: GuardedFetchOptions): FetchLike {
  return async (input, init = {}) => {
    const signal = init.signal === undefined || init.signal === null ? options.signal : AbortSignal.any([options.signal, init.signal]);
    const headers = new Headers(init.headers);
    if (!headers.has('user-agent')) headers.set('user-agent', options.userAgent);
    headers.set('accept-encoding', 'identity');
    let request: Outgoing = { url: parseTarget(String(input)), method: (init.method ?? 'GET').toUpperCase(), headers, body: bodyBuffer(init.body) };

    for (let redirects = 0; ; redirects++) {
      assertCredentialAllowed(request, options.credentialOrigin, redirects > 0);
      const response = await sendOnce(request, options, signal, redirects > 0);
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null || init.redirect === 'manual') return response;
      await response.body?.cancel();
      if (init.redirect === 'error') throw new OutboundError(OUTBOUND_FAILURE.protocolError, `unexpected redirect (HTTP ${response.status})`);
      if (redirects >= options.maxRedirects) throw new OutboundError(OUTBOUND_FAILURE.protocolError, `more than ${options.maxRedirects} redirects`);
      request = redirectedRequest(request, response.status, location);
    }
  };
}

/** The token never travels to an origin it was not saved for, by a redirect or otherwise. */
function assertCredentialAllowed(request: Outgoing, credentialOrigin: string | null, redirected: boolean): void {
  if (!request.headers.has('authorization') || request.url.origin === credentialOrigin) return;
  throw new OutboundError(
    OUTBOUND_FAILURE.blocked,
    redirected
      ? 'a redirect to another origin was not followed: the access token is sent only to the origin it was saved for'
      : 'the access token is sent only to the origin it was saved for',
  );
}

function parseTarget(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw base === undefined
      ? new OutboundError(OUTBOUND_FAILURE.blocked, 'the URL is not valid')
      : new OutboundError(OUTBOUND_FAILURE.protocolError, 'redirect to an invalid URL');
  }
  // A redirect's target is the partner's text: its scheme is not quoted (ours, from the settings, is).
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError(
      OUTBOUND_FAILURE.blocked,
      base === undefined ? `a ${url.protocol} URL refused: only http and https are allowed` : 'redirect to a URL that is not http or https refused',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError(OUTBOUND_FAILURE.blocked, 'URLs with user:password are not supported; use auth_type and access_token');
  }
  return url;
}

function bodyBuffer(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new OutboundError(OUTBOUND_FAILURE.protocolError, 'internal: only string or byte bodies are supported');
}

/** The follow-up request for a redirect, as the fetch standard builds it. */
function redirectedRequest(previous: Outgoing, status: number, location: string): Outgoing {
  const url = parseTarget(location, previous.url);
  const headers = new Headers(previous.headers);
  const becomesGet = (status === 303 && previous.method !== 'GET' && previous.method !== 'HEAD') || ((status === 301 || status === 302) && previous.method === 'POST');
  if (!becomesGet) return { url, method: previous.method, headers, body: previous.body };
  headers.delete('content-type');
  return { url, method: 'GET', headers, body: undefined };
}

async function sendOnce(request: Outgoing, options: GuardedFetchOptions, signal: AbortSignal, redirected: boolean): Promise<Response> {
  signal.throwIfAborted();
  let addresses: ResolvedAddress[];
  try {
    addresses = await untilAborted(resolveAllowedAddresses(request.url.hostname, options.policy, options.resolver), signal);
  } catch (error) {
    // A host reached by a redirect was named by the partner, not by the settings: it is not quoted.
    if (redirected && error instanceof AddressRefusedError) throw new OutboundError(error.category, `a redirect led to a refused address: ${error.reason}`);
    if (redirected && error instanceof DnsLookupError) throw new OutboundError(error.category, 'a redirect led to a host whose DNS lookup failed');
    throw error;
  }
  let lastError: unknown;
  for (const address of addresses) {
    try {
      return await connectAndSend(request, address, options.maxResponseBytes, signal);
    } catch (error) {
      lastError = error;
      if (!TRY_NEXT_ADDRESS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
  throw lastError;
}

/** DNS lookups cannot be cancelled; the check stops waiting for one at its deadline. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function connectAndSend(request: Outgoing, address: ResolvedAddress, maxResponseBytes: number, signal: AbortSignal): Promise<Response> {
  const { url } = request;
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  headers.host = url.host;
  if (request.body !== undefined) headers['content-length'] = String(request.body.length);
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const requestOptions: https.RequestOptions = {
    // The checked address itself: no second DNS lookup happens between the check and the connection.
    host: address.address,
    family: address.family,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers,
    // A fresh socket per request: a pooled one could have been opened under another check's policy.
    agent: false,
    signal,
  };
  // TLS verifies the certificate against the host name (SNI may not carry an IP literal).
  if (secure && isIP(hostname) === 0) requestOptions.servername = hostname;

  return new Promise<Response>((resolve, reject) => {
    const outgoing = (secure ? https : http).request(requestOptions, (incoming) => {
      try {
        resolve(toResponse(incoming, request.method, maxResponseBytes, signal));
      } catch (error) {
        incoming.destroy();
        reject(error);
      }
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

function toResponse(incoming: http.IncomingMessage, method: string, maxResponseBytes: number, signal: AbortSignal): Response {
  const status = incoming.statusCode ?? 0;
  if (status < 200 || status > 599) throw new OutboundError(OUTBOUND_FAILURE.protocolError, `invalid HTTP status ${status}`);
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index] ?? '', raw[index + 1] ?? '');
    } catch {
      // A header the web Headers class refuses is not one the check needs.
    }
  }
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    incoming.resume();
    return new Response(null, { status, statusText: incoming.statusMessage ?? '', headers });
  }
  return new Response(cappedBody(incoming, maxResponseBytes, signal), { status, statusText: incoming.statusMessage ?? '', headers });
}

/** The body as a web stream that fails once it grows past the cap, so a huge answer costs nothing. */
function cappedBody(incoming: http.IncomingMessage, maxResponseBytes: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  let settled = false;
  const onAbort: { handler?: () => void } = {};
  const settle = () => {
    settled = true;
    if (onAbort.handler !== undefined) signal.removeEventListener('abort', onAbort.handler);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (error: unknown) => {
        if (settled) return;
        settle();
        controller.error(error);
        incoming.destroy();
      };
      let received = 0;
      incoming.on('data', (chunk: Buffer) => {
        if (settled) return;
        received += chunk.length;
        if (received > maxResponseBytes) {
          fail(new OutboundError(OUTBOUND_FAILURE.protocolError, `the response is larger than ${formatBytes(maxResponseBytes)}`));
          return;
        }
        controller.enqueue(new Uint8Array(chunk));
      });
      incoming.on('end', () => {
        if (settled) return;
        settle();
        controller.close();
      });
      incoming.on('error', (error) => fail(signal.aborted ? signal.reason : error));
      incoming.on('aborted', () => fail(signal.aborted ? signal.reason : new OutboundError(OUTBOUND_FAILURE.unreachable, 'the connection closed before the response was complete')));
      onAbort.handler = () => fail(signal.reason);
      signal.addEventListener('abort', onAbort.handler, { once: true });
    },
    cancel() {
      settle();
      incoming.destroy();
    },
  });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
