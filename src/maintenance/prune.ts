import type { Kysely } from 'kysely';
import { pruneAuditEvents } from '../audit/queries.js';
import { purgeTrashedSites } from '../sites/queries.js';
import { pruneSecurityEvents } from '../security/queries.js';
import { pruneDeliveries } from '../webhooks/queries.js';
import { pruneExpired } from '../auth/queries.js';
import { pruneAuthorizationRequests } from '../oidc/queries.js';
import type { RateLimiter } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Ended webhook deliveries stay in the delivery log this long; pending ones stay until they end. */
const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

/**
 * Deletes what can no longer matter: rate-limit windows, sessions and one-time tokens that ended
 * more than a day ago, single sign-on requests nobody finished in time, audit and security events past their retention (AUDIT_RETENTION_DAYS),
 * sites in the trash past theirs (with their history), and webhook deliveries that ended 30 days ago. Without it those tables grow with every address, sign-in and change ever seen.
 */
export async function pruneStaleRows(db: Kysely<Database>, limiter: RateLimiter, clock: Clock, retention: { auditDays: number; trashDays: number }): Promise<void> {
  const now = clock.now().getTime();
  await limiter.prune(DAY_MS);
  await pruneExpired(db, new Date(now - DAY_MS).toISOString());
  await pruneAuthorizationRequests(db, new Date(now).toISOString());
  await pruneAuditEvents(db, new Date(now - retention.auditDays * DAY_MS));
  await pruneSecurityEvents(db, new Date(now - retention.auditDays * DAY_MS));
  await purgeTrashedSites(db, new Date(now - retention.trashDays * DAY_MS).toISOString());
  await pruneDeliveries(db, new Date(now - WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS));
}
