import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { listPublicOrigins, ORIGINS_KEPT_PER_SITE, recordPublicOrigins } from './queries.js';

export interface PublicOriginOptions {
  /** How often what was seen is written. */
  flushIntervalMs: number;
  /** A site and origin written less than this long ago are not written again: the time shown is that coarse. */
  rewriteAfterMs: number;
}

export const DEFAULT_ORIGIN_OPTIONS: PublicOriginOptions = { flushIntervalMs: 30_000, rewriteAfterMs: 5 * 60_000 };

/** Distinct sites and origins held between two writes; more are dropped until the next write (a flood of made-up Origin headers). */
const PENDING_LIMIT = 10_000;
/** Pairs remembered as written, for rewriteAfterMs. */
const WRITTEN_LIMIT = 50_000;
const ORIGIN_MAX_LENGTH = 300;
/** An Origin header names a scheme, a host and a port, nothing more (no path, query or user). */
const ORIGIN_HEADER = /^https?:\/\/[^/?#@\\]+$/i;
/**
 * A host as the URL parser leaves it: DNS labels (IDNs are punycode by then, IPv4 addresses
 * digits and dots) or a bracketed IPv6 address. The parser lets through hosts no page can have
 * (quotes, say: 'http://a"onmouseover=…'); those are not recorded, since the dashboard shows
 * what is.
 */
const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.?$|^\[[0-9a-f:.]+\]$/;

/** The page's origin from a request's Origin header, else from its Referer; undefined when neither names a well-formed http(s) origin. */
export function pageOrigin(origin: string | undefined, referer: string | undefined): string | undefined {
  if (origin !== undefined && origin.length <= ORIGIN_MAX_LENGTH && ORIGIN_HEADER.test(origin)) {
    const fromOrigin = webOrigin(origin);
    if (fromOrigin !== undefined) return fromOrigin;
  }
  if (referer === undefined || referer.length > 4096) return undefined;
  return webOrigin(referer);
}

/** The URL's origin, parsed and serialised by the URL parser, when it is http(s) with a well-formed host. */
function webOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || !HOST.test(url.hostname)) return undefined;
  return url.origin.length <= ORIGIN_MAX_LENGTH ? url.origin : undefined;
}

/**
 * Where each site's public configuration was fetched from: the origins of the pages that embed it,
 * as their requests name them, and when. Gathered in memory as requests are answered (a Map update
 * on the fast path, nothing more) and written every `flushIntervalMs` in one transaction, each site
 * and origin at most once per `rewriteAfterMs`: never a write per request. Every app server writes
 * its own sightings; the latest time wins.
 *
 * Origin and Referer are whatever the client sends: this says where pages that load the key claim
 * to be, a help for the site's owner, not a proof (docs/security.md, "The public path").
 */
export class PublicOrigins {
  /** Site id → origins seen since the last write. */
  #pending = new Map<string, Set<string>>();
  #pendingCount = 0;
  /** What the write under way carries: still shown by `list` until it has committed. */
  #inFlight = new Map<string, Set<string>>();
  /**
   * `site origin` → when it was last written (epoch ms by the app's clock). Bounded by a size of 1
   * per entry, not `max`: with `max`, lru-cache allocates its whole index up front, for pairs most
   * servers never see (docs/performance.md, "The test suite").
   */
  readonly #written = new LRUCache<string, number>({ maxSize: WRITTEN_LIMIT, sizeCalculation: () => 1 });
  readonly #timer: NodeJS.Timeout;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { db: Kysely<Database>; clock: Clock; onError: (error: unknown) => void },
    private readonly options: PublicOriginOptions,
  ) {
    this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs).unref();
  }

  /** Notes that a page of this origin fetched the site's configuration (Origin, else Referer). */
  record(siteId: string, origin: string | undefined, referer: string | undefined): void {
    if (origin === undefined && referer === undefined) return;
    const seen = pageOrigin(origin, referer);
    if (seen === undefined) return;
    this.#keep(siteId, seen);
  }

  #keep(siteId: string, origin: string): void {
    let origins = this.#pending.get(siteId);
    if (origins?.has(origin) === true || this.#pendingCount >= PENDING_LIMIT) return;
    if (origins === undefined) {
      origins = new Set();
      this.#pending.set(siteId, origins);
    }
    origins.add(origin);
    this.#pendingCount++;
  }

  /** The origins the site was fetched from, most recent first: those written, and those this server saw since. */
  async list(siteId: string): Promise<Array<{ origin: string; last_seen_at: string }>> {
    const unwritten = [...(this.#inFlight.get(siteId) ?? []), ...(this.#pending.get(siteId) ?? [])];
    const stored = await listPublicOrigins(this.deps.db, siteId);
    const recent = [...new Set(unwritten)];
    if (recent.length === 0) return stored;
    const now = this.deps.clock.now().toISOString();
    const merged = [...recent.map((origin) => ({ origin, last_seen_at: now })), ...stored.filter((row) => !recent.includes(row.origin))];
    return merged.slice(0, ORIGINS_KEPT_PER_SITE);
  }

  /** Writes what was seen since the last write; one write at a time. */
  flush(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  /** Stops the timer and writes what is left; for shutdown, before the database closes. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async #write(): Promise<void> {
    const pending = this.#pending;
    if (pending.size === 0) return;
    this.#inFlight = pending;
    this.#pending = new Map();
    this.#pendingCount = 0;
    try {
      await this.#writeBatch(pending);
    } finally {
      this.#inFlight = new Map();
    }
  }

  async #writeBatch(pending: Map<string, Set<string>>): Promise<void> {
    const now = this.deps.clock.now();
    const nowMs = now.getTime();
    const batch: Array<[string, string[]]> = [];
    for (const [siteId, origins] of pending) {
      const due = [...origins].filter((origin) => nowMs - (this.#written.get(`${siteId} ${origin}`) ?? -Infinity) >= this.options.rewriteAfterMs);
      if (due.length > 0) batch.push([siteId, due]);
    }
    if (batch.length === 0) return;
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        for (const [siteId, origins] of batch) await recordPublicOrigins(trx, siteId, origins, now.toISOString());
      });
      for (const [siteId, origins] of batch) for (const origin of origins) this.#written.set(`${siteId} ${origin}`, nowMs);
    } catch (error) {
      // Kept for the next write, within the bound.
      for (const [siteId, origins] of batch) for (const origin of origins) this.#keep(siteId, origin);
      this.deps.onError(error);
    }
  }
}
