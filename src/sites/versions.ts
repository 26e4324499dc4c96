import type { Kysely, QueryCreator, Transaction } from 'kysely';
import { type ChangeOrigin, originColumns, originValues } from '../audit/origin.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database, SiteVersionsTable } from '../db/schema.js';
import type { SiteChange } from './diff.js';
import type { SiteJson, SiteVersionJson, SiteVersionSiteJson } from './schema.js';

export type SiteVersionRow = SiteVersionsTable;
export type { SiteVersionJson };

/** The insert of one version row. */
function insertVersionQuery(db: QueryCreator<Database>, p: SiteVersionRow) {
  return db.insertInto('site_versions').values({
    site_id: p.site_id,
    version: p.version,
    created_at: p.created_at,
    ...originValues(p),
    changes: p.changes,
    site: p.site,
  });
}

// Written on every site change, so built and compiled once.
const insertVersion = new PreparedQuery(insertVersionQuery);

/** How review saw a version: made by applying a change request, or directly by an owner while review is required. */
export interface VersionReview {
  change_request?: { id: string; title: string };
  review_bypassed?: true;
}

/** A site's version as stored: who made it and how, the site as the API shows it, what changed. */
export function siteVersionRow(
  origin: ChangeOrigin,
  entry: { site: SiteJson; version: number; changes: readonly SiteChange[]; restoredFrom?: number; review?: VersionReview },
): SiteVersionRow {
  return {
    site_id: entry.site.id,
    version: entry.version,
    created_at: entry.site.updated_at,
    ...originColumns(origin),
    changes: JSON.stringify({ changes: entry.changes, restored_from: entry.restoredFrom ?? null, ...entry.review }),
    site: JSON.stringify(versionedSite(entry.site)),
  };
}

/** The site as a version keeps it: its publishable key is no part of its history. */
function versionedSite(site: SiteJson): SiteVersionSiteJson {
  const { public_key: _publicKey, ...rest } = site;
  return rest;
}

/** Appends a version in the change's transaction. Nothing updates or deletes one (they go with their site). */
export async function insertSiteVersion(trx: Transaction<Database>, row: SiteVersionRow): Promise<void> {
  await insertVersion.execute(trx, row);
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
