import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { ChangeRequestService } from './service.js';

export interface ScheduledChangesOptions {
  /** How often each app server looks for due requests. */
  pollIntervalMs: number;
  /** How long a claimed request is held: past it (the server died mid-apply) another server takes it. */
  leaseMs: number;
}

export const DEFAULT_SCHEDULED_CHANGES_OPTIONS: ScheduledChangesOptions = { pollIntervalMs: 1_000, leaseMs: 60_000 };

/** How many due requests one look claims. */
const CLAIM_LIMIT = 20;

/**
 * Applies scheduled change requests when they are due. Every app server runs one; each due request
 * is claimed with a lease by one of them, as the webhook sender claims deliveries (PostgreSQL: FOR
 * UPDATE SKIP LOCKED, so servers never wait for each other; SQLite: the write transaction is the
 * claim). The apply itself checks, under the site's and the request's locks, that the request is
 * still scheduled and still this server's: a lease that ran out and was taken over cannot make a
 * second version.
 */
export class ScheduledChanges {
  readonly #owner = randomUUID();
  readonly #options: ScheduledChangesOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(
    private readonly deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; changeRequests: ChangeRequestService; onError: (error: unknown) => void },
    options: Partial<ScheduledChangesOptions> = {},
  ) {
    this.#options = { ...DEFAULT_SCHEDULED_CHANGES_OPTIONS, ...options };
  }

  start(): void {
    this.#timer = setInterval(() => this.poke(), this.#options.pollIntervalMs);
    this.#timer.unref();
  }

  /** Looks for due requests now, unless a look is under way. */
  poke(): void {
    if (this.#closed || this.#running !== undefined) return;
    this.#running = this.drain()
      .then(() => undefined, this.deps.onError)
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Applies the due requests this server claims; resolves with how many it handled. */
  async drain(): Promise<number> {
    let handled = 0;
    while (!this.#closed) {
      const claimed = await this.#claim();
      if (claimed.length === 0) break;
      // One by one: requests on one site must apply in the order they were due.
      for (const request of claimed) await this.deps.changeRequests.applyScheduled(request, this.#owner);
      handled += claimed.length;
    }
    return handled;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  #claim(): Promise<Array<{ id: string; site_id: string; workspace_id: string }>> {
    const now = this.deps.clock.now();
    const nowText = now.toISOString();
    return this.deps.db.transaction().execute(async (trx) => {
      // Literal 'scheduled': the partial index on it is used only when the planner sees the value.
      const scheduled = sql.lit<'scheduled'>('scheduled');
      let query = trx
        .selectFrom('change_requests')
        .select(['id', 'site_id', 'workspace_id'])
        .where('status', '=', scheduled)
        .where('scheduled_at', '<=', nowText)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', nowText)]))
        .orderBy('scheduled_at')
        .orderBy('id')
        .limit(CLAIM_LIMIT);
      if (this.deps.dialect === 'postgres') query = query.forUpdate().skipLocked();
      const rows = await query.execute();
      if (rows.length === 0) return [];
      await trx
        .updateTable('change_requests')
        .set({ lease_owner: this.#owner, lease_until: new Date(now.getTime() + this.#options.leaseMs).toISOString() })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows;
    });
  }
}
