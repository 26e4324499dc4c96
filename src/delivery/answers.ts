import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type ContentEncoding, preferredEncoding } from '../http/compression.js';
import { type ErrorCode, PROBLEM_CONTENT_TYPE, problem } from '../errors.js';
import { SITE_ERRORS } from '../sites/errors.js';
import type { PublicDocument } from './document.js';
import { DELIVERY_ERRORS } from './errors.js';

/** A complete answer of the public path: the same bytes whether Fastify or the fast path sends it. */
export interface PublicAnswer {
  status: number;
  headers: Readonly<OutgoingHttpHeaders>;
  /** Null for a 304; a HEAD request's answer leaves it out on the wire. */
  body: Buffer | null;
}

/** An answer of the configuration itself: the document, or word that the client holds it already. */
export interface ConfigAnswer extends PublicAnswer {
  status: 200 | 304;
}

/**
 * Writes an answer: the one way both the fast path and the Fastify route send it, so that a
 * client cannot tell which answered.
 */
export function writeAnswer(response: ServerResponse, answer: PublicAnswer): void {
  response.writeHead(answer.status, answer.headers);
  // end() with no argument for a 304: end(null) costs a second write, and with it a wait for the client's ACK.
  if (answer.body === null) response.end();
  else response.end(answer.body);
}

/** Accept-Encoding values seen, with the coding each prefers: a visitor's browser sends one of a few. */
const NEGOTIATED_LIMIT = 256;

/**
 * The answers of GET /public/v1/sites/{public_key}, built once per kind and per document version.
 * They start from the public path's header set (security-headers.ts: readable and loadable from
 * any origin), and may be kept by browsers and shared caches alike: they name no person, and no
 * cookie is read or set on this path (docs/security.md, "The public path").
 */
export class PublicAnswers {
  readonly #ok: Readonly<Record<string, string>>;
  /** A 304 carries what a 200 would about caching (RFC 9110 §15.4.5), not its body's type. */
  readonly #notModified: Readonly<Record<string, string>>;
  readonly #notFound: PublicAnswer;
  readonly #invalidKey: PublicAnswer;
  readonly #tooManyStreams: PublicAnswer;
  readonly #tooManyStreamsFromAddress: PublicAnswer;
  /** A change request's preview: for the one holding its token, never kept by any cache. */
  readonly #preview: Readonly<Record<string, string>>;
  readonly #previewNotFound: PublicAnswer;
  /** The headers of an event stream: never kept by a cache, never buffered by a proxy in front. */
  readonly streamHeaders: Readonly<Record<string, string>>;
  readonly #negotiated = new Map<string, ContentEncoding | undefined>();
  /**
   * Each document's answers, built on first use: a document is one version, so its answers never
   * change, and they go with it when the cache lets it go. Indexed 200 plain, gzip, br, then 304
   * plain, gzip, br.
   */
  readonly #answers = new WeakMap<PublicDocument, Array<ConfigAnswer | undefined>>();

