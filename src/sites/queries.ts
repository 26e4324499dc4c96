import { type Expression, type Kysely, type Selectable, type SqlBool, sql, type Transaction, type Updateable } from 'kysely';
import { type DialectName, forUpdate, limitParameter } from '../db/connect.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { originValues } from '../audit/origin.js';
import type { Database, SitesTable, SiteVersionsTable } from '../db/schema.js';
import type { SiteListSort } from './contract.js';
import { type ListPosition, sortsById } from './list-cursor.js';
import { isWorkspaceRole, type WorkspaceRole } from '../memberships/permissions.js';

export type SiteRow = Selectable<SitesTable>;

// Every query that answers a caller joins the caller's membership of the site's workspace: a site
// id alone never reaches a site of a workspace they do not belong to.

/**
 * Who asks: the user, and the one workspace their credential is limited to (an access token made
 * for it), null for every workspace they are in.
 */
export interface SiteCaller {
  readonly userId: string;
  readonly workspaceId: string | null;
  /**
   * Workspaces of theirs that require a second factor they lack: their sites are left out of lists
   * and refused one by one (403 two_factor_required). Empty for nearly everyone.
   */
  readonly twoFactorMissingIn: ReadonlySet<string>;
}

/** A site with the caller's role in its workspace. */
export interface MemberSiteRow {
  site: SiteRow;
  role: WorkspaceRole;
}

export function insertSite(db: Kysely<Database>, row: SiteRow): Promise<unknown> {
  return db.insertInto('sites').values(row).execute();
}

type SiteWithRole = SiteRow & { member_role: string };

function splitRole(row: SiteWithRole | undefined): MemberSiteRow | undefined {
  if (row === undefined) return undefined;
  const { member_role, ...site } = row;
  if (!isWorkspaceRole(member_role)) throw new Error(`unknown workspace role in the database: ${member_role}`);
  return { site, role: member_role };
}

/**
 * Live sites joined to the caller's membership of their workspace, and only of the workspace their
 * credential is limited to, if any (`scope`; null matches every membership). One statement shape
 * for both, so each prepared query below is prepared once.
 */
function memberSites(db: Kysely<Database>, userId: string, scope: string | null) {
  return withMembership(db, userId, scope).where('sites.deleted_at', 'is', null);
}

/** The same join over the trash: the one place trashed sites are read for a caller. */
function memberTrashedSites(db: Kysely<Database>, userId: string, scope: string | null) {
  return withMembership(db, userId, scope).where('sites.deleted_at', 'is not', null);
}

function withMembership(db: Kysely<Database>, userId: string, scope: string | null) {
  return db
    .selectFrom('sites')
    .innerJoin('workspace_members as member', (join) =>
      join
        .onRef('member.workspace_id', '=', 'sites.workspace_id')
        .on('member.user_id', '=', userId)
        .on(sql<SqlBool>`member.workspace_id = coalesce(${scope}, member.workspace_id)`),
    );
}

// The statements behind GET and PUT /api/v1/sites(/{id}), built and compiled once (db/prepared-query.ts).
const siteById = new PreparedQuery((db, p: { userId: string; scope: string | null; id: string }) =>
  memberSites(db, p.userId, p.scope).selectAll('sites').select('member.role as member_role').where('sites.id', '=', p.id),
);
const firstSitesPage = new PreparedQuery((db, p: { userId: string; scope: string | null; limit: number }) =>
  memberSites(db, p.userId, p.scope).selectAll('sites').orderBy('sites.id').limit(limitParameter(p.limit)),
);
const laterSitesPage = new PreparedQuery((db, p: { userId: string; scope: string | null; afterId: string; limit: number }) =>
  memberSites(db, p.userId, p.scope).selectAll('sites').where('sites.id', '>', p.afterId).orderBy('sites.id').limit(limitParameter(p.limit)),
);
const firstWorkspacePage = new PreparedQuery((db, p: { userId: string; scope: string | null; workspaceId: string; limit: number }) =>
  memberSites(db, p.userId, p.scope).selectAll('sites').where('sites.workspace_id', '=', p.workspaceId).orderBy('sites.id').limit(limitParameter(p.limit)),
);
const laterWorkspacePage = new PreparedQuery((db, p: { userId: string; scope: string | null; workspaceId: string; afterId: string; limit: number }) =>
  memberSites(db, p.userId, p.scope)
    .selectAll('sites')
    .where('sites.workspace_id', '=', p.workspaceId)
    .where('sites.id', '>', p.afterId)
    .orderBy('sites.id')
    .limit(limitParameter(p.limit)),
);
const siteForUpdateIn = (dialect: DialectName) =>
  new PreparedQuery((db, p: { userId: string; scope: string | null; id: string }) => {
    const query = memberSites(db, p.userId, p.scope)
      .selectAll('sites')
      .select('member.role as member_role')
      // Whether the change will have events to queue, read in this round trip: a change in a
      // workspace without webhooks then makes no other (docs/decisions/webhooks-outbox.md).
      .select((eb) =>
        eb
          .selectFrom('webhooks')
          .select((inner) => inner.fn.countAll<number | string>().as('count'))
          .whereRef('webhooks.workspace_id', '=', 'sites.workspace_id')
          .where('webhooks.enabled', '=', 1)
          .as('webhook_count'),
      )
      // Whether the workspace requires review of direct changes, read in the same round trip.
      .select((eb) => eb.selectFrom('workspaces').select('workspaces.review_required').whereRef('workspaces.id', '=', 'sites.workspace_id').as('review_required'))
      .where('sites.id', '=', p.id);
    // The site's row alone: a role change committed while the write runs orders after it, and one
    // user's writes to different sites do not wait for each other on their membership row.
    return dialect === 'postgres' ? query.forUpdate('sites') : query;
  });
