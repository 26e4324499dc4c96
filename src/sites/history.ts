import type { Kysely } from 'kysely';
import type { ChangeOrigin } from '../audit/origin.js';
import { recordAuditEvent } from '../audit/queries.js';
import type { Cache } from '../cache/cache.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { assertCan, assertTwoFactorMet } from '../memberships/permissions.js';
import { SITE_ERRORS } from './errors.js';
import { siteTarget, siteVersionToJson, trashEntryToJson } from './presenter.js';
import { findSiteVersion, findTrashedSiteForUpdate, listSiteVersions, listTrashedSites, type SiteCaller, type SiteRow, trashSite, untrashSite } from './queries.js';
import { PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS, type SiteUpdate, type SiteVersionJson, type SiteVersionSiteJson, type TrashEntryJson } from './schema.js';
import { assertExpectedVersion, directChangeReview, type ExpectedVersions, type SiteService, siteNotFound } from './service.js';
import { decodeTrashCursor, encodeTrashCursor } from './trash.js';
import { invalidatingAfter, publishSiteEvent } from './writes.js';

function versionNotFound(version: number): AppError {
  return new AppError(404, SITE_ERRORS.VERSION_NOT_FOUND, `This site has no version ${version}.`);
}

/** What restoring a version writes: every field a person sets, the partner token aside. */
function restoreInput(site: SiteVersionSiteJson | undefined): SiteUpdate {
  if (site === undefined) return {};
  const partner: Record<string, unknown> = {};
  for (const field of PARTNER_EDITABLE_FIELDS) {
    if (field in site.partner_settings) partner[field] = site.partner_settings[field];
  }
  const input: SiteUpdate = { name: site.name, color: site.color, partner_settings: partner as SiteUpdate['partner_settings'] };
  for (const field of SETTINGS_FIELDS) input[field] = site[field];
  return input;
}

export interface SiteHistoryDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told of every write after it commits, so that it never serves what the write replaced. */
  cache: Cache;
  /** Saves a restored version as the next one, with the same merge, audit event and webhook event as a PUT. */
  sites: SiteService;
  /** How long a deleted site stays in the trash before retention purges it. */
  trashRetentionDays: number;
}

/** A site's past: its versions and their restore, and the trash a deleted site waits in. */
export class SiteHistory {
  constructor(private readonly deps: SiteHistoryDeps) {}

  /** A site's versions, newest first (members who may read the site). */
  async versions(caller: SiteCaller, id: string, limit: number, before: number | undefined): Promise<{ versions: SiteVersionJson[]; nextCursor: string | null }> {
    await this.deps.sites.getFor(caller, id, 'site.read');
    // One row more than asked says whether another page follows.
    const rows = await listSiteVersions(this.deps.db, id, before, limit + 1);
    const versions = rows.slice(0, limit).map((row) => siteVersionToJson(row, false));
    const last = versions.at(-1);
    return { versions, nextCursor: rows.length > limit && last !== undefined ? String(last.version) : null };
  }

  /** One version, with the site as it was then. */
  async version(caller: SiteCaller, id: string, version: number): Promise<SiteVersionJson> {
    await this.deps.sites.getFor(caller, id, 'site.read');
    const row = await findSiteVersion(this.deps.db, id, version);
    if (row === undefined) throw versionNotFound(version);
    return siteVersionToJson(row, true);
  }

  /**
   * Brings back a version's name, colour, settings and partner settings as a new version (editors),
   * under the row's lock and If-Match as an update. The partner access token is not part of a
   * version: the current one stays.
   */
  async restore(caller: SiteCaller, origin: ChangeOrigin, id: string, version: number, expected: ExpectedVersions): Promise<{ site: SiteRow; token: 'kept' | 'cleared' }> {
    return invalidatingAfter(this.deps.cache, { siteId: id }, (touched) =>
      this.deps.db.transaction().execute(async (trx) => {
        const found = await this.deps.sites.lockFor(trx, caller, id, 'site.update');
        const locked = { row: found.site, webhooks: found.webhooks };
        const { row } = locked;
        touched.workspaceId = row.workspace_id;
        const review = directChangeReview(found, origin);
        assertExpectedVersion(row, expected, 'restore again');
        const recorded = await findSiteVersion(trx, id, version);
        if (recorded === undefined) throw versionNotFound(version);
        const site = await this.deps.sites.saveVersion(trx, origin, locked, restoreInput(siteVersionToJson(recorded, true).site), { restoredFrom: version, review });
        // The token stays unless the restored URLs point at other origins, which it is not bound to.
        const token = row.partner_access_token !== null && site.partner_access_token === null ? 'cleared' : 'kept';
        return { site, token };
      }),
    );
  }

  /**
   * Moves a site to the trash (admins and owners of its workspace). It disappears from every
   * member-facing read and keeps its versions until it is restored or retention purges it.
   */
  async delete(caller: SiteCaller, origin: ChangeOrigin, id: string): Promise<void> {
    await invalidatingAfter(this.deps.cache, { siteId: id }, (touched) =>
      this.deps.db.transaction().execute(async (trx) => {
        const { site: row, webhooks } = await this.deps.sites.lockFor(trx, caller, id, 'site.delete');
        touched.workspaceId = row.workspace_id;
        await trashSite(trx, row, this.deps.clock.now().toISOString(), origin.actor === null ? null : JSON.stringify(origin.actor));
        await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId: row.workspace_id, action: 'site.deleted', target: siteTarget(row) });
        if (webhooks > 0) await publishSiteEvent(trx, this.deps.clock, origin, 'site.deleted', row, {});
      }),
    );
  }

  /** The trashed sites of the caller's workspaces (every member), most recently deleted first. */
  async trash(caller: SiteCaller, workspaceId: string | undefined, limit: number, cursor: string | undefined): Promise<{ entries: TrashEntryJson[]; nextCursor: string | null }> {
    const after = cursor === undefined ? undefined : decodeTrashCursor(cursor);
    // One row more than asked says whether another page follows.
    const rows = await listTrashedSites(this.deps.db, caller, workspaceId, after, limit + 1);
    const entries = rows.slice(0, limit).map((row) => trashEntryToJson(row, this.deps.trashRetentionDays));
    const last = rows[limit - 1];
    return { entries, nextCursor: rows.length > limit && last !== undefined ? encodeTrashCursor(last) : null };
  }

  /** Brings a site back from the trash as it was (admins and owners, as for deleting it). */
  async restoreFromTrash(caller: SiteCaller, origin: ChangeOrigin, id: string): Promise<SiteRow> {
    return invalidatingAfter(this.deps.cache, { siteId: id }, (touched) =>
      this.deps.db.transaction().execute(async (trx) => {
        const found = await findTrashedSiteForUpdate(trx, this.deps.dialect, caller, id);
        if (found === undefined) throw siteNotFound();
        assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
        assertCan(found.role, 'site.delete', siteNotFound);
        touched.workspaceId = found.site.workspace_id;
        await untrashSite(trx, found.site);
        await recordAuditEvent(trx, this.deps.clock, origin, {
          workspaceId: found.site.workspace_id,
          action: 'site.restored',
          target: siteTarget(found.site),
          details: { version: found.site.version, from: 'trash' },
        });
        await publishSiteEvent(trx, this.deps.clock, origin, 'site.restored', found.site, { from: 'trash' });
        return { ...found.site, deleted_at: null, deleted_by: null };
      }),
    );
  }
}
