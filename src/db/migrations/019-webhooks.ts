import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Workspace webhooks and their outbox. A delivery row is written in the transaction of the change
 * it reports, so a change never commits without its deliveries and a rolled-back change leaves
 * none; senders on every app server claim due rows with a lease. Each delivery's `seq` is taken
 * from a database sequence while the change holds its site's row lock, so it orders the changes of
 * one site as they committed (ids made from each server's clock could not).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('url', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull())
    // JSON array of event types.
    .addColumn('events', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer', (column) => column.notNull())
    // Signing secrets, AES-256-GCM encrypted and bound to the webhook's id; the previous one signs too until it expires.
    .addColumn('secret', 'text', (column) => column.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    // Since when every attempt has failed; null after a success.
    .addColumn('failing_since', 'text')
    // Why Siteward turned it off ('failing'); null when enabled or turned off by a person.
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('webhooks_workspace').on('webhooks').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (column) => (postgres ? column.primaryKey() : column.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (column) => column.notNull().unique())
    .addColumn('webhook_id', 'text', (column) => column.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (column) => column.notNull())
    // Deliveries with the same key go out one at a time, in seq order: a site's id, or the delivery's own.
    .addColumn('order_key', 'text', (column) => column.notNull())
    // The exact body sent on every attempt.
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn('attempt_count', 'integer', (column) => column.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  // A webhook's deliveries, newest first (the delivery log).
  await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'seq']).execute();
  // What the senders look at: only pending rows, by due time, and the ones ahead of each in its order.
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['next_attempt_at']).where(sql.ref('status'), '=', 'pending').execute();
  await db.schema
    .createIndex('webhook_deliveries_queue')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'order_key', 'seq'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('delivery_id', 'text', (column) => column.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('at', 'text', (column) => column.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