const siteForUpdate: Record<DialectName, ReturnType<typeof siteForUpdateIn>> = { sqlite: siteForUpdateIn('sqlite'), postgres: siteForUpdateIn('postgres') };
/**
 * Every column a PUT may change, always all of them: one statement shape, so it is prepared once.
 * Both databases rewrite the whole row on any update, so writing unchanged columns costs nothing more.
 */
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
    .where('workspace_id', '=', site.workspace_id)
    .where('id', '=', site.id),
);

/**
 * Writes a site read with findSiteForUpdate and merged: every column a client may change is
 * written, so a change made by another writer in between would be lost, were the row not locked
 * since it was read.
 */
export async function saveSite(trx: Transaction<Database>, site: SiteRow): Promise<void> {
  await siteSave.execute(trx, site);
}

/** The site with the caller's role in its workspace; undefined when they are not a member. */
export async function findSite(db: Kysely<Database>, caller: SiteCaller, id: string): Promise<MemberSiteRow | undefined> {
  return splitRole(await siteById.executeTakeFirst(db, { userId: caller.userId, scope: caller.workspaceId, id }));
}

/** A site locked for a change, with how many enabled webhooks its workspace has and whether it requires review. */
export interface LockedSiteRow extends MemberSiteRow {
  webhooks: number;
  reviewRequired: boolean;
}

/** The row and the caller's membership, locked until the transaction ends, so a read-merge-write cannot interleave. */
export async function findSiteForUpdate(trx: Transaction<Database>, dialect: DialectName, caller: SiteCaller, id: string): Promise<LockedSiteRow | undefined> {
  const row = await siteForUpdate[dialect].executeTakeFirst(trx, { userId: caller.userId, scope: caller.workspaceId, id });
  if (row === undefined) return undefined;
  const { webhook_count, review_required, ...rest } = row;
  const found = splitRole(rest);
  return found === undefined ? undefined : { ...found, webhooks: Number(webhook_count ?? 0), reviewRequired: Number(review_required ?? 0) === 1 };
}

/**
 * The row, locked, for a write that acts for no caller (recording a partner check, which the
 * periodic re-check runs too); the caller, if any, was checked when the site was read.
 */
export function lockSiteInWorkspace(trx: Transaction<Database>, dialect: DialectName, workspaceId: string, id: string): Promise<SiteRow | undefined> {
  return forUpdate(dialect, trx.selectFrom('sites').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).where('deleted_at', 'is', null)).executeTakeFirst();
}

/**
 * One page in id order (ids are time-ordered), starting after `afterId`, of the sites of every
 * workspace the caller is in, or of one of them.
 */
