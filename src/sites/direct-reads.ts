import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Guard } from '../auth/guard.js';
import { versionEtag } from '../http/etag.js';
import type { RequestCaller } from '../http/logging.js';
import type { SiteReads } from './reads.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './schema.js';

export interface DirectReadsOptions {
  guard: Guard;
  reads: SiteReads;
  /** What every response under /api/v1 carries (security-headers.ts, no-store included), as Fastify's onRequest hook sets them. */
  headers: Readonly<Record<string, string>>;
  /** Writes the request line (logging.ts, logRequestLine). */
  logLine: (reqId: string, method: string, url: string, status: number, elapsedMs: number, caller: RequestCaller) => void;
  /** Told of anything that failed before an answer was sent; Fastify then answers the request. */
  onError: (error: unknown) => void;
}

interface HeldAnswer {
  body: Buffer;
  /** Only one site's answer has an ETag. */
  etag: string | undefined;
  /** For the request line, as Fastify's would name them. */
  caller: RequestCaller;
}

const LIST_PATH = '/api/v1/sites';
const SITE_PATH = '/api/v1/sites/';
// Narrower than what the routes accept, on purpose: anything Fastify would decode, coerce or refuse
// (percent-escapes, "010", a repeated or unknown parameter) is left to Fastify.
const SITE_ID = /^[0-9A-Za-z-]{1,64}$/;
const CURSOR = /^[0-9A-Za-z_-]{1,200}$/;
const LIMIT = /^[1-9][0-9]{0,2}$/;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The two authenticated GETs of sites, answered straight from node:http when everything they need
 * is already in this process's memory: the caller's principal (Guard.heldPrincipal) and the answer
 * (the site cache, through SiteReads). Nothing else: a credential to look up or refuse, a cold
 * cache, a conditional request, an unusual URL, anything at all unusual goes to Fastify, untouched,
 * which answers it the ordinary way. Every error therefore still comes from the one error handler.
 *
 * What an answer from here is: the same status, headers and bytes as the route in routes.ts (the
 * equivalence test sends the same requests both ways), and the same request line in the log. What it
 * saves is Fastify's per-request machinery (request and reply objects, routing, hooks, schema
 * checks), roughly a fifth of a cached GET's time (docs/performance.md). The caches it reads are the
 * ones the routes read, so revocation and freshness bounds are the same.
 */
export class DirectReads {
  #open = true;

  constructor(private readonly options: DirectReadsOptions) {}

  /** From now on every request goes to Fastify, which answers 503 while the server closes. */
  close(): void {
    this.#open = false;
  }

  /** Answers the request and returns true, or returns false having sent nothing. */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    const { url, method, headers } = request;
    const authorization = headers.authorization;
    if (!this.#open || method !== 'GET' || url === undefined || authorization === undefined) return false;
    if (!url.startsWith(LIST_PATH) || headers['if-none-match'] !== undefined || hasBody(request)) return false;
    const startedAt = performance.now();
    let answer: HeldAnswer | undefined;
    try {
      answer = this.#held(url, authorization);
    } catch (error) {
      // Nothing was sent: Fastify takes the request and meets whatever failed the ordinary way.
      this.options.onError(error);
      return false;
    }
    if (answer === undefined) return false;
    const reqId = randomUUID();
    response.writeHead(200, this.#responseHeaders(answer.body.length, answer.etag));
    response.end(answer.body);
    this.options.logLine(reqId, method, url, 200, performance.now() - startedAt, answer.caller);
    return true;
  }

  /** The answer to a plain list or site URL, when the caller and the answer are both held. */
  #held(url: string, authorization: string): HeldAnswer | undefined {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (path === LIST_PATH) {
      const page = query === -1 ? { limit: DEFAULT_PAGE_SIZE, cursor: undefined } : parseListQuery(url.slice(query + 1));
      if (page === undefined) return undefined;
      const caller = this.#caller(authorization);
      const held = caller === undefined ? undefined : this.options.reads.heldPage(caller.userId, page.limit, page.cursor);
      return held === undefined || caller === undefined ? undefined : { body: held, etag: undefined, caller };
    }
    const id = path.slice(SITE_PATH.length);
    if (query !== -1 || path[LIST_PATH.length] !== '/' || !SITE_ID.test(id)) return undefined;
    const caller = this.#caller(authorization);
    const held = caller === undefined ? undefined : this.options.reads.heldSite(caller.userId, id);
    return held === undefined || caller === undefined ? undefined : { body: held.body, etag: versionEtag(held.version), caller };
  }

  /** A caller allowed to read sites, as far as memory tells (see Guard.heldPrincipal). */
  #caller(authorization: string): RequestCaller | undefined {
    const principal = this.options.guard.heldPrincipal(authorization);
    return principal?.scopes.includes('sites:read') === true ? { userId: principal.user.id, credential: principal.method } : undefined;
  }

  /** In the order the routes send them: the security headers, the ETag, then the type and length. */
  #responseHeaders(length: number, etag: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers };
    if (etag !== undefined) headers.etag = etag;
    headers['content-type'] = JSON_TYPE;
    headers['content-length'] = String(length);
    return headers;
  }
}

/** limit and cursor, each at most once, in the plainest spelling; undefined for anything else. */
function parseListQuery(query: string): { limit: number; cursor: string | undefined } | undefined {
  let limit: number | undefined;
  let cursor: string | undefined;
  for (const parameter of query.split('&')) {
    const equals = parameter.indexOf('=');
    const name = parameter.slice(0, equals);
    const value = parameter.slice(equals + 1);
    if (equals === -1) return undefined;
    if (name === 'limit' && limit === undefined && LIMIT.test(value)) {
      limit = Number(value);
      if (limit > MAX_PAGE_SIZE) return undefined;
    } else if (name === 'cursor' && cursor === undefined && CURSOR.test(value)) {
      cursor = value;
    } else {
      return undefined;
    }
  }
  return { limit: limit ?? DEFAULT_PAGE_SIZE, cursor };
}

/** A GET with a body is rare and left to Fastify, which decides what to make of it. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}
