import type { Kysely } from 'kysely';

/**
 * What reaches the public path, per site: configurations answered (200), revalidations (304),
 * event streams opened and the most open at once, per hour (kept 14 days) and per UTC day (kept
 * USAGE_RETENTION_DAYS), with the loads per page origin at the same two grains. Each app server
 * counts in memory and adds its counts every 30 s (src/usage/counter.ts). `usage_live_streams`
 * holds each server's open streams per site, reported every few seconds; a row older than 15 s
 * is a stopped server's and is not read. Times are ISO 8601 in UTC: hours and days are the start
 * of their bucket. Everything goes with its site.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['usage_hourly', 'usage_daily']) {
    await db.schema
      .createTable(table)
      .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
      .addColumn('at', 'text', (column) => column.notNull())
      .addColumn('loads', 'integer', (column) => column.notNull())
      .addColumn('not_modified', 'integer', (column) => column.notNull())
      .addColumn('streams_opened', 'integer', (column) => column.notNull())
      .addColumn('peak_streams', 'integer', (column) => column.notNull())
      // When a configuration was last answered (200 or 304), to the precision of a write; null when none was.
      .addColumn('last_loaded_at', 'text')
      .addPrimaryKeyConstraint(`${table}_pkey`, ['site_id', 'at'])
      .execute();
    // Retention deletes by time alone.
    await db.schema.createIndex(`${table}_at`).on(table).column('at').execute();
  }
  for (const table of ['usage_origins_hourly', 'usage_origins_daily']) {
    await db.schema
      .createTable(table)
      .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
      .addColumn('at', 'text', (column) => column.notNull())
      .addColumn('origin', 'text', (column) => column.notNull())
      .addColumn('loads', 'integer', (column) => column.notNull())
      .addColumn('last_seen', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint(`${table}_pkey`, ['site_id', 'at', 'origin'])
      .execute();
    await db.schema.createIndex(`${table}_at`).on(table).column('at').execute();
  }
  await db.schema
    .createTable('usage_live_streams')
    .addColumn('server_id', 'text', (column) => column.notNull())
    .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('open_streams', 'integer', (column) => column.notNull())
    .addColumn('reported_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('usage_live_streams_pkey', ['server_id', 'site_id'])
    .execute();
  await db.schema.createIndex('usage_live_streams_site').on('usage_live_streams').columns(['site_id', 'reported_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['usage_live_streams', 'usage_origins_daily', 'usage_origins_hourly', 'usage_daily', 'usage_hourly']) await db.schema.dropTable(table).execute();
}