export function listSites(db: Kysely<Database>, caller: SiteCaller, workspaceId: string | undefined, limit: number, afterId: string | undefined): Promise<SiteRow[]> {
  const { userId, workspaceId: scope } = caller;
  if (caller.twoFactorMissingIn.size > 0) {
    // The rare caller shut out of a workspace for want of a second factor: the same page, built
    // afresh with that workspace left out, rather than a second set of prepared shapes.
    let query = memberSites(db, userId, scope).selectAll('sites').where('sites.workspace_id', 'not in', [...caller.twoFactorMissingIn]);
    if (workspaceId !== undefined) query = query.where('sites.workspace_id', '=', workspaceId);
    if (afterId !== undefined) query = query.where('sites.id', '>', afterId);
    return query.orderBy('sites.id').limit(limit).execute();
  }
  if (workspaceId !== undefined) {
    return afterId === undefined
      ? firstWorkspacePage.execute(db, { userId, scope, workspaceId, limit })
      : laterWorkspacePage.execute(db, { userId, scope, workspaceId, afterId, limit });
  }
  return afterId === undefined ? firstSitesPage.execute(db, { userId, scope, limit }) : laterSitesPage.execute(db, { userId, scope, afterId, limit });
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
  return sql<SqlBool>`lower(sites.name) like lower(${containsPattern(q)}) escape '\\'`;
}

/** The sorted expression; names sort by their lower-case form, so "apple" and "Apple" stand together. */
function sortValue(sort: SiteListSort): Expression<string> {
  return sort === 'name' || sort === '-name' ? sql<string>`lower(sites.name)` : sql<string>`sites.updated_at`;
}

function sortValueOf(sort: SiteListSort, value: string): Expression<string> {
  return sort === 'name' || sort === '-name' ? sql<string>`lower(${value})` : sql<string>`${value}`;
}

export interface SiteListSelection {
  caller: SiteCaller;
  /** Only this workspace's sites; undefined for every workspace the caller is in. */
  workspaceId: string | undefined;
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
  let query = memberSites(db, list.caller.userId, list.caller.workspaceId).selectAll('sites');
  if (list.caller.twoFactorMissingIn.size > 0) query = query.where('sites.workspace_id', 'not in', [...list.caller.twoFactorMissingIn]);
  if (list.workspaceId !== undefined) query = query.where('sites.workspace_id', '=', list.workspaceId);
  if (list.q !== '') query = query.where(nameContains(list.q));
  if (sortsById(list.sort)) {
    if (list.after !== undefined) query = query.where('sites.id', descending ? '<' : '>', list.after.id);
    return query.orderBy('sites.id', direction).limit(list.limit).execute();
  }
  const value = sortValue(list.sort);
  const after = list.after;
  if (after !== undefined) {
    query = query.where(sql<SqlBool>`(${value}, sites.id) ${beyond} (${sortValueOf(list.sort, after.value ?? '')}, ${after.id})`);
  }
  return query.orderBy(value, direction).orderBy('sites.id', direction).limit(list.limit).execute();
}

/** How many of the sites the caller can see (in one workspace, or in all of theirs) the search finds. */
export async function countSites(db: Kysely<Database>, caller: SiteCaller, workspaceId: string | undefined, q: string): Promise<number> {
  let query = memberSites(db, caller.userId, caller.workspaceId).select((eb) => eb.fn.countAll<number | string>().as('count'));
  if (caller.twoFactorMissingIn.size > 0) query = query.where('sites.workspace_id', 'not in', [...caller.twoFactorMissingIn]);
  if (workspaceId !== undefined) query = query.where('sites.workspace_id', '=', workspaceId);
  if (q !== '') query = query.where(nameContains(q));
  const row = await query.executeTakeFirstOrThrow();
  // PostgreSQL's count is a bigint, read as a number (db/connect.ts); SQLite's is a number already.
  return Number(row.count);
}

