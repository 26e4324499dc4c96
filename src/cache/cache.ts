import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from './change-feed.js';

/**
 * An entry is trusted this long at most, unless it is stored without expiry (StoreOptions). Every
 * change is reported (this process's writes by themselves, every process's on PostgreSQL by the
 * triggers, other processes' on SQLite by its change counter), so this is only a safety net for a
 * write in this process that forgot to report what it changed. Each expiry sends an entry back to
 * the database on a request's path, so it is long (what a minute cost:
 * docs/decisions/cache-bound-and-eviction.md).
 */
export const CACHE_TTL_MS = 10 * 60_000;

/**
 * Each entry's expiry, drawn evenly between half the TTL and the whole of it: entries stored
 * together (a start-up, a burst of new callers) would otherwise all expire in the same second and
 * send every request of that second to the database at once.
 */
function entryTtl(): number {
  return CACHE_TTL_MS / 2 + Math.floor(Math.random() * (CACHE_TTL_MS / 2));
}

/** How stale the time an entry's expiry is checked against may be. */
const TTL_RESOLUTION_MS = 1000;
/**
 * Invalidations remembered for stores whose read began before them (Cache.set): a read that
 * outlives this many is refused whatever it read. A few hundred bytes each.
 */
const REMEMBERED_INVALIDATIONS = 256;

/*
 * What an entry costs besides its value, measured on Node 24 (bench/cache-memory.ts prints what a
 * full cache really holds): its slot in the LRU's arrays and map, the entry object, and its key's
 * string header; each tag's string and its place in the tag index. A tag several entries share is
 * counted by each, which errs towards holding less.
 */
const ENTRY_BYTES = 170;
const TAG_BYTES = 90;
/** The objects of a buffer (ArrayBuffer, its view and its backing store's record) beside its bytes. */
export const BUFFER_OBJECT_BYTES = 400;

/** What a buffer kept in the cache costs: its bytes and its objects. For StoreOptions.size. */
export function bufferCost(buffer: Buffer): number {
  return buffer.length + BUFFER_OBJECT_BYTES;
}

/**
 * `content` in a buffer of its own, for keeping in the cache: what is kept must not be a view of a
 * larger allocation, which it would keep alive whole. A small Buffer.from is a slice of Node's
 * shared 8 KiB pool; zlib's synchronous results are views of a 64 KiB chunk.
 */
export function ownBuffer(content: string | Buffer): Buffer {
  if (typeof content !== 'string') {
    if (content.byteOffset === 0 && content.length === content.buffer.byteLength) return content;
    const copy = Buffer.allocUnsafeSlow(content.length);
    content.copy(copy);
    return copy;
  }
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(content));
  buffer.write(content);
  return buffer;
}

/** What an entry of this key, tags and value costs in all (see ENTRY_BYTES). */
export function entryCost(key: string, tags: readonly string[], valueBytes: number): number {
  let cost = ENTRY_BYTES + key.length + valueBytes;
  for (const tag of tags) cost += TAG_BYTES + tag.length;
  return cost;
}

interface Entry {
  readonly value: unknown;
  readonly tags: readonly string[];
}

export interface CacheOptions {
  feed: ChangeFeed;
  /**
   * Upper bound on the memory the cache holds: each entry counts as its value's declared size plus
   * what its key, tags and place in the index cost (entryCost); 0 turns it off.
   */
  maxBytes: number;
  /** What entries' expiry is measured by, in milliseconds: `performance` unless a test moves it. */
  time?: { now(): number };
}

/**
 * Told of every invalidation after the cache has dropped what it names: what keeps more than the
 * cache itself up to date (the public configuration's event streams) hears of changes here, from
 * this process's writes and other processes' alike.
 */
export interface CacheObserver {
  /** Committed changes touched these rows. */
  invalidated(tags: readonly string[]): void;
  /** Anything may have changed: the feed could not say what (SQLite), or was away (PostgreSQL). */
  cleared(): void;
}

export interface StoreOptions {
  /** The rows the value was read from (change-feed.ts, changeTag): a change to any of them drops it. */
  tags: readonly string[];
  /**
   * Memory the value holds, objects included: bufferCost for a buffer, a measured figure for an
   * object (bench/cache-memory.ts measures them all). Key, tags and index are counted by the cache.
   */
  size: number;
  /** `cache.epoch` taken before the database read that produced the value. */
  epoch: number;
  /**
   * False: kept until a change drops it (or the bound pushes it out), never expired by time. For
   * values whose owner checks them against the database itself now and then, off the request
   * path (PublicConfigs.check): an expiry would send every such value back to the database at
   * once, on the path of a request.
   */
  expires?: boolean;
}

