import type { Kysely, Transaction, Updateable } from 'kysely';
import type { DialectName } from '../db/connect.js';
import type { Database, SitesTable } from '../db/schema.js';
import { AppError, type FieldError } from '../errors.js';
import { validationError } from '../http/validation-error.js';
import { ifMatchSatisfied, versionEtag } from '../http/etag.js';
import type { Clock } from '../lib/clock.js';
import type { SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { generatePublicKey } from '../lib/public-keys.js';
import { encodeTokenOrigins, partnerOrigins, type PartnerTokenOrigins, readTokenOrigins, sameOrigins } from './partner-token-binding.js';
import type { Cache } from '../cache/cache.js';
import { siteChangeTags } from './changes.js';
import { decodeListCursor, encodeListCursor, type SiteListOrder, sortsById } from './list-cursor.js';
import {
  countSites,
  findSite,
  findSiteForUpdate,
  findTrashedSiteForUpdate,
  insertSite,
  listSites,
  listSitesOrdered,
  listTrashedSites,
  type LockedSiteRow,
  lockSiteInWorkspace,
  type MemberSiteRow,
  type SiteCaller,
  type SiteRow,
  trashSite,
  untrashSite,
  updateSite,
} from './queries.js';
import { findMemberships, findPersonalWorkspaceId, lockRole } from '../memberships/queries.js';
import { assertCan, assertTwoFactorMet, type WorkspaceAction, workspaceNotFound } from '../memberships/permissions.js';
import {
  DEFAULT_SITE_LIST_SORT,
  PARTNER_EDITABLE_FIELDS,
  type PartnerSettings,
  type PartnerSettingsUpdate,
  SETTINGS_FIELDS,
  SETTINGS_MAX_BYTES,
  type SiteCreate,
  type SiteJson,
  type SiteUpdate,
  type SiteVersionSiteJson,
  type TrashEntryJson,
} from './schema.js';
import { SITE_ERRORS } from './errors.js';
import { type ChangeOrigin, SYSTEM } from '../audit/origin.js';
import { auditEventRow, recordAuditEvent } from '../audit/queries.js';
import { eventActor, publishWebhookEvent } from '../webhooks/outbox.js';
import type { WebhookEventType } from '../webhooks/contract.js';
import { changedPaths, type SiteChange, siteChanges } from './diff.js';
import { decodeTrashCursor, encodeTrashCursor, trashEntry } from './trash.js';
import { saveSiteChange } from './save.js';
import { findSiteVersion, insertSiteVersion, listSiteVersions, type SiteVersionJson, siteVersionRow, siteVersionToJson, type VersionReview } from './versions.js';
import { CHANGE_REQUEST_ERRORS } from '../change-requests/errors.js';

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

/** A site as the audit log names it. */
function siteTarget(row: SiteRow): { type: 'site'; id: string; name: string } {
  return { type: 'site', id: row.id, name: row.name };
}

/** partner_settings as stored: everything but the token (its own encrypted column) and the derived flag. */
export type StoredPartnerSettings = Omit<PartnerSettings, 'access_token_configured'>;

export const DEFAULT_COLOR = '#4f46e5';

export const DEFAULT_PARTNER_SETTINGS: StoredPartnerSettings = {
  enabled: false,
  base_url: '',
  mcp_url: '',
  project_id: '',
  auth_type: 'bearer',
  read_enabled: true,
  write_enabled: false,
  collections: [],
  widget_project_id: '',
  widget_search_sources: [],
  last_status: 'unchecked',
  last_error: null,
  last_checked_at: null,
};

/** Fields a client may change (the contract's list); the check results and the token flag belong to the server. */
const CLIENT_PARTNER_FIELDS: ReadonlyArray<keyof StoredPartnerSettings & keyof PartnerSettingsUpdate> = PARTNER_EDITABLE_FIELDS;

/** A site locked for a change, and whether its workspace has webhooks to tell (counted in the same read). */
export interface LockedSite {
  row: SiteRow;
  webhooks: number;
}

/**
 * While a workspace requires review, a direct change is an owner's alone, and its version says
 * it bypassed review; editors and admins propose a change request instead.
 */
function directChangeReview(found: LockedSiteRow): VersionReview | undefined {
  if (!found.reviewRequired) return undefined;
  if (found.role !== 'owner') {
    throw new AppError(
      403,
      CHANGE_REQUEST_ERRORS.REVIEW_REQUIRED,
      'This workspace requires review of changes: propose this change as a change request (POST /api/v1/sites/{id}/change-requests) instead.',
    );
  }
  return { review_bypassed: true };
}

/** A partner connection that stopped working, or works again: what its workspace's admins are told. */
export interface PartnerStatusChange {
  before: 'ok' | 'error';
  after: 'ok' | 'error';
}

/** Only a move between ok and error is a change worth telling; the first check of a site is not. */
function partnerStatusChange(before: string, after: string): PartnerStatusChange | null {
  if (before === 'ok' && after === 'error') return { before, after };
  if (before === 'error' && after === 'ok') return { before, after };
  return null;
}

/** The result of a partner connection check; only the check writes these fields. */
export type PartnerCheckResult = Pick<PartnerSettings, 'last_status' | 'last_error' | 'last_checked_at'>;

export function readPartnerSettings(row: SiteRow): StoredPartnerSettings {
  const stored = JSON.parse(row.partner_settings) as Partial<StoredPartnerSettings>;
  return { ...DEFAULT_PARTNER_SETTINGS, ...stored };
}

/** The site as responses show it. The partner access token never leaves the server. */
export function siteToJson(row: SiteRow): SiteJson {
  // Parsed and merged in one object literal: this runs for every site of every page listed.
  const stored = JSON.parse(row.partner_settings) as Partial<StoredPartnerSettings>;
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    color: row.color,
    ai_settings: row.ai_settings,
    email_settings: row.email_settings,
    widget: row.widget,
    portal: row.portal,
    branding: row.branding,
    public_theme: row.public_theme,
    knowledge_sources: row.knowledge_sources,
    partner_settings: { ...DEFAULT_PARTNER_SETTINGS, ...stored, access_token_configured: row.partner_access_token !== null },
    public_key: row.public_key,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function siteEtag(row: SiteRow): string {
  return versionEtag(row.version);
}

function isHttpUrl(value: string): boolean {
  if (value !== value.trim()) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Rules the JSON schema cannot say. Size problems are 413 (the content is too large), the rest
 * 400; both name every offending field. Nothing is written when either is raised.
 */
function checkSiteInput(input: SiteUpdate): void {
  const invalid: FieldError[] = [];
  const tooLarge: FieldError[] = [];
  if (input.name !== undefined && input.name.trim() === '') invalid.push({ path: '/name', message: 'must not be blank' });
  for (const field of SETTINGS_FIELDS) {
    const value = input[field];
    if (value !== undefined && Buffer.byteLength(value, 'utf8') > SETTINGS_MAX_BYTES) {
      tooLarge.push({ path: `/${field}`, message: `must be at most ${SETTINGS_MAX_BYTES} bytes` });
    }
  }
  const partner = input.partner_settings;
  for (const field of ['base_url', 'mcp_url'] as const) {
    const value = partner?.[field];
    if (value !== undefined && value !== '' && !isHttpUrl(value)) {
      invalid.push({ path: `/partner_settings/${field}`, message: 'must be empty or an absolute http(s) URL' });
    }
  }
  if (tooLarge.length > 0) {
    throw new AppError(413, SITE_ERRORS.FIELD_TOO_LARGE, tooLarge.map((error) => `${error.path}: ${error.message}`).join('; '), { errors: tooLarge });
  }
  if (invalid.length > 0) throw validationError(invalid);
}

/** What a change of partner_settings does to the stored token. */
export type PartnerTokenChange =
  | { change: 'keep' }
  | { change: 'clear' }
  /** A token sent with the change, bound to the origins the change leaves in place. */
  | { change: 'replace'; value: string; origins: PartnerTokenOrigins };

export interface MergedPartnerSettings {
  settings: StoredPartnerSettings;
  token: PartnerTokenChange;
}

/** partner_settings merged field by field over the stored ones, as PUT does. */
function mergePartnerSettings(row: SiteRow, partner: PartnerSettingsUpdate): MergedPartnerSettings {
  const settings: StoredPartnerSettings = readPartnerSettings(row);
  for (const field of CLIENT_PARTNER_FIELDS) {
    const value = partner[field];
    if (value !== undefined) (settings as Record<string, unknown>)[field] = value;
  }
  const origins = partnerOrigins(settings);
  if (partner.access_token === null || partner.access_token === '') return { settings, token: { change: 'clear' } };
  if (partner.access_token !== undefined) return { settings, token: { change: 'replace', value: partner.access_token, origins } };
  // Moving base_url or mcp_url to another origin must not take the stored token along:
  // whoever can edit the site could otherwise point the check at a host of their own.
  if (row.partner_access_token !== null && !sameOrigins(readTokenOrigins(row), origins)) return { settings, token: { change: 'clear' } };
  return { settings, token: { change: 'keep' } };
}

export interface SiteServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  secrets: SecretBox;
  /** Told of every write after it commits, so that it never serves what the write replaced. */
  cache: Cache;
  /** How long a deleted site stays in the trash before retention purges it. */
  trashRetentionDays: number;
}

export class SiteService {
  constructor(private readonly deps: SiteServiceDeps) {}

  /**
   * A page of the default order, oldest first, through statements prepared once: the sites of
   * every workspace the caller is in, or of `workspaceId` only.
   */
  async list(caller: SiteCaller, workspaceId: string | undefined, limit: number, cursor: string | undefined): Promise<SitePage> {
    const afterId = cursor === undefined ? undefined : decodeListCursor(DEFAULT_ORDER, cursor).id;
    // One extra row tells whether another page follows without a count query.
    const rows = await listSites(this.deps.db, caller, workspaceId, limit + 1, afterId);
    return pageOf(DEFAULT_ORDER, rows, limit);
  }

  /** A page in any order the list offers, optionally only the sites whose name contains `order.q`. */
  async listOrdered(caller: SiteCaller, workspaceId: string | undefined, order: SiteListOrder, limit: number, cursor: string | undefined): Promise<SitePage> {
    const after = cursor === undefined ? undefined : decodeListCursor(order, cursor);
    const rows = await listSitesOrdered(this.deps.db, { caller, workspaceId, sort: order.sort, q: order.q, after, limit: limit + 1 });
    return pageOf(order, rows, limit);
  }

  /** How many sites the search finds (all of them for ''). */
  count(caller: SiteCaller, workspaceId: string | undefined, q: string): Promise<number> {
    return countSites(this.deps.db, caller, workspaceId, q);
  }

  /** The workspaces whose sites the caller's lists show, read with them: what a kept list depends on. */
  async workspaceIdsOf(caller: SiteCaller): Promise<string[]> {
    if (caller.workspaceId !== null) return [caller.workspaceId];
    return [...(await findMemberships(this.deps.db, caller.userId)).keys()];
  }

  /** A site the caller may read: a member of its workspace. Another workspace's site is 404. */
  async get(caller: SiteCaller, id: string): Promise<SiteRow> {
    return (await this.getFor(caller, id, 'site.read')).site;
  }

  /**
   * A site and the caller's role, which must allow `action` (404 for a non-member, 403 for a member
   * shut out for want of a second factor, 403 for too low a role).
   */
  async getFor(caller: SiteCaller, id: string, action: WorkspaceAction): Promise<MemberSiteRow> {
    const found = await findSite(this.deps.db, caller, id);
    if (found === undefined) throw siteNotFound();
    assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
    assertCan(found.role, action, siteNotFound);
    return found;
  }

  /**
   * Creates a site in `workspaceId`, by default the one the caller's credential is limited to, or
   * else their personal workspace; the caller must be an editor of it at least.
   */
  async create(caller: SiteCaller, origin: ChangeOrigin, workspaceId: string | undefined, input: SiteCreate): Promise<SiteRow> {
    checkSiteInput(input);
    const userId = caller.userId;
    const targetId = workspaceId ?? caller.workspaceId ?? (await findPersonalWorkspaceId(this.deps.db, userId));
    if (targetId === undefined || (caller.workspaceId !== null && targetId !== caller.workspaceId)) throw workspaceNotFound();
    assertTwoFactorMet(caller.twoFactorMissingIn, targetId);
    const empty = this.#emptyRow(targetId, userId, input.name, this.deps.clock.now());
    const row: SiteRow = { ...empty, ...this.#changes(empty, input), version: 1 };
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        // The membership stays locked until the site is in: a removal or demotion waits for it.
        assertCan(await lockRole(trx, this.deps.dialect, targetId, userId), 'site.create', workspaceNotFound);
        await this.#insertCreated(trx, origin, empty, row);
      });
    } finally {
      // Reported whether or not the statement claims success: a commit whose answer was lost
      // still changed the pages. Forgetting too much only costs a read.
      this.deps.cache.invalidate(siteChangeTags(targetId));
    }
    return row;
  }

  /** A new site's row before the input is merged in: the defaults, a new id and public key. */
  #emptyRow(workspaceId: string, userId: string | null, name: string, at: Date): SiteRow {
    const now = at.toISOString();
    return {
      id: newId(at),
      workspace_id: workspaceId,
      user_id: userId,
      name,
      color: DEFAULT_COLOR,
      ai_settings: '',
      email_settings: '',
      widget: '',
      portal: '',
      branding: '',
      public_theme: '',
      knowledge_sources: '',
      partner_settings: JSON.stringify(DEFAULT_PARTNER_SETTINGS),
      partner_access_token: null,
      partner_token_origins: null,
      version: 1,
      created_at: now,
      updated_at: now,
      deleted_at: null,
      deleted_by: null,
      public_key: generatePublicKey(),
      previous_public_key: null,
      previous_public_key_expires_at: null,
    };
  }

  /** The new site, its first version, its audit event and its webhook, in the caller's transaction. */
  async #insertCreated(trx: Transaction<Database>, origin: ChangeOrigin, empty: SiteRow, row: SiteRow): Promise<void> {
    await insertSite(trx, row);
    const changes = siteChanges({ ...empty, name: '' }, row);
    await insertSiteVersion(trx, siteVersionRow(origin, { site: siteToJson(row), version: row.version, changes }));
    await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId: row.workspace_id, action: 'site.created', target: siteTarget(row), details: { version: row.version } });
    await this.#publish(trx, origin, 'site.created', row, { changed: changedPaths(changes).paths });
  }

  /**
   * For the operator's command line (src/site-files): a site created in the workspace with no
   * member behind it (no creator), as its first version.
   */
  async createAsOperator(origin: ChangeOrigin, workspaceId: string, input: SiteUpdate & { name: string }): Promise<SiteRow> {
    checkSiteInput(input);
    const empty = this.#emptyRow(workspaceId, null, input.name, this.deps.clock.now());
    const row: SiteRow = { ...empty, ...this.#changes(empty, input), version: 1 };
    try {
      await this.deps.db.transaction().execute((trx) => this.#insertCreated(trx, origin, empty, row));
    } finally {
      this.deps.cache.invalidate(siteChangeTags(workspaceId));
    }
    return row;
  }

  /**
   * For the operator's command line (src/site-files): the update as the site's next version, when
   * the site is still at `expectedVersion` (null: whatever it is at). Resolves undefined when the
   * site is not a live site of the workspace; throws 412 precondition_failed when it moved on.
   */
  async updateAsOperator(origin: ChangeOrigin, workspaceId: string, id: string, input: SiteUpdate, expectedVersion: number | null): Promise<SiteRow | undefined> {
    checkSiteInput(input);
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const row = await lockSiteInWorkspace(trx, this.deps.dialect, workspaceId, id);
        if (row === undefined) return undefined;
        if (expectedVersion !== null && row.version !== expectedVersion) {
          throw new AppError(412, SITE_ERRORS.PRECONDITION_FAILED, `The site ${id} is at version ${row.version}, not ${expectedVersion}.`);
        }
        // The outbox reads the workspace's subscriptions itself: no count was read with this lock.
        return this.#save(trx, origin, { row, webhooks: 1 }, input);
      });
    } finally {
      this.deps.cache.invalidate(siteChangeTags(workspaceId, id));
    }
  }

  /**
   * Merges the update into the stored site inside one transaction that holds the row, so two
   * concurrent updates of different fields both land. If-Match is checked under the same lock.
   */
  async update(caller: SiteCaller, origin: ChangeOrigin, id: string, input: SiteUpdate, ifMatch: string | undefined): Promise<SiteRow> {
    checkSiteInput(input);
    const touched: { workspaceId?: string } = {};
    try {
      return await this.#updateLocked(caller, origin, id, input, ifMatch, touched);
    } finally {
      this.deps.cache.invalidate(siteChangeTags(touched.workspaceId, id));
    }
  }

  /** `touched` learns the site's workspace once it is read, for the cache to be told. */
  #updateLocked(caller: SiteCaller, origin: ChangeOrigin, id: string, input: SiteUpdate, ifMatch: string | undefined, touched: { workspaceId?: string }): Promise<SiteRow> {
    return this.deps.db.transaction().execute(async (trx) => {
      const found = await this.#lockFoundFor(trx, caller, id, 'site.update');
      touched.workspaceId = found.site.workspace_id;
      const review = directChangeReview(found);
      if (!ifMatchSatisfied(ifMatch, siteEtag(found.site))) {
        throw new AppError(412, SITE_ERRORS.PRECONDITION_FAILED, 'The site has changed since you read it (If-Match does not match); reload it and apply your change again.');
      }
      return this.#save(trx, origin, { row: found.site, webhooks: found.webhooks }, input, { review });
    });
  }

  /**
   * Saves an update of a locked row as the next version, in the caller's transaction: the row, its
   * version in the history and its audit event commit together or not at all.
   */
  async #save(
    trx: Transaction<Database>,
    origin: ChangeOrigin,
    { row, webhooks }: LockedSite,
    input: SiteUpdate,
    how: { restoredFrom?: number; review?: VersionReview | undefined } = {},
  ): Promise<SiteRow> {
    const { restoredFrom, review } = how;
    const updated: SiteRow = { ...row, ...this.#changes(row, input), version: row.version + 1, updated_at: this.deps.clock.now().toISOString() };
    const changes = siteChanges(row, updated);
    const version = siteVersionRow(origin, {
      site: siteToJson(updated),
      version: updated.version,
      changes,
      ...(restoredFrom === undefined ? {} : { restoredFrom }),
      ...(review === undefined ? {} : { review }),
    });
    const { paths, token } = changedPaths(changes);
    const facts = {
      changed: paths,
      ...(token === undefined ? {} : { access_token: token }),
      ...(restoredFrom === undefined ? {} : { restored_from: restoredFrom }),
      ...review,
    };
    const action = restoredFrom === undefined ? 'site.updated' : 'site.restored';
    const event = auditEventRow(this.deps.clock, origin, { workspaceId: row.workspace_id, action, target: siteTarget(updated), details: { version: updated.version, ...facts } });
    await saveSiteChange(trx, this.deps.dialect, { site: updated, version, event });
    if (webhooks > 0) await this.#publish(trx, origin, action, updated, facts);
    return updated;
  }

  /** A site's versions, newest first (members who may read the site). */
  async versions(caller: SiteCaller, id: string, limit: number, before: number | undefined): Promise<{ versions: SiteVersionJson[]; nextCursor: string | null }> {
    await this.getFor(caller, id, 'site.read');
    // One row more than asked says whether another page follows.
    const rows = await listSiteVersions(this.deps.db, id, before, limit + 1);
    const versions = rows.slice(0, limit).map((row) => siteVersionToJson(row, false));
    const last = versions.at(-1);
    return { versions, nextCursor: rows.length > limit && last !== undefined ? String(last.version) : null };
  }

  /** One version, with the site as it was then. */
  async version(caller: SiteCaller, id: string, version: number): Promise<SiteVersionJson> {
    await this.getFor(caller, id, 'site.read');
    const row = await findSiteVersion(this.deps.db, id, version);
    if (row === undefined) throw versionNotFound(version);
    return siteVersionToJson(row, true);
  }

  /**
   * Brings back a version's name, colour, settings and partner settings as a new version (editors),
   * under the row's lock and If-Match as an update. The partner access token is not part of a
   * version: the current one stays.
   */
  async restore(caller: SiteCaller, origin: ChangeOrigin, id: string, version: number, ifMatch: string | undefined): Promise<{ site: SiteRow; token: 'kept' | 'cleared' }> {
    let workspaceId: string | undefined;
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const found = await this.#lockFoundFor(trx, caller, id, 'site.update');
        const locked = { row: found.site, webhooks: found.webhooks };
        const { row } = locked;
        workspaceId = row.workspace_id;
        const review = directChangeReview(found);
        if (!ifMatchSatisfied(ifMatch, siteEtag(row))) {
          throw new AppError(412, SITE_ERRORS.PRECONDITION_FAILED, 'The site has changed since you read it (If-Match does not match); reload it and restore again.');
        }
        const recorded = await findSiteVersion(trx, id, version);
        if (recorded === undefined) throw versionNotFound(version);
        const site = await this.#save(trx, origin, locked, restoreInput(siteVersionToJson(recorded, true).site), { restoredFrom: version, review });
        // The token stays unless the restored URLs point at other origins, which it is not bound to.
        const token = row.partner_access_token !== null && site.partner_access_token === null ? 'cleared' : 'kept';
        return { site, token };
      });
    } finally {
      this.deps.cache.invalidate(siteChangeTags(workspaceId, id));
    }
  }

  /**
   * Moves a site to the trash (admins and owners of its workspace). It disappears from every
   * member-facing read and keeps its versions until it is restored or retention purges it.
   */
  async delete(caller: SiteCaller, origin: ChangeOrigin, id: string): Promise<void> {
    let workspaceId: string | undefined;
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        const { row, webhooks } = await this.#lockFor(trx, caller, id, 'site.delete');
        workspaceId = row.workspace_id;
        await trashSite(trx, row, this.deps.clock.now().toISOString(), origin.actor === null ? null : JSON.stringify(origin.actor));
        await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId: row.workspace_id, action: 'site.deleted', target: siteTarget(row) });
        if (webhooks > 0) await this.#publish(trx, origin, 'site.deleted', row, {});
      });
    } finally {
      this.deps.cache.invalidate(siteChangeTags(workspaceId, id));
    }
  }

  /** The trashed sites of the caller's workspaces (every member), most recently deleted first. */
  async trash(caller: SiteCaller, workspaceId: string | undefined, limit: number, cursor: string | undefined): Promise<{ entries: TrashEntryJson[]; nextCursor: string | null }> {
    const after = cursor === undefined ? undefined : decodeTrashCursor(cursor);
    // One row more than asked says whether another page follows.
    const rows = await listTrashedSites(this.deps.db, caller, workspaceId, after, limit + 1);
    const entries = rows.slice(0, limit).map((row) => trashEntry(row, this.deps.trashRetentionDays, siteToJson));
    const last = rows[limit - 1];
    return { entries, nextCursor: rows.length > limit && last !== undefined ? encodeTrashCursor(last) : null };
  }

  /** Brings a site back from the trash as it was (admins and owners, as for deleting it). */
  async restoreFromTrash(caller: SiteCaller, origin: ChangeOrigin, id: string): Promise<SiteRow> {
    let workspaceId: string | undefined;
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const found = await findTrashedSiteForUpdate(trx, this.deps.dialect, caller, id);
        if (found === undefined) throw siteNotFound();
        assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
        assertCan(found.role, 'site.delete', siteNotFound);
        workspaceId = found.site.workspace_id;
        await untrashSite(trx, found.site);
        await recordAuditEvent(trx, this.deps.clock, origin, {
          workspaceId: found.site.workspace_id,
          action: 'site.restored',
          target: siteTarget(found.site),
          details: { version: found.site.version, from: 'trash' },
        });
        await this.#publish(trx, origin, 'site.restored', found.site, { from: 'trash' });
        return { ...found.site, deleted_at: null, deleted_by: null };
      });
    } finally {
      this.deps.cache.invalidate(siteChangeTags(workspaceId, id));
    }
  }

  /**
   * Queues the change for the workspace's webhooks, in its transaction. The site is shown as the
   * API shows it (no token); the site's id orders its events.
   */
  #publish(trx: Transaction<Database>, origin: ChangeOrigin, type: WebhookEventType, site: SiteRow, facts: Record<string, unknown>): Promise<void> {
    return publishWebhookEvent(trx, this.deps.clock, {
      workspaceId: site.workspace_id,
      type,
      orderKey: site.id,
      data: () => ({ site: siteToJson(site), version: site.version, ...facts, ...eventActor(origin) }),
    });
  }

  /** The site, locked, with the caller's role read under the same lock; it must allow `action`. */
  async #lockFor(trx: Transaction<Database>, caller: SiteCaller, id: string, action: WorkspaceAction): Promise<LockedSite> {
    const found = await this.#lockFoundFor(trx, caller, id, action);
    return { row: found.site, webhooks: found.webhooks };
  }

  /** As #lockFor, with the caller's role and the workspace's review policy. */
  async #lockFoundFor(trx: Transaction<Database>, caller: SiteCaller, id: string, action: WorkspaceAction): Promise<LockedSiteRow> {
    const found = await findSiteForUpdate(trx, this.deps.dialect, caller, id);
    if (found === undefined) throw siteNotFound();
    assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
    assertCan(found.role, action, siteNotFound);
    return found;
  }

  /**
   * Saves a reviewed change (an applied change request) onto a site already locked in the caller's
   * transaction, as the next version naming the request: the same merge, history, audit event and
   * webhook event as a PUT. The caller reports the write to the cache (`changeTags`) after it ends.
   */
  saveReviewed(trx: Transaction<Database>, origin: ChangeOrigin, locked: LockedSite, input: SiteUpdate, changeRequest: { id: string; title: string }): Promise<SiteRow> {
    return this.#save(trx, origin, locked, input, { review: { change_request: changeRequest } });
  }

  /**
   * The proposal a PUT body would make of the site, nothing written: the same checks (400 naming
   * the field, 413 for sizes) and the same merge, and what it changes, path by path.
   */
  proposeChange(row: SiteRow, input: SiteUpdate): { proposed: SiteRow; changes: SiteChange[] } {
    checkSiteInput(input);
    const proposed: SiteRow = { ...row, ...this.#changes(row, input) };
    return { proposed, changes: siteChanges(row, proposed) };
  }

  /** The columns an input changes; fields left out keep their value. */
  #changes(row: SiteRow, input: SiteUpdate): Updateable<SitesTable> {
    const changes: Updateable<SitesTable> = {};
    if (input.name !== undefined) changes.name = input.name;
    // Stored lower-case, as sent: #ABC becomes #abc, not #aabbcc.
    if (input.color !== undefined) changes.color = input.color.toLowerCase();
    for (const field of SETTINGS_FIELDS) {
      const value = input[field];
      if (value !== undefined) changes[field] = value;
    }
    const partner = input.partner_settings;
    if (partner !== undefined) {
      const merged = mergePartnerSettings(row, partner);
      changes.partner_settings = JSON.stringify(merged.settings);
      if (merged.token.change === 'clear') {
        changes.partner_access_token = null;
        changes.partner_token_origins = null;
      } else if (merged.token.change === 'replace') {
        changes.partner_access_token = this.deps.secrets.encrypt(merged.token.value, partnerTokenContext(row.id));
        changes.partner_token_origins = encodeTokenOrigins(merged.token.origins);
      }
    }
    return changes;
  }

  /**
   * The partner settings a PUT with this partner_settings would store, and what it would do with
   * the token: the same checks (400 naming the field) and the same merge, nothing written.
   */
  draftPartnerSettings(row: SiteRow, partner: PartnerSettingsUpdate): MergedPartnerSettings {
    checkSiteInput({ partner_settings: partner });
    return mergePartnerSettings(row, partner);
  }

  /**
   * Stores a partner connection check's result. Only the three result fields are merged into the
   * stored settings, under the row lock, so a PUT that landed while the check ran keeps its
   * changes. The version (ETag) moves because the representation changed; updated_at does not,
   * since it records changes to the configuration.
   */
  async recordPartnerCheck(
    workspaceId: string,
    id: string,
    result: PartnerCheckResult,
    alsoRecord?: (trx: Transaction<Database>) => Promise<void>,
  ): Promise<{ site: SiteRow; statusChange: PartnerStatusChange | null }> {
    try {
      return await this.#recordPartnerCheckLocked(workspaceId, id, result, alsoRecord);
    } finally {
      this.deps.cache.invalidate(siteChangeTags(workspaceId, id));
    }
  }

  /**
   * `alsoRecord` writes in the same transaction, under the row lock (the check's details). A
   * change between ok and error is recorded once, by the check that saw it: an audit event and a
   * partner.status_changed webhook event, by Siteward.
   */
  #recordPartnerCheckLocked(
    workspaceId: string,
    id: string,
    result: PartnerCheckResult,
    alsoRecord?: (trx: Transaction<Database>) => Promise<void>,
  ): Promise<{ site: SiteRow; statusChange: PartnerStatusChange | null }> {
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await lockSiteInWorkspace(trx, this.deps.dialect, workspaceId, id);
      if (row === undefined) throw siteNotFound();
      await alsoRecord?.(trx);
      const stored = readPartnerSettings(row);
      const settings: StoredPartnerSettings = {
        ...stored,
        last_status: result.last_status,
        last_error: result.last_error,
        last_checked_at: result.last_checked_at,
      };
      const changes = { partner_settings: JSON.stringify(settings), version: row.version + 1 };
      await updateSite(trx, workspaceId, id, changes);
      const site = { ...row, ...changes };
      const statusChange = partnerStatusChange(stored.last_status, result.last_status);
      if (statusChange !== null) {
        const facts = { status: statusChange, error: result.last_error, checked_at: result.last_checked_at };
        await recordAuditEvent(trx, this.deps.clock, SYSTEM, { workspaceId, action: 'partner.status_changed', target: siteTarget(site), details: facts });
        await publishWebhookEvent(trx, this.deps.clock, {
          workspaceId,
          type: 'partner.status_changed',
          orderKey: id,
          data: () => ({ site: { id, workspace_id: workspaceId, name: site.name }, ...facts, ...eventActor(SYSTEM) }),
        });
      }
      return { site, statusChange };
    });
  }

  /** The partner access token in clear, for the connection check only. */
  partnerAccessToken(row: SiteRow): string | null {
    return row.partner_access_token === null ? null : this.deps.secrets.decrypt(row.partner_access_token, partnerTokenContext(row.id));
  }

  /** The origins the stored partner access token may be sent to; null when none (or no token). */
  partnerTokenOrigins(row: SiteRow): PartnerTokenOrigins | null {
    return row.partner_access_token === null ? null : readTokenOrigins(row);
  }
}

/** Binds the ciphertext to its site: copied into another row it fails to decrypt. */
function partnerTokenContext(siteId: string): string {
  return `site:${siteId}:partner_access_token`;
}

export function siteNotFound(): AppError {
  // A site of a workspace the caller is not in is "not found" too: its existence is not revealed.
  return new AppError(404, SITE_ERRORS.SITE_NOT_FOUND, 'No site with this id.');
}

export interface SitePage {
  sites: SiteRow[];
  nextCursor: string | null;
}

const DEFAULT_ORDER: SiteListOrder = { sort: DEFAULT_SITE_LIST_SORT, q: '' };

/** The page from `limit + 1` rows; the extra row, if any, only says that another page follows. */
function pageOf(order: SiteListOrder, rows: SiteRow[], limit: number): SitePage {
  const sites = rows.slice(0, limit);
  const last = sites.at(-1);
  if (rows.length <= limit || last === undefined) return { sites, nextCursor: null };
  const position = sortsById(order.sort) ? { id: last.id } : { id: last.id, value: order.sort.endsWith('name') ? last.name : last.updated_at };
  return { sites, nextCursor: encodeListCursor(order, position) };
}
