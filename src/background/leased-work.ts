import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { BackgroundJob } from './jobs.js';

export interface LeaseOptions {
  /** How often every app server looks for due work. */
  pollIntervalMs: number;
  /** How long claimed work is held: past it (the server died mid-way) another server takes it. */
  leaseMs: number;
  /**
   * How often a lease is extended by `leaseMs` while its work runs, when the work can renew
   * (`renew`; without both, a lease is never extended). The lease can then be short: a server
   * that dies leaves its work to another after at most `leaseMs`, while work that outlasts one
   * lease stays with the server doing it.
   */
  renewIntervalMs?: number;
}

/** How one kind of leased work is claimed and done. */
export interface LeasedWorkSteps<Item extends { id: string }> {
  /**
   * In the claim's transaction: the items due at `now` without a live lease, locked FOR UPDATE
   * SKIP LOCKED on PostgreSQL so servers never wait for each other (on SQLite the write
   * transaction is the claim).
   */
  due(trx: Transaction<Database>, now: string): Promise<Item[]>;
  /**
   * Whether anything may be due at `now`: a read outside any transaction, asked before the claim's
   * so that a server with nothing to do takes no write lock (SQLite) and runs no locking query. It
   * may say yes when `due` finds nothing, never no when `due` would find something.
   */
  anyDue?(db: Kysely<Database>, now: string): Promise<boolean>;
  /** In the same transaction: the items leased to `owner` until `until`. */
  lease(trx: Transaction<Database>, ids: readonly string[], owner: string, until: string): Promise<void>;
  /**
   * Extends to `until` the leases of those of `ids` still leased to `owner` (neither done nor
   * taken over by another server). Without it a lease is never extended, and `leaseMs` must cover
   * the longest the work of one claim takes.
   */
  renew?(db: Kysely<Database>, ids: readonly string[], owner: string, until: string): Promise<void>;
  /** Does the claimed items, holding no lock; the work itself checks that the lease is still its own. */
  handle(items: Item[], owner: string): Promise<void>;
}

/**
 * Work every app server looks for and exactly one of them does: a server claims due items with a
 * lease in a short transaction, then does them without holding any lock. A server that dies
 * mid-way leaves a lease that runs out, and another server takes the items. The webhook sender's
 * deliveries and the scheduled change requests are such work.
 */
export class LeasedWork<Item extends { id: string }> implements BackgroundJob {
  /** This server's name in the leases it takes. */
  readonly owner = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(
    private readonly deps: { db: Kysely<Database>; clock: Clock; onError: (error: unknown) => void },
    private readonly steps: LeasedWorkSteps<Item>,
    private readonly options: LeaseOptions,
  ) {}

  start(): void {
    this.#timer = setInterval(() => this.poke(), this.options.pollIntervalMs);
    this.#timer.unref();
  }

  /** Looks for due work now, unless a look is under way. */
  poke(): void {
    if (this.#closed || this.#running !== undefined) return;
    this.#running = this.drain()
      .then(() => undefined, this.deps.onError)
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Claims and does due work until none is left; resolves with how many items were done. */
  async drain(): Promise<number> {
    let done = 0;
    while (!this.#closed) {
      const claimed = await this.#claim();
      if (claimed.length === 0) break;
      await this.#handleRenewing(claimed);
      done += claimed.length;
    }
    return done;
  }

  /** Stops looking and waits for the work under way. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  /** Does the claimed items, renewing their leases every `renewIntervalMs` until the work ends. */
  async #handleRenewing(claimed: Item[]): Promise<void> {
    const renew = this.steps.renew;
    const interval = this.options.renewIntervalMs;
    if (renew === undefined || interval === undefined) return this.steps.handle(claimed, this.owner);
    const ids = claimed.map((item) => item.id);
    let renewing: Promise<void> | undefined;
    const timer = setInterval(() => {
      // A renewal still waiting (for SQLite's write lock) is not doubled.
      if (renewing !== undefined) return;
      renewing = renew(this.deps.db, ids, this.owner, this.#leaseEnd())
        .catch(this.deps.onError)
        .finally(() => {
          renewing = undefined;
        });
    }, interval);
    timer.unref();
    try {
      await this.steps.handle(claimed, this.owner);
    } finally {
      clearInterval(timer);
      await renewing;
    }
  }

  /** When a lease taken or renewed now runs out. */
  #leaseEnd(): string {
    return new Date(this.deps.clock.now().getTime() + this.options.leaseMs).toISOString();
  }

  async #claim(): Promise<Item[]> {
    const now = this.deps.clock.now();
    const until = new Date(now.getTime() + this.options.leaseMs).toISOString();
    if (this.steps.anyDue !== undefined && !(await this.steps.anyDue(this.deps.db, now.toISOString()))) return [];
    return this.deps.db.transaction().execute(async (trx) => {
      const items = await this.steps.due(trx, now.toISOString());
      if (items.length > 0) await this.steps.lease(trx, items.map((item) => item.id), this.owner, until);
      return items;
    });
  }
}
