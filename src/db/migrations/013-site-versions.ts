import { type Kysely, sql } from 'kysely';

/**
 * Each site's history: one row per create, update and restore, written in the transaction of the
 * change. A row holds the site as the API showed it after the change (the partner token only as
 * "configured", never a value or ciphertext), the field-level changes, and who made it, how and
 * from where, named as they were then. Rows go with their site; nothing updates them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('site_versions')
    .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('via_type', 'text', (column) => column.notNull().check(sql`via_type in ('session', 'jwt', 'access_token', 'cli', 'system')`))
    .addColumn('via_token_id', 'text')
    .addColumn('via_token_name', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('changes', 'text', (column) => column.notNull())
    .addColumn('site', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('site_versions_pkey', ['site_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('site_versions').execute();
}