/**
 * Everything this process keeps from the database, in one bounded LRU (lru-cache): principals,
 * site answers, and the checked JWTs that lead to principals. Per app instance, never
 * module-level; the database stays the only shared state.
 *
 * One rule keeps it from answering with anything stale:
 * - each entry names the rows it was read from (tags); a committed change names the rows it
 *   touched, and `invalidate` drops every entry depending on one of them. This process's own
 *   writes report themselves after they commit, before their answer is sent; other processes'
 *   writes arrive through the change feed (PostgreSQL's NOTIFY from triggers; SQLite's
 *   data_version, which names no rows and so drops everything);
 * - a read that began before an invalidation of one of its rows may have read the old row, so it
 *   may not store what it read: `epoch` moves at every invalidation, and a store whose epoch is
 *   not current is refused when an invalidation since named one of its tags (the same test that
 *   would have dropped it, had it been stored first), or when the cache no longer remembers
 *   every invalidation since, or was cleared;
 * - while the feed cannot vouch for what is held (PostgreSQL's listening connection is down, or
 *   has not yet listened), nothing is answered from the cache or stored in it, and it is emptied
 *   before it is used again.
 */
export class Cache {
  readonly #entries: LRUCache<string, Entry> | undefined;
  /**
   * Tag → the key of the one entry that depends on it, or the keys of several. Most tags (a site's
   * row, a token's) have one entry: a Set for each would cost more than the tag itself.
   */
  readonly #dependents = new Map<string, string | Set<string>>();
  readonly #feed: ChangeFeed;
  readonly #observers = new Set<CacheObserver>();
  #epoch = 0;
  /** The latest invalidations since the last clear, oldest first: the epoch each moved to, and what it named. */
  readonly #invalidations: Array<{ epoch: number; tags: readonly string[] }> = [];
  /** The epoch the last clear moved to: a read begun before it may not store anything. */
  #clearedAt = 0;

