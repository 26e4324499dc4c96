import { type Kysely, sql, type Transaction } from 'kysely';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database } from '../db/schema.js';
import type { SiteRow } from '../sites/queries.js';

/** The columns of a site the public path reads: its public groups and what identifies and versions them. */
export interface PublicSiteRow {
  id: string;
  workspace_id: string;
  name: string;
  color: string;
  widget: string;
  portal: string;
  branding: string;
  public_theme: string;
  version: number;
  updated_at: string;
  public_key: string;
  previous_public_key: string | null;
  previous_public_key_expires_at: string | null;
}

// Only these columns are read for a visitor: the other settings, the partner token and the
// people of a site never leave the database on the public path.
const PUBLIC_COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'color',
  'widget',
  'portal',
  'branding',
  'public_theme',
  'version',
  'updated_at',
  'public_key',
  'previous_public_key',
  'previous_public_key_expires_at',
] as const;

// Each key has a unique index; a live site only (a trashed site's keys answer nothing).
const siteByPublicKey = new PreparedQuery((db, p: { key: string }) =>
  db
    .selectFrom('sites')
    .select(PUBLIC_COLUMNS)
    .where((eb) => eb.or([eb('public_key', '=', p.key), eb('previous_public_key', '=', p.key)]))
    .where('deleted_at', 'is', null),
);

/** The live site whose current or previous key this is; whether the previous one still answers is the caller's rule. */
export function findSiteByPublicKey(db: Kysely<Database>, key: string): Promise<PublicSiteRow | undefined> {
  return siteByPublicKey.executeTakeFirst(db, { key });
}

/** The public columns of live sites by id: what a stream re-reads after a change it cannot place. */
export function findPublicSites(db: Kysely<Database>, ids: readonly string[]): Promise<PublicSiteRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('sites').select(PUBLIC_COLUMNS).where('id', 'in', ids).where('deleted_at', 'is', null).execute();
}

/** The versions of live sites by id: what the event streams compare with the versions they sent. */
export function findSiteVersions(db: Kysely<Database>, ids: readonly string[]): Promise<Array<{ id: string; version: number }>> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('sites').select(['id', 'version']).where('id', 'in', ids).where('deleted_at', 'is', null).execute();
}

/**
 * Replaces the key of a site read with findSiteForUpdate, in the same transaction. The version
 * moves, since the site's representation (its key) changed; updated_at does not, since it records
 * changes to the configuration.
 */
export async function replacePublicKey(trx: Transaction<Database>, site: SiteRow, key: string, previousExpiresAt: string): Promise<SiteRow> {
  const changes = { public_key: key, previous_public_key: site.public_key, previous_public_key_expires_at: previousExpiresAt, version: site.version + 1 };
  await trx.updateTable('sites').set(changes).where('workspace_id', '=', site.workspace_id).where('id', '=', site.id).execute();
  return { ...site, ...changes };
}

/** Origins a site keeps, the ones seen most recently: what the Install section lists. */
export const ORIGINS_KEPT_PER_SITE = 20;

/**
 * Records that `origins` fetched the site's configuration at `seenAt`: one statement per origin,
 * in the caller's transaction, for a live or trashed site only (a site deleted meanwhile takes
 * nothing). Another server's later sighting is kept if it is later.
 */
export async function recordPublicOrigins(trx: Transaction<Database>, siteId: string, origins: readonly string[], seenAt: string): Promise<void> {
  for (const origin of origins) {
    await trx
      .insertInto('site_public_origins')
      .columns(['site_id', 'origin', 'last_seen_at'])
      .expression((eb) => eb.selectFrom('sites').select([eb.val(siteId).as('site_id'), eb.val(origin).as('origin'), eb.val(seenAt).as('last_seen_at')]).where('id', '=', siteId))
      .onConflict((conflict) =>
        conflict.columns(['site_id', 'origin']).doUpdateSet({
          // Times are ISO 8601 in UTC, which sort as text; one CASE for both databases (SQLite's max() is PostgreSQL's greatest()).
          last_seen_at: sql<string>`case when excluded.last_seen_at > site_public_origins.last_seen_at then excluded.last_seen_at else site_public_origins.last_seen_at end`,
        }),
      )
      .execute();
  }
  // The oldest go past the bound: a page that stopped embedding the site long ago is no longer news.
  await trx
    .deleteFrom('site_public_origins')
    .where('site_id', '=', siteId)
    .where('origin', 'not in', (eb) =>
      eb.selectFrom('site_public_origins').select('origin').where('site_id', '=', siteId).orderBy('last_seen_at', 'desc').orderBy('origin').limit(ORIGINS_KEPT_PER_SITE),
    )
    .execute();
}

/** The origins a site was fetched from, most recent first. */
export function listPublicOrigins(db: Kysely<Database>, siteId: string): Promise<Array<{ origin: string; last_seen_at: string }>> {
  return db
    .selectFrom('site_public_origins')
    .select(['origin', 'last_seen_at'])
    .where('site_id', '=', siteId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('origin')
    .limit(ORIGINS_KEPT_PER_SITE)
    .execute();
}
