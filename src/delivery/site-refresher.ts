import type { Cache } from '../cache/cache.js';

/** Sites re-read in one query at most. */
const READ_BATCH = 500;

/**
 * The re-reading of the sites a set of event streams shows (the public ones and the members'):
 * sites marked as changed are read in batches, by one task at a time, after the write that reported
 * the change has finished its turn; a site marked again while a batch is read joins the next one. A
 * failed batch is marked again and read at the next poll. The poll asks the change feed for other
 * processes' changes and, while the feed cannot vouch for anything (PostgreSQL's listener is away,
 * or the cache is off), re-reads every site instead, at most once per `databasePollIntervalMs`.
 */
export class SiteRefresher {
  /** Sites whose version must be read again. */
  readonly #pending = new Set<string>();
  #refreshing = false;
  /** performance.now() of the last read of every site while the feed could not vouch. */
  #lastDatabasePoll = 0;
  #stopped = false;

  constructor(
    private readonly deps: {
      cache: Cache;
      log: { warn(details: { err: unknown }, message: string): void };
      /** The streams' channels, by site id: the sites that have open streams now. */
      channels: ReadonlyMap<string, unknown>;
      /** Reads the sites again and sends what changed to their streams. */
      read: (siteIds: readonly string[]) => Promise<void>;
      /** Logged when a batch cannot be read. */
      failure: string;
    },
    /** As the streams' options (PublicStreamOptions) say it. */
    private readonly options: { databasePollIntervalMs: number },
  ) {}

  /** Reads these sites again, soon. */
  refresh(siteIds: Iterable<string>): void {
    for (const siteId of siteIds) this.#pending.add(siteId);
    this.#schedule();
  }

  /** Reads every site with open streams again, soon: a change the feed could not place. */
  refreshAll(): void {
    if (this.#stopped) return;
    this.refresh(this.deps.channels.keys());
  }

  /** The poll timer's turn. */
  poll(): void {
    if (this.#stopped || this.deps.channels.size === 0) return;
    // SQLite's counter is read here, and a move reported to the observers (which call refreshAll).
    // While the feed cannot vouch for anything, no change may be heard: the sites are read instead.
    if (this.deps.cache.poll()) {
      this.#schedule();
      return;
    }
    const now = performance.now();
    if (now - this.#lastDatabasePoll < this.options.databasePollIntervalMs) return;
    this.#lastDatabasePoll = now;
    this.refreshAll();
  }

  stop(): void {
    this.#stopped = true;
  }

  #schedule(): void {
    if (this.#pending.size === 0 || this.#refreshing || this.#stopped) return;
    this.#refreshing = true;
    // After the write that reported the change has finished its turn (its answer is on its way).
    setImmediate(() => void this.#refresh());
  }

  async #refresh(): Promise<void> {
    try {
      while (this.#pending.size > 0 && !this.#stopped) {
        const batch = [...this.#pending].slice(0, READ_BATCH);
        for (const siteId of batch) this.#pending.delete(siteId);
        try {
          await this.deps.read(batch);
        } catch (error) {
          // Tried again at the next poll: the database may be away for a moment.
          for (const siteId of batch) if (this.deps.channels.has(siteId)) this.#pending.add(siteId);
          this.deps.log.warn({ err: error }, this.deps.failure);
          return;
        }
      }
    } finally {
      this.#refreshing = false;
    }
  }
}
