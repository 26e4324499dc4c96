import { type Kysely, sql } from 'kysely';

/**
 * The workspace audit log: one row per change to a workspace, its members, invitations or sites,
 * written in the transaction of the change. Rows are never updated; only retention deletes them.
 * Who acted is kept as it was then (id, address, name, and the access token's name), not as a
 * reference: the record outlives the account and the token. Rows go with their workspace.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('at', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('via_type', 'text', (column) => column.notNull().check(sql`via_type in ('session', 'jwt', 'access_token', 'cli', 'system')`))
    .addColumn('via_token_id', 'text')
    .addColumn('via_token_name', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('target_type', 'text', (column) => column.notNull())
    .addColumn('target_id', 'text', (column) => column.notNull())
    .addColumn('target_name', 'text', (column) => column.notNull())
    .addColumn('details', 'text', (column) => column.notNull())
    .execute();
  // Newest first (ids are UUIDv7, ordered by time), for the whole log and for each filter.
  await db.schema.createIndex('audit_events_workspace').on('audit_events').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('audit_events_workspace_action').on('audit_events').columns(['workspace_id', 'action', 'id']).execute();
  await db.schema.createIndex('audit_events_workspace_actor').on('audit_events').columns(['workspace_id', 'actor_id', 'id']).execute();
  // Retention deletes by age.
  await db.schema.createIndex('audit_events_at').on('audit_events').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
}
