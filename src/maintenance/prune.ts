import type { Kysely } from 'kysely';
import { pruneExpired } from '../auth/queries.js';
import type { RateLimiter } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes what can no longer matter: rate-limit windows, sessions and one-time tokens that ended
 * more than a day ago. Without it those tables grow with every address and sign-in ever seen.
 */
export async function pruneStaleRows(db: Kysely<Database>, limiter: RateLimiter, clock: Clock): Promise<void> {
  await limiter.prune(DAY_MS);
  await pruneExpired(db, new Date(clock.now().getTime() - DAY_MS).toISOString());
}
