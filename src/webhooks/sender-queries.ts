import { type Kysely, sql, type Transaction } from 'kysely';
import type { DialectName } from '../db/connect.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database } from '../db/schema.js';
import type { WebhookRow } from './queries.js';

/** A delivery claimed for an attempt, with what sending it needs of its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  attempt_count: number;
  payload: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

const dueDelivery = new PreparedQuery((db, p: { now: string }) =>
  db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', sql.lit<'pending'>('pending'))
    .where('next_attempt_at', '<=', p.now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', p.now)]))
    .limit(1),
);

/**
 * Whether any delivery is due and unleased, whatever its webhook and order: the sender's look
 * before it claims, one indexed read that takes no lock, made by every idle server at each poll.
 */
export async function anyDeliveryDue(db: Kysely<Database>, now: string): Promise<boolean> {
  return (await dueDelivery.execute(db, { now })).length > 0;
}

/**
 * Up to `limit` due deliveries of enabled webhooks, oldest first, without a live lease and with no
 * earlier pending delivery of the same order key (a site's events go one at a time, in order).
 * PostgreSQL locks them FOR UPDATE SKIP LOCKED, so servers never wait for each other; on SQLite
 * the write transaction is the claim.
 */
export function findDueDeliveries(trx: Transaction<Database>, dialect: DialectName, now: string, limit: number): Promise<ClaimedDelivery[]> {
  // Literal 'pending': the partial indexes on it are used only when the planner sees the value.
  const pending = sql.lit<'pending'>('pending');
  let query = trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select(['d.id', 'd.webhook_id', 'd.attempt_count', 'd.payload', 'w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_expires_at'])
    .where('d.status', '=', pending)
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', now)]))
    .where('w.enabled', '=', 1)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as earlier')
            .select('earlier.seq')
            .whereRef('earlier.webhook_id', '=', 'd.webhook_id')
            .whereRef('earlier.order_key', '=', 'd.order_key')
            .where('earlier.status', '=', pending)
            .whereRef('earlier.seq', '<', 'd.seq'),
        ),
      ),
    )
    .orderBy('d.seq')
    .limit(limit);
  if (dialect === 'postgres') query = query.forUpdate('d').skipLocked();
  return query.execute();
}

/** Leases the deliveries to `owner` until `until`: another sender takes them only once it runs out. */
export async function leaseDeliveries(trx: Transaction<Database>, ids: readonly string[], owner: string, until: string): Promise<void> {
  await trx.updateTable('webhook_deliveries').set({ lease_owner: owner, lease_until: until }).where('id', 'in', ids).execute();
}

/**
 * Ends an attempt on a delivery `owner` still holds: its status and next attempt, the count, the
 * lease released. False when the lease ran out and another sender took it, or it was deleted.
 */
export async function finishAttempt(
  trx: Transaction<Database>,
  deliveryId: string,
  owner: string,
  next: { status: 'succeeded' | 'failed' | 'pending'; next_attempt_at: string | null; attempt_count: number },
): Promise<boolean> {
  const updated = await trx
    .updateTable('webhook_deliveries')
    .set({ ...next, lease_owner: null, lease_until: null })
    .where('id', '=', deliveryId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

export async function insertAttempt(
  trx: Transaction<Database>,
  attempt: { id: string; delivery_id: string; at: string; response_status: number | null; duration_ms: number; error: string | null },
): Promise<void> {
  await trx.insertInto('webhook_attempts').values(attempt).execute();
}

export function findWebhookById(db: Kysely<Database>, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A webhook's failing streak: cleared by a success, started (if not already) by a failure. */
export async function clearFailingSince(trx: Transaction<Database>, webhookId: string): Promise<void> {
  await trx.updateTable('webhooks').set({ failing_since: null }).where('id', '=', webhookId).where('failing_since', 'is not', null).execute();
}

export async function setFailingSince(trx: Transaction<Database>, webhookId: string, since: string): Promise<void> {
  await trx.updateTable('webhooks').set({ failing_since: since }).where('id', '=', webhookId).execute();
}

/** Turns off a webhook whose attempts have all failed for too long. */
export async function disableFailingWebhook(trx: Transaction<Database>, webhookId: string, now: string): Promise<void> {
  await trx.updateTable('webhooks').set({ enabled: 0, disabled_reason: 'failing', updated_at: now }).where('id', '=', webhookId).execute();
}
