import type { Kysely } from 'kysely';

/**
 * Each account's security history (GET /api/v1/me/security-events): sign-ins and their failures,
 * credential changes, a take-over. Rows are never updated; retention deletes them, and they go
 * with their account. None holds a secret: the recorder is given none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('security_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('at', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('method', 'text')
    .addColumn('credential', 'text')
    .addColumn('reason', 'text')
    .addColumn('ip', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text', (column) => column.notNull())
    .addColumn('details', 'text', (column) => column.notNull())
    .execute();
  // An account's events newest first (ids are UUIDv7); retention deletes by id, which is time.
  await db.schema.createIndex('security_events_user').on('security_events').columns(['user_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('security_events').execute();
}
