import type { Kysely, Transaction } from 'kysely';
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
