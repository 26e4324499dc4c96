import type { Kysely } from 'kysely';

/**
 * The details of each partner connection check, the last few per site (src/partner/queries.ts
 * keeps the number). `seq` numbers a site's checks in the order they were recorded: checks of
 * one site are recorded under the site's row lock, so it is max + 1 without races, and it orders
 * checks finished within the same millisecond. Rows go with their site.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('partner_checks')
    .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (column) => column.notNull())
    .addColumn('checked_at', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('category', 'text', (column) => column.notNull())
    .addColumn('message', 'text', (column) => column.notNull())
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('protocol_version', 'text')
    .addColumn('server_name', 'text')
    .addColumn('server_version', 'text')
    .addColumn('tool_count', 'integer')
    .addColumn('tools', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('partner_checks_pkey', ['site_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('partner_checks').execute();
}
