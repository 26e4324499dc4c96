import type { Kysely } from 'kysely';
import type { BackgroundJob } from '../background/jobs.js';
import { type LeaseOptions, LeasedWork } from '../background/leased-work.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { findDueScheduledRequests, leaseChangeRequests, renewChangeRequestLeases } from './queries.js';
import type { ChangeRequestService } from './service.js';

export type ScheduledChangesOptions = LeaseOptions;

/**
 * A short lease, renewed while the apply runs: a server that dies holding claimed requests leaves
 * them to another server after at most 14 s, which finds them within its next look, a second later.
 * A due request is thus applied at most 15 s late after a crash (docs/deployment.md). Renewed three
 * times a lease, so one slow renewal (SQLite's write lock, a busy pool) does not lose it.
 */
export const DEFAULT_SCHEDULED_CHANGES_OPTIONS: ScheduledChangesOptions = { pollIntervalMs: 1_000, leaseMs: 14_000, renewIntervalMs: 4_000 };

/** How many due requests one look claims. */
const CLAIM_LIMIT = 20;

/**
 * Applies scheduled change requests when they are due. Every app server runs one; each due request
 * is claimed with a lease by one of them, as the webhook sender claims deliveries (LeasedWork). The
 * apply itself checks, under the site's and the request's locks, that the request is still
 * scheduled and still this server's: a lease that ran out and was taken over cannot make a second
 * version.
 */
export class ScheduledChanges implements BackgroundJob {
  readonly #work: LeasedWork<{ id: string; site_id: string; workspace_id: string }>;

  constructor(deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; changeRequests: ChangeRequestService; onError: (error: unknown) => void }, options: Partial<ScheduledChangesOptions> = {}) {
    this.#work = new LeasedWork(
      deps,
      {
        due: (trx, now) => findDueScheduledRequests(trx, deps.dialect, now, CLAIM_LIMIT),
        lease: leaseChangeRequests,
        renew: renewChangeRequestLeases,
        // One by one: requests on one site must apply in the order they were due.
        handle: async (claimed, owner) => {
          for (const request of claimed) await deps.changeRequests.applyScheduled(request, owner);
        },
      },
      { ...DEFAULT_SCHEDULED_CHANGES_OPTIONS, ...options },
    );
  }

  /** This server's name in the leases it takes. */
  get owner(): string {
    return this.#work.owner;
  }

  start(): void {
    this.#work.start();
  }

  /** Looks for due requests now, unless a look is under way. */
  poke(): void {
    this.#work.poke();
  }

  /** Applies the due requests this server claims; resolves with how many it handled. */
  drain(): Promise<number> {
    return this.#work.drain();
  }

  close(): Promise<void> {
    return this.#work.close();
  }
}
