import type { Kysely } from 'kysely';

/**
 * Where each site's public configuration was last fetched from: the origins of the pages that
 * embed it (their Origin or Referer), with when each was last seen. Written in batches by each app
 * server (src/delivery/origins.ts), a few per site; they go with their site.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('site_public_origins')
    .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('origin', 'text', (column) => column.notNull())
    .addColumn('last_seen_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('site_public_origins_pkey', ['site_id', 'origin'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('site_public_origins').execute();
}
