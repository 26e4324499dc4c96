import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { generatePublicKey } from '../../lib/public-keys.js';

/**
 * Each site's publishable key (src/lib/public-keys.ts), by which visitors' browsers fetch its
 * public configuration, and the key it replaced, which keeps answering until
 * `previous_public_key_expires_at`. Existing sites get a key each here.
 *
 * SQLite adds a NOT NULL column only with a default; '' is never a key, and the unique index
 * refuses a second row left with it. PostgreSQL drops the default once every row has its key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sites add column public_key text not null default ''`.execute(db);
  await db.schema.alterTable('sites').addColumn('previous_public_key', 'text').execute();
  await db.schema.alterTable('sites').addColumn('previous_public_key_expires_at', 'text').execute();
  const sites = await sql<{ id: string }>`select id from sites`.execute(db);
  for (const site of sites.rows) {
    await sql`update sites set public_key = ${generatePublicKey()} where id = ${site.id}`.execute(db);
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`alter table sites alter column public_key drop default`.execute(db);
  await db.schema.createIndex('sites_public_key').on('sites').column('public_key').unique().execute();
  await db.schema.createIndex('sites_previous_public_key').on('sites').column('previous_public_key').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sites_previous_public_key').execute();
  await db.schema.dropIndex('sites_public_key').execute();
  await db.schema.alterTable('sites').dropColumn('previous_public_key_expires_at').execute();
  await db.schema.alterTable('sites').dropColumn('previous_public_key').execute();
  await db.schema.alterTable('sites').dropColumn('public_key').execute();
}