  constructor(options: CacheOptions) {
    this.#feed = options.feed;
    if (options.maxBytes > 0) {
      this.#entries = new LRUCache<string, Entry>({
        maxSize: options.maxBytes,
        ttl: CACHE_TTL_MS,
        // lru-cache reads the time once per this many ms and arms a timer to forget it: at its
        // default of 1 ms, a busy server made a timer each millisecond. A second is nothing to a
        // minute's expiry. A test's own time is read each time, as the test moves it.
        ...(options.time === undefined ? { ttlResolution: TTL_RESOLUTION_MS } : { perf: options.time, ttlResolution: 0 }),
        dispose: (entry, key, reason) => {
          if (reason === 'evict') this.evictions++;
          this.#unindex(key, entry.tags);
        },
      });
    }
    this.#feed.listen({ changed: (tags) => this.invalidate(tags), reset: () => this.clear() });
  }

  /** Adds an observer; the function returned removes it. */
  observe(observer: CacheObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /**
   * Asks the change feed whether it can vouch for the cache now; a feed that learns of other
   * processes' changes by asking (SQLite's counter) tells the observers of any it finds. What
   * depends on hearing of changes while no request comes asks this now and then.
   */
  poll(): boolean {
    return this.available;
  }

  /** A typed view of the entries whose keys start with `prefix`. */
  namespace<Value>(prefix: string): CacheNamespace<Value> {
    return new CacheNamespace<Value>(this, `${prefix}:`);
  }

  /** Taken before a database read whose result may be stored; see `set`. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Whether lookups and stores are served now: the cache is on and its change feed can vouch for it. */
  get available(): boolean {
    return this.#entries !== undefined && this.#feed.ready();
  }

  /** Entries held, the bytes they are counted as, and the tags indexed: for tests of the bound. */
  get size(): number {
    return this.#entries?.size ?? 0;
  }

  get indexedTags(): number {
    return this.#dependents.size;
  }

  get bytes(): number {
    return this.#entries?.calculatedSize ?? 0;
  }

  /** Lookups answered from the cache and not, since the process started (the metrics read them). */
  hits = 0;
  misses = 0;
  /**
   * Why an entry is missing, for whoever reads a low hit rate: entries pushed out by the bound,
   * stores refused because an invalidation came while their read ran, and whole-cache drops
   * (another process's commit on SQLite, PostgreSQL's listener reconnecting).
   */
  evictions = 0;
  refusedStores = 0;
  clears = 0;

  get(key: string): unknown {
    if (this.#entries === undefined || !this.#feed.ready()) {
      this.misses++;
      return undefined;
    }
    const entry = this.#entries.get(key);
    if (entry === undefined) this.misses++;
    else this.hits++;
    return entry?.value;
  }

  set(key: string, value: unknown, options: StoreOptions): void {
    const entries = this.#entries;
    if (entries === undefined || !this.#feed.ready()) return;
    if (options.epoch !== this.#epoch && this.#changedSince(options.epoch, options.tags)) {
      this.refusedStores++;
      return;
    }
    const size = entryCost(key, options.tags, options.size);
    if (size > entries.maxSize) return;
    const entry: Entry = { value, tags: options.tags };
    // A ttl of 0 is lru-cache's "never expires".
    entries.set(key, entry, { size, ttl: options.expires === false ? 0 : entryTtl() });
    // A replaced or evicted entry has left the index already (dispose); this one joins it.
    if (entries.peek(key) !== entry) return;
    for (const tag of options.tags) {
      const keys = this.#dependents.get(tag);
      if (keys === undefined) this.#dependents.set(tag, key);
      else if (typeof keys !== 'string') keys.add(key);
      else if (keys !== key) this.#dependents.set(tag, new Set([keys, key]));
    }
  }

  /**
   * Counts `bytes` more for the entry under `key` while it still holds `value`: memory the value
   * came to hold after it was stored (an answer's compressed copies, made when a client first
   * asks for them). The entry becomes the most recent, and others may be pushed out for it.
   */
  grow(key: string, value: unknown, bytes: number): void {
    const entries = this.#entries;
    const entry = entries?.peek(key);
    if (entries === undefined || entry === undefined || entry.value !== value) return;
    const size = (entries.info(key)?.size ?? 0) + bytes;
    const ttl = entries.getRemainingTTL(key);
    if (size > entries.maxSize) {
      entries.delete(key);
      return;
    }
    // lru-cache takes a new size only with a new value: the same entry, in an object of its own.
    // Not disposed: its key and tags stay in the index as they were.
    entries.set(key, { value, tags: entry.tags }, { size, ttl: Number.isFinite(ttl) ? ttl : 0, noDisposeOnSet: true });
  }

  /** The values held under keys that start with `prefix`, in no particular order. */
  *valuesUnder(prefix: string): Generator<unknown, void, undefined> {
    if (this.#entries === undefined) return;
    for (const [key, entry] of this.#entries.entries()) if (key.startsWith(prefix)) yield entry.value;
  }

  /** Committed changes touched these rows: drops every entry that depends on one of them. */
  invalidate(tags: readonly string[]): void {
    this.#epoch++;
    this.#invalidations.push({ epoch: this.#epoch, tags });
    if (this.#invalidations.length > REMEMBERED_INVALIDATIONS) this.#invalidations.shift();
    if (this.#entries !== undefined) {
      for (const tag of tags) {
        const keys = this.#dependents.get(tag);
        if (keys === undefined) continue;
        this.#dependents.delete(tag);
        if (typeof keys === 'string') this.#entries.delete(keys);
        else for (const key of keys) this.#entries.delete(key);
      }
    }
    for (const observer of this.#observers) observer.invalidated(tags);
  }

  /** Stops listening for changes; nothing is answered from the cache after. */
  close(): Promise<void> {
    this.clear();
    return this.#feed.close();
  }

  /** Drops everything, and refuses what reads already running would store. */
  clear(): void {
    this.#epoch++;
    this.#clearedAt = this.#epoch;
    this.#invalidations.length = 0;
    this.clears++;
    this.#dependents.clear();
    this.#entries?.clear();
    for (const observer of this.#observers) observer.cleared();
  }

  /** Whether rows named by `tags` may have changed since `epoch`, as far as the cache can tell. */
  #changedSince(epoch: number, tags: readonly string[]): boolean {
    if (epoch < this.#clearedAt) return true;
    const oldest = this.#invalidations[0];
    // Invalidations after `epoch` were forgotten: the first one remembered came later than the next.
    if (oldest === undefined || oldest.epoch > epoch + 1) return true;
    for (const invalidation of this.#invalidations) {
      if (invalidation.epoch > epoch && invalidation.tags.some((tag) => tags.includes(tag))) return true;
    }
    return false;
  }

  #unindex(key: string, tags: readonly string[]): void {
    for (const tag of tags) {
      const keys = this.#dependents.get(tag);
      if (keys === undefined) continue;
      if (typeof keys === 'string') {
        if (keys === key) this.#dependents.delete(tag);
        continue;
      }
      keys.delete(key);
      if (keys.size === 0) this.#dependents.delete(tag);
    }
  }
}

/** Entries of one kind (principals by credential, site answers by owner), typed. */
export class CacheNamespace<Value> {
  constructor(
    private readonly cache: Cache,
    private readonly prefix: string,
  ) {}

  /** The cache's epoch (Cache.epoch), taken before a read whose result may be stored here. */
  get epoch(): number {
    return this.cache.epoch;
  }

  get(key: string): Value | undefined {
    // Only `set` below stores under this prefix, always a Value.
    return this.cache.get(this.prefix + key) as Value | undefined;
  }

  set(key: string, value: Value, options: StoreOptions): void {
    this.cache.set(this.prefix + key, value, options);
  }

  grow(key: string, value: Value, bytes: number): void {
    this.cache.grow(this.prefix + key, value, bytes);
  }

  /** Every value held in this namespace (a value kept under two keys comes twice). */
  values(): Iterable<Value> {
    // Only `set` above stores under this prefix, always a Value.
    return this.cache.valuesUnder(this.prefix) as Iterable<Value>;
  }
}
