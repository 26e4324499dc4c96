import { type Expression, type Kysely, type Selectable, type SqlBool, sql, type Transaction, type Updateable } from 'kysely';
import { type DialectName, forUpdate, limitParameter } from '../db/connect.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database, SitesTable } from '../db/schema.js';
import type { SiteListSort } from './contract.js';
import { type ListPosition, sortsById } from './list-cursor.js';

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

/** A search text as a LIKE pattern that finds it anywhere: its own `%`, `_` and `\\` match themselves. */
function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * Case-insensitive substring match on the name. Both sides go through the database's lower(), so
 * they fold alike: PostgreSQL folds every letter its locale knows, SQLite only A to Z.
 */
function nameContains(q: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(name) like lower(${containsPattern(q)}) escape '\\'`;
}

/** The sorted expression; names sort by their lower-case form, so "apple" and "Apple" stand together. */
function sortValue(sort: SiteListSort): Expression<string> {
  return sort === 'name' || sort === '-name' ? sql<string>`lower(name)` : sql<string>`updated_at`;
}

function sortValueOf(sort: SiteListSort, value: string): Expression<string> {
  return sort === 'name' || sort === '-name' ? sql<string>`lower(${value})` : sql<string>`${value}`;
}

export interface SiteListSelection {
  userId: string;
  sort: SiteListSort;
  /** Search text; '' for none. */
  q: string;
  /** The last row of the page before; undefined for the first page. */
  after: ListPosition | undefined;
  limit: number;
}

/**
 * One page in any order the list offers, keyset-paged: the rows after (or before, descending) the
 * previous page's last (value, id), ties broken by id, so rows with equal values are neither
 * repeated nor skipped, and a change elsewhere in the list does not shift the page.
 */
export function listSitesOrdered(db: Kysely<Database>, list: SiteListSelection): Promise<SiteRow[]> {
  const descending = list.sort.startsWith('-');
  const direction = descending ? 'desc' : 'asc';
  const beyond = sql.raw(descending ? '<' : '>');
  let query = db.selectFrom('sites').selectAll().where('user_id', '=', list.userId);
  if (list.q !== '') query = query.where(nameContains(list.q));
  if (sortsById(list.sort)) {
    if (list.after !== undefined) query = query.where('id', descending ? '<' : '>', list.after.id);
    return query.orderBy('id', direction).limit(list.limit).execute();
  }
  const value = sortValue(list.sort);
  const after = list.after;
  if (after !== undefined) {
    query = query.where(sql<SqlBool>`(${value}, id) ${beyond} (${sortValueOf(list.sort, after.value ?? '')}, ${after.id})`);
  }
  return query.orderBy(value, direction).orderBy('id', direction).limit(list.limit).execute();
}

/** How many of the owner's sites the search finds. */
export async function countSites(db: Kysely<Database>, userId: string, q: string): Promise<number> {
  let query = db
    .selectFrom('sites')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', userId);
  if (q !== '') query = query.where(nameContains(q));
  const row = await query.executeTakeFirstOrThrow();
  // PostgreSQL's count is a bigint, read as a number (db/connect.ts); SQLite's is a number already.
  return Number(row.count);
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
