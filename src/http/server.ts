import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * How long a connection may take over what it sends. Without them a client that sends a body one
 * byte every few seconds, or opens connections and sends nothing, holds a socket and a parser for
 * as long as it likes, and a thousand such clients hold a thousand.
 */
export interface HttpLimits {
  /** The whole request, headers and body, must have arrived this long after its first byte: else 408 and the connection closes. */
  requestTimeoutMs: number;
  /** The request line and headers must have arrived this long after the first byte (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /**
   * An idle keep-alive connection closes after this. Longer than the 60 s idle timeout common in
   * load balancers and proxies, so that they, not we, close a connection they might be reusing.
   */
  keepAliveTimeoutMs: number;
  /** A socket on which nothing moves either way (no first request yet, or an answer that never comes) is destroyed after this. */
  idleTimeoutMs: number;
}

/** The service's limits. A body that stalls is cut off 30 s after its request began. */
export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 72_000,
  idleTimeoutMs: 60_000,
});

/**
 * node:http checks the request and headers timeouts only on a timer (every 30 s by default), so a
 * late request is cut off up to that long after its limit. Checked every second, or four times per
 * limit when a limit is shorter (tests).
 */
function checkingIntervalMs(limits: HttpLimits): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.requestTimeoutMs, limits.headersTimeoutMs) / 4)));
}

/**
 * The Fastify options that carry the limits to the server: Fastify hands them to the server
 * factory below, as it would to the server it makes for itself.
 */
export function fastifyTimeoutOptions(limits: HttpLimits): { requestTimeout: number; keepAliveTimeout: number; connectionTimeout: number; http: { headersTimeout: number; connectionsCheckingInterval: number } } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    http: { headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs), connectionsCheckingInterval: checkingIntervalMs(limits) },
  };
}

/**
 * The origin form (`/path?query`) of an absolute-form request target (`http://host/path?query`,
 * RFC 9112 3.2.2), or the target unchanged when it is not an http(s) URL. The authority is
 * dropped: PUBLIC_URL, not the request, says which host this is. A fragment, which no request
 * target may carry, is left for the router to refuse.
 */
export function originFormTarget(target: string): string {
  const schemeEnd = target.indexOf('://');
  const scheme = schemeEnd === -1 ? '' : target.slice(0, schemeEnd).toLowerCase();
  if ((scheme !== 'http' && scheme !== 'https') || target.includes('#')) return target;
  const authorityStart = schemeEnd + 3;
  const pathStart = target.indexOf('/', authorityStart);
  const queryStart = target.indexOf('?', authorityStart);
  if (pathStart !== -1 && (queryStart === -1 || pathStart < queryStart)) return target.slice(pathStart);
  return queryStart === -1 ? '/' : `/${target.slice(queryStart)}`;
}

/**
 * Whether an Expect header asks for something beyond `100-continue`, the one expectation HTTP/1.1
 * defines (RFC 9110 10.1.1): such a request is answered 417 (protocol-rules.ts).
 */
export function hasUnknownExpectation(expect: string | undefined): boolean {
  if (expect === undefined) return false;
  return expect.split(',').some((member) => member.trim().toLowerCase() !== '100-continue');
}

/**
 * The HTTP/1.1 server Fastify makes for itself, with the timeouts handed to the constructor. An
 * absolute-form target is turned into its origin form before Fastify sees the request: every
 * decision made on the path (the no-store and security headers of /api/v1 and /auth, the
 * dashboard's fallback, the log line) then reads the path, whichever form the client sent.
 *
 * Requests node:http would answer itself, with an empty body and none of our headers, go to
 * Fastify instead, whose rules answer them as problems (protocol-rules.ts): HTTP/1.1 without a
 * Host header, and an Expect header other than `100-continue` (which gets its interim 100 here,
 * as node would send it, and nothing else does).
 */
export function createHttpServer(options: Record<string, unknown>, fastify: Listener): Server {
  const http = typeof options.http === 'object' && options.http !== null ? options.http : {};
  const listener: Listener = (request, response) => {
    // 47 is '/': the origin form every browser sends, and the one checked on the hot path.
    if (request.url !== undefined && request.url.charCodeAt(0) !== 47) request.url = originFormTarget(request.url);
    fastify(request, response);
  };
  // The request timeout goes to the constructor with the headers timeout, which may not exceed it.
  const server = createServer({ ...http, requestTimeout: numberOption(options, 'requestTimeout'), requireHostHeader: false }, listener);
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (!hasUnknownExpectation(request.headers.expect)) response.writeContinue();
    listener(request, response);
  });
  server.on('checkExpectation', listener);
  server.keepAliveTimeout = numberOption(options, 'keepAliveTimeout');
  server.setTimeout(numberOption(options, 'connectionTimeout'));
  const maxRequestsPerSocket = numberOption(options, 'maxRequestsPerSocket');
  if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
  return server;
}

/** Fastify fills in every one of these before it calls the factory. */
function numberOption(options: Record<string, unknown>, name: string): number {
  const value = options[name];
  if (typeof value !== 'number') throw new TypeError(`Fastify passed no number for ${name}`);
  return value;
}