  constructor(base: Readonly<Record<string, string>>, maxAgeSeconds: number) {
    // A change reaches visitors within max-age; a cache may answer from an older copy while it
    // fetches a newer one (stale-while-revalidate), or for a day while we do not answer at all.
    const cacheControl = `public, max-age=${maxAgeSeconds}, stale-while-revalidate=600, stale-if-error=86400`;
    this.#notModified = Object.freeze({ ...base, 'cache-control': cacheControl, vary: 'Accept-Encoding' });
    this.#ok = Object.freeze({ ...this.#notModified, 'content-type': 'application/json; charset=utf-8' });
    // Who has no site (a mistyped key, a rotated-out one, a trashed site) is told so as cacheably:
    // a page that keeps asking is answered by the cache in front for max-age.
    const errorHeaders = { ...base, 'cache-control': `public, max-age=${maxAgeSeconds}` };
    this.#notFound = problemAnswer(errorHeaders, 404, SITE_ERRORS.SITE_NOT_FOUND, 'No site answers to this public key: it is unknown, was replaced more than 24 hours ago, or its site was deleted.');
    this.#invalidKey = problemAnswer(
      errorHeaders,
      400,
      DELIVERY_ERRORS.INVALID_PUBLIC_KEY,
      "This is not a public key: a public key is spk_ followed by 24 letters and digits (the site's Install section in the dashboard shows it).",
    );
    // Another app server behind the same load balancer may have room: the client retries soon.
    this.#tooManyStreams = problemAnswer(
      { ...base, 'cache-control': 'no-store', 'retry-after': '10' },
      503,
      DELIVERY_ERRORS.TOO_MANY_STREAMS,
      'This server holds as many event streams as it may; try again shortly, or poll the configuration instead.',
    );
    this.#tooManyStreamsFromAddress = problemAnswer(
      { ...base, 'cache-control': 'no-store', 'retry-after': '10' },
      503,
      DELIVERY_ERRORS.TOO_MANY_STREAMS,
      'This server holds as many event streams for your address as it may; close one, or poll the configuration instead.',
    );
    this.#preview = Object.freeze({ ...base, 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' });
    this.#previewNotFound = problemAnswer(
      { ...base, 'cache-control': 'no-store' },
      404,
      SITE_ERRORS.SITE_NOT_FOUND,
      'No change request of this site answers to this preview token: it is unknown, or the request has ended.',
    );
    this.streamHeaders = Object.freeze({
      ...base,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx passes the events on as they come instead of collecting them (docs/deployment.md).
      'x-accel-buffering': 'no',
    });
  }

  /** The configuration a change request would make, uncompressed and uncacheable: it is asked for by a few reviewers. */
  preview(json: string): PublicAnswer {
    const body = Buffer.from(json);
    return { status: 200, headers: { ...this.#preview, 'content-length': body.length }, body };
  }

  get previewNotFound(): PublicAnswer {
    return this.#previewNotFound;
  }

  get tooManyStreams(): PublicAnswer {
    return this.#tooManyStreams;
  }

  /** 503: the client's address holds PUBLIC_STREAMS_PER_ADDRESS streams already. */
  get tooManyStreamsFromAddress(): PublicAnswer {
    return this.#tooManyStreamsFromAddress;
  }

  /** 200 with the document in the coding the client prefers, or 304 when it holds this version already. */
  config(document: PublicDocument, ifNoneMatch: string | undefined, acceptEncoding: string | undefined): ConfigAnswer {
    const encoding = document.compressible ? this.#encodingFor(acceptEncoding) : undefined;
    let answers = this.#answers.get(document);
    if (answers === undefined) {
      answers = [];
      this.#answers.set(document, answers);
    }
    // The tag a browser sends back is most often the plain one it was given, found without parsing the header.
    const notModified = ifNoneMatch !== undefined && (ifNoneMatch === document.etag || holdsVersion(ifNoneMatch, document.version));
    const kind = (notModified ? 3 : 0) + (encoding === undefined ? 0 : encoding === 'gzip' ? 1 : 2);
    let answer = answers[kind];
    if (answer === undefined) {
      answer = this.#configAnswer(document, encoding, notModified);
      answers[kind] = answer;
    }
    return answer;
  }

  #configAnswer(document: PublicDocument, encoding: ContentEncoding | undefined, notModified: boolean): ConfigAnswer {
    const etag = document.etagFor(encoding);
    if (notModified) return { status: 304, headers: Object.freeze({ ...this.#notModified, etag }), body: null };
    const body = encoding === undefined ? document.body : document.encoded(encoding);
    const headers: OutgoingHttpHeaders = { ...this.#ok, etag, 'content-length': body.length };
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    return { status: 200, headers: Object.freeze(headers), body };
  }

  get notFound(): PublicAnswer {
    return this.#notFound;
  }

  get invalidKey(): PublicAnswer {
    return this.#invalidKey;
  }

  #encodingFor(acceptEncoding: string | undefined): ContentEncoding | undefined {
    if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
    if (this.#negotiated.has(acceptEncoding)) return this.#negotiated.get(acceptEncoding);
    const encoding = preferredEncoding(acceptEncoding);
    if (this.#negotiated.size >= NEGOTIATED_LIMIT) this.#negotiated.clear();
    this.#negotiated.set(acceptEncoding, encoding);
    return encoding;
  }
}

function problemAnswer(headers: Record<string, string>, status: number, code: ErrorCode, detail: string): PublicAnswer {
  const body = Buffer.from(JSON.stringify(problem(status, code, detail)));
  return { status, headers: Object.freeze({ ...headers, 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': String(body.length) }), body };
}

/**
 * If-None-Match (weak comparison, RFC 9110 §13.1.2) against any coding of this version: "7",
 * "7-gzip" and W/"7" all name version 7, whose content is the same in every coding. `*` matches.
 */
export function holdsVersion(ifNoneMatch: string, version: number): boolean {
  const plain = `"${version}"`;
  const prefix = `"${version}-`;
  for (const listed of ifNoneMatch.split(',')) {
    let tag = listed.trim();
    if (tag === '*') return true;
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === plain || (tag.startsWith(prefix) && (tag === `${prefix}gzip"` || tag === `${prefix}br"`))) return true;
  }
  return false;
}
