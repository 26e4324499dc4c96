import type { Kysely } from 'kysely';
import type { Cache, CacheNamespace } from '../cache/cache.js';
import { siteTag } from '../cache/change-feed.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { PublicDocument } from './document.js';
import { findPublicSites, findSiteByPublicKey, findSiteVersions, type PublicSiteRow } from './queries.js';

/**
 * How often each server checks the public documents it holds against the database (`check`): they
 * never expire by time, so this is their safety net, as expiry is the other entries'.
 */
export const PUBLIC_CHECK_INTERVAL_MS = 60_000;

/** Sites whose versions `check` reads in one query. */
const CHECK_BATCH = 500;

/**
 * Sites' public configurations by key, from the cache (src/cache/cache.ts) when it holds them and
 * from the database otherwise. Each document is kept under the keys that answer for its site, and
 * depends on the site's row: any change to it (a new version, a rotated key, the trash) drops it,
 * on every app server, through the change feed.
 *
 * Documents do not expire by time, as the cache's other entries do: every visitor's browser asks
 * for them, and an expiry would send all of a server's documents back through the database
 * within a minute of each other. The cache's safety net for a change that was never reported is
 * `check` instead, run in the background.
 *
 * A key that answers for nothing is not kept: a flood of made-up keys would otherwise push the
 * real ones out. HTTP caches in front keep the 404 (docs/deployment.md).
 */
export class PublicConfigs {
  readonly #documents: CacheNamespace<PublicDocument>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly cache: Cache,
    private readonly clock: Clock,
  ) {
    this.#documents = cache.namespace('public');
  }

  /** The document for `key` if the cache holds it and the key still answers; no database read. */
  held(key: string): PublicDocument | undefined {
    const document = this.#documents.get(key);
    return document !== undefined && document.answersFor(key, this.clock) ? document : undefined;
  }

  /** The document for `key`, or undefined when no live site answers to it now. */
  async load(key: string): Promise<PublicDocument | undefined> {
    const held = this.#documents.get(key);
    if (held !== undefined) return held.answersFor(key, this.clock) ? held : undefined;
    const epoch = this.cache.epoch;
    const row = await findSiteByPublicKey(this.db, key);
    if (row === undefined) return undefined;
    const document = this.#keep(row, epoch);
    return document.answersFor(key, this.clock) ? document : undefined;
  }

  /**
   * The current documents of these sites, read in one query (ids of trashed or deleted sites are
   * left out of the answer). What the event streams re-read when a change names their sites, or
   * when the change feed could not say which sites changed.
   */
  async loadSites(siteIds: readonly string[]): Promise<Map<string, PublicDocument>> {
    const epoch = this.cache.epoch;
    const rows = await findPublicSites(this.db, siteIds);
    return new Map(rows.map((row) => [row.id, this.#keep(row, epoch)]));
  }

  /** The current versions of these sites (trashed or deleted ones are left out): one light query. */
  async versions(siteIds: readonly string[]): Promise<Map<string, number>> {
    const rows = await findSiteVersions(this.db, siteIds);
    return new Map(rows.map((row) => [row.id, row.version]));
  }

  /**
   * Reads the versions of the sites whose documents are held, a batch at a time, and drops those
   * whose site has moved on or gone (through the cache, so the event streams hear of it too).
   */
  async check(): Promise<void> {
    const held = new Map<string, number>();
    for (const document of this.#documents.values()) held.set(document.siteId, document.version);
    const siteIds = [...held.keys()];
    for (let start = 0; start < siteIds.length; start += CHECK_BATCH) {
      const batch = siteIds.slice(start, start + CHECK_BATCH);
      const versions = await this.versions(batch);
      const moved = batch.filter((siteId) => versions.get(siteId) !== held.get(siteId));
      if (moved.length > 0) this.cache.invalidate(moved.map(siteTag));
    }
  }

  #keep(row: PublicSiteRow, epoch: number): PublicDocument {
    const document = new PublicDocument(row);
    const options = { tags: [siteTag(row.id)], size: document.size, epoch, expires: false };
    this.#documents.set(row.public_key, document, options);
    if (row.previous_public_key !== null) this.#documents.set(row.previous_public_key, document, options);
    return document;
  }
}
