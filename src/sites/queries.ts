import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { type DialectName, forUpdate, limitParameter } from '../db/connect.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database, SitesTable } from '../db/schema.js';

export type SiteRow = Selectable<SitesTable>;

// Every query names the owner: a site id alone never reaches another user's row.

export function insertSite(db: Kysely<Database>, row: SiteRow): Promise<unknown> {
  return db.insertInto('sites').values(row).execute();
}

// The statements behind GET and PUT /api/v1/sites(/{id}), built and compiled once (db/prepared-query.ts).
const siteById = new PreparedQuery((db, p: { userId: string; id: string }) =>
  db.selectFrom('sites').selectAll().where('user_id', '=', p.userId).where('id', '=', p.id),
);
const firstSitesPage = new PreparedQuery((db, p: { userId: string; limit: number }) =>
  db.selectFrom('sites').selectAll().where('user_id', '=', p.userId).orderBy('id').limit(limitParameter(p.limit)),
);
const laterSitesPage = new PreparedQuery((db, p: { userId: string; afterId: string; limit: number }) =>
  db.selectFrom('sites').selectAll().where('user_id', '=', p.userId).where('id', '>', p.afterId).orderBy('id').limit(limitParameter(p.limit)),
);
const siteForUpdateIn = (dialect: DialectName) =>
  new PreparedQuery((db, p: { userId: string; id: string }) =>
    forUpdate(dialect, db.selectFrom('sites').selectAll().where('user_id', '=', p.userId).where('id', '=', p.id)),
  );
const siteForUpdate: Record<DialectName, ReturnType<typeof siteForUpdateIn>> = { sqlite: siteForUpdateIn('sqlite'), postgres: siteForUpdateIn('postgres') };
// Every column a PUT may change, always all of them: one statement shape, so it is prepared once.
// Both databases rewrite the whole row on any update, so writing unchanged columns costs nothing more.
const siteSave = new PreparedQuery((db, site: SiteRow) =>
  db
    .updateTable('sites')
    .set({
      name: site.name,
      color: site.color,
      ai_settings: site.ai_settings,
      email_settings: site.email_settings,
      widget: site.widget,
      portal: site.portal,
      branding: site.branding,
      public_theme: site.public_theme,
      knowledge_sources: site.knowledge_sources,
      partner_settings: site.partner_settings,
      partner_access_token: site.partner_access_token,
      partner_token_origins: site.partner_token_origins,
      version: site.version,
      updated_at: site.updated_at,
    })
    .where('user_id', '=', site.user_id)
    .where('id', '=', site.id),
);

export function findSite(db: Kysely<Database>, userId: string, id: string): Promise<SiteRow | undefined> {
  return siteById.executeTakeFirst(db, { userId, id });
}

/** The row, locked until the transaction ends, so a read-merge-write cannot interleave. */
export function findSiteForUpdate(trx: Transaction<Database>, dialect: DialectName, userId: string, id: string): Promise<SiteRow | undefined> {
  return siteForUpdate[dialect].executeTakeFirst(trx, { userId, id });
}

/** One page in id order (ids are time-ordered), starting after `afterId`. */
export function listSites(db: Kysely<Database>, userId: string, limit: number, afterId: string | undefined): Promise<SiteRow[]> {
  return afterId === undefined ? firstSitesPage.execute(db, { userId, limit }) : laterSitesPage.execute(db, { userId, afterId, limit });
}

/**
 * Writes a site read with findSiteForUpdate and merged, in the same transaction: every column a
 * client may change is written, so a change made by another writer in between would be lost, were
 * the row not locked since it was read.
 */
export function saveSite(trx: Transaction<Database>, site: SiteRow): Promise<unknown> {
  return siteSave.execute(trx, site);
}

export function updateSite(trx: Transaction<Database>, userId: string, id: string, changes: Updateable<SitesTable>): Promise<unknown> {
  return trx.updateTable('sites').set(changes).where('user_id', '=', userId).where('id', '=', id).execute();
}

export async function deleteSite(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sites').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
