import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { type DialectName, forUpdate } from '../db/connect.js';
import type { Database, SitesTable } from '../db/schema.js';

export type SiteRow = Selectable<SitesTable>;

// Every query names the owner: a site id alone never reaches another user's row.

export function insertSite(db: Kysely<Database>, row: SiteRow): Promise<unknown> {
  return db.insertInto('sites').values(row).execute();
}

export function findSite(db: Kysely<Database>, userId: string, id: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

/** The row, locked until the transaction ends, so a read-merge-write cannot interleave. */
export function findSiteForUpdate(trx: Transaction<Database>, dialect: DialectName, userId: string, id: string): Promise<SiteRow | undefined> {
  return forUpdate(dialect, trx.selectFrom('sites').selectAll().where('user_id', '=', userId).where('id', '=', id)).executeTakeFirst();
}

/** One page in id order (ids are time-ordered), starting after `afterId`. */
export function listSites(db: Kysely<Database>, userId: string, limit: number, afterId: string | undefined): Promise<SiteRow[]> {
  let query = db.selectFrom('sites').selectAll().where('user_id', '=', userId);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(limit).execute();
}

export function updateSite(trx: Transaction<Database>, userId: string, id: string, changes: Updateable<SitesTable>): Promise<unknown> {
  return trx.updateTable('sites').set(changes).where('user_id', '=', userId).where('id', '=', id).execute();
}

export async function deleteSite(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sites').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