export function updateSite(trx: Transaction<Database>, workspaceId: string, id: string, changes: Updateable<SitesTable>): Promise<unknown> {
  return trx.updateTable('sites').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** Moves a site read with findSiteForUpdate to the trash, in the same transaction. */
export function trashSite(trx: Transaction<Database>, site: SiteRow, deletedAt: string, deletedBy: string | null): Promise<unknown> {
  return trx.updateTable('sites').set({ deleted_at: deletedAt, deleted_by: deletedBy }).where('workspace_id', '=', site.workspace_id).where('id', '=', site.id).execute();
}

/** A trashed site, locked, with the caller's role read under the same lock (restoring it). */
export async function findTrashedSiteForUpdate(trx: Transaction<Database>, dialect: DialectName, caller: SiteCaller, id: string): Promise<MemberSiteRow | undefined> {
  const query = memberTrashedSites(trx, caller.userId, caller.workspaceId).selectAll('sites').select('member.role as member_role').where('sites.id', '=', id);
  return splitRole(await (dialect === 'postgres' ? query.forUpdate('sites') : query).executeTakeFirst());
}

/** Brings a trashed site, read with findTrashedSiteForUpdate, back to its workspace. */
export function untrashSite(trx: Transaction<Database>, site: SiteRow): Promise<unknown> {
  return trx.updateTable('sites').set({ deleted_at: null, deleted_by: null }).where('workspace_id', '=', site.workspace_id).where('id', '=', site.id).execute();
}

export interface TrashPosition {
  deletedAt: string;
  id: string;
}

/** The caller's trashed sites, most recently deleted first, after `after` when given. */
export function listTrashedSites(db: Kysely<Database>, caller: SiteCaller, workspaceId: string | undefined, after: TrashPosition | undefined, limit: number): Promise<SiteRow[]> {
  let query = memberTrashedSites(db, caller.userId, caller.workspaceId).selectAll('sites');
  if (caller.twoFactorMissingIn.size > 0) query = query.where('sites.workspace_id', 'not in', [...caller.twoFactorMissingIn]);
  if (workspaceId !== undefined) query = query.where('sites.workspace_id', '=', workspaceId);
  if (after !== undefined) query = query.where(sql<SqlBool>`(sites.deleted_at, sites.id) < (${after.deletedAt}, ${after.id})`);
  return query.orderBy('sites.deleted_at', 'desc').orderBy('sites.id', 'desc').limit(limit).execute();
}

/** Retention: deletes sites trashed before the cut-off, with their versions and checks. */
export async function purgeTrashedSites(db: Kysely<Database>, trashedBefore: string): Promise<number> {
  const result = await db.deleteFrom('sites').where('deleted_at', '<', trashedBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A site's name, as mail names it, in the trash or not; undefined once it is gone. */
export async function findSiteName(db: Kysely<Database>, siteId: string): Promise<string | undefined> {
  return (await db.selectFrom('sites').select('name').where('id', '=', siteId).executeTakeFirst())?.name;
}

// A site's history: one row per version, written with the change and never updated (they go with their site).

export type SiteVersionRow = SiteVersionsTable;

// Written on every site change, so built and compiled once.
const versionInsert = new PreparedQuery((db, p: SiteVersionRow) =>
  db.insertInto('site_versions').values({
    site_id: p.site_id,
    version: p.version,
    created_at: p.created_at,
    ...originValues(p),
    changes: p.changes,
    site: p.site,
  }),
);

/** Appends a version in the change's transaction. */
export async function insertSiteVersion(trx: Transaction<Database>, row: SiteVersionRow): Promise<void> {
  await versionInsert.execute(trx, row);
}

/** A site's versions, newest first, older than `before` when given. */
export function listSiteVersions(db: Kysely<Database>, siteId: string, before: number | undefined, limit: number): Promise<SiteVersionRow[]> {
  let query = db.selectFrom('site_versions').selectAll().where('site_id', '=', siteId);
  if (before !== undefined) query = query.where('version', '<', before);
  return query.orderBy('version', 'desc').limit(limit).execute();
}

export function findSiteVersion(db: Kysely<Database>, siteId: string, version: number): Promise<SiteVersionRow | undefined> {
  return db.selectFrom('site_versions').selectAll().where('site_id', '=', siteId).where('version', '=', version).executeTakeFirst();
}

/** A site's newest version with who made it, and the workspace the site is in now. */
export interface LatestSiteVersion {
  site_id: string;
  workspace_id: string;
  version: number;
  created_at: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_email: string | null;
}

/** The newest version of each of these sites that is not in the trash; a site in the trash (or deleted) is absent. */
export async function latestSiteVersions(db: Kysely<Database>, siteIds: readonly string[]): Promise<Map<string, LatestSiteVersion>> {
  if (siteIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('site_versions as v')
    .innerJoin('sites as s', 's.id', 'v.site_id')
    .select(['v.site_id', 's.workspace_id', 'v.version', 'v.created_at', 'v.actor_id', 'v.actor_name', 'v.actor_email'])
    .where('v.site_id', 'in', siteIds)
    .where('s.deleted_at', 'is', null)
    .where('v.version', '=', (eb) => eb.selectFrom('site_versions as w').select((w) => w.fn.max('w.version').as('newest')).whereRef('w.site_id', '=', 'v.site_id'))
    .execute();
  return new Map(rows.map((row) => [row.site_id, row]));
}
