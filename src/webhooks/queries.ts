import type { Kysely, Transaction } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';

export type WebhookRow = WebhooksTable;
export type DeliveryRow = Omit<WebhookDeliveriesTable, 'seq'> & { seq: number };
export type AttemptRow = WebhookAttemptsTable;
type Db = Kysely<Database> | Transaction<Database>;

export function listWebhooks(db: Db, workspaceId: string): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export async function countWebhooks(db: Db, workspaceId: string): Promise<number> {
  const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number | string>().as('count')).where('workspace_id', '=', workspaceId).executeTakeFirst();
  return Number(row?.count ?? 0);
}

export function findWebhook(db: Db, workspaceId: string, webhookId: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', webhookId).executeTakeFirst();
}

export async function insertWebhook(db: Db, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Db, webhookId: string, changes: Partial<WebhookRow>): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('id', '=', webhookId).execute();
}

export async function deleteWebhook(db: Db, webhookId: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', webhookId).execute();
}

/** A webhook's deliveries, newest first, older than the `before` delivery when given. */
export async function listDeliveries(db: Db, webhookId: string, beforeSeq: number | undefined, limit: number): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (beforeSeq !== undefined) query = query.where('seq', '<', beforeSeq);
  return (await query.orderBy('seq', 'desc').limit(limit).execute()) as DeliveryRow[];
}

export async function findDelivery(db: Db, webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return (await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', deliveryId).executeTakeFirst()) as DeliveryRow | undefined;
}

/** The attempts of these deliveries, oldest first. */
/** A delivery queued outside the outbox's publishing (a test event). */
export async function insertDelivery(db: Db, row: Omit<DeliveryRow, 'seq'>): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/** A delivery sent again from its first attempt, due now. */
export async function requeueDelivery(db: Db, deliveryId: string, now: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'pending', attempt_count: 0, next_attempt_at: now }).where('id', '=', deliveryId).execute();
}

export async function listAttempts(db: Db, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('id').execute();
}

/** Retention: deliveries that ended before the cut-off, with their attempts. Pending ones stay, however old. */
export async function pruneDeliveries(db: Kysely<Database>, olderThan: Date): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('status', '<>', 'pending').where('created_at', '<', olderThan.toISOString()).execute();
}
