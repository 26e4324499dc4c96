import type { Kysely, Transaction, Updateable } from 'kysely';
import type { AuditViaType } from '../audit/contract.js';
import type { ChangeOrigin } from '../audit/origin.js';
import type { Cache } from '../cache/cache.js';
import type { DialectName } from '../db/connect.js';
import type { Database, SitesTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { generatePublicKey } from '../lib/public-keys.js';
import { assertCan, assertTwoFactorMet, type WorkspaceAction, workspaceNotFound } from '../memberships/permissions.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { findMemberships, findPersonalWorkspaceId, findReviewRequired, lockRole } from '../memberships/queries.js';
import { newSiteRow } from './defaults.js';
import { SITE_ERRORS } from './errors.js';
import { decodeListCursor, encodeListCursor, type SiteListOrder, sortsById } from './list-cursor.js';
import { decryptPartnerAccessToken, type MergedPartnerSettings, mergePartnerSettings, partnerSettingsColumns, type PartnerTokenOrigins, readTokenOrigins } from './partner-settings.js';
import {
  countSites,
  findSite,
  findSiteForUpdate,
  findSiteName,
  findTrashedSiteForUpdate,
  lockSiteInWorkspace,
  listSites,
  listSitesOrdered,
  type LockedSiteRow,
  type MemberSiteRow,
  type SiteCaller,
  type SiteRow,
} from './queries.js';
import { checkSiteInput, DEFAULT_SITE_LIST_SORT, type PartnerSettingsUpdate, SETTINGS_FIELDS, type SiteCreate, type SiteUpdate } from './schema.js';
import { invalidatingAfter, type SiteChange, siteChangeTags, siteChanges, type VersionReview, writeNewSite, writeNextVersion } from './writes.js';

// The rows other features are handed: they reach sites through this service, never its queries.
export type { LockedSiteRow, MemberSiteRow, SiteCaller, SiteRow } from './queries.js';

/** A site locked for a change, and whether its workspace has webhooks to tell (counted in the same read). */
export interface LockedSite {
  row: SiteRow;
  webhooks: number;
}

/** The versions a conditional write may replace (the route reads them from If-Match); undefined for any. */
export type ExpectedVersions = readonly number[] | undefined;

/** 412 unless the locked row is at a version the caller expected; `retry` says what to do again. */
export function assertExpectedVersion(row: SiteRow, expected: ExpectedVersions, retry: string): void {
  if (expected === undefined || expected.includes(row.version)) return;
  throw new AppError(412, SITE_ERRORS.PRECONDITION_FAILED, `The site has changed since you read it (If-Match does not match); reload it and ${retry}.`);
}

/**
 * The credentials of a person at the keyboard: a web session, or a JWT, which only a sign-in
 * issues. An access token is not one of them: it is a standing credential that a script, a
 * pipeline or whoever copied it holds, so it never bypasses review, whoever made it.
 */
const SIGNED_IN_VIA: ReadonlySet<AuditViaType> = new Set<AuditViaType>(['session', 'jwt']);

/**
 * While a workspace requires review, a direct change is an owner's alone, signed in as a person,
 * and its version says it bypassed review; editors, admins and every access token propose a
 * change request instead.
 */
export function directChangeReview(found: LockedSiteRow, origin: ChangeOrigin): VersionReview | undefined {
  if (!found.reviewRequired) return undefined;
  if (found.role !== 'owner' || !SIGNED_IN_VIA.has(origin.via.type)) {
    throw new AppError(
      403,
      SITE_ERRORS.REVIEW_REQUIRED,
      found.role === 'owner'
        ? 'This workspace requires review of changes, and an access token never bypasses it: sign in to change the site directly, or propose this change as a change request (POST /api/v1/sites/{id}/change-requests).'
        : 'This workspace requires review of changes: propose this change as a change request (POST /api/v1/sites/{id}/change-requests) instead.',
    );
  }
  return { review_bypassed: true };
}

/** What one change of the operator's import does (SiteService.applyAsOperator). */
export type OperatorChange =
  | { kind: 'create'; input: SiteUpdate & { name: string } }
  | { kind: 'update'; id: string; input: SiteUpdate; expectedVersion: number | null };

/**
 * While a workspace requires review, the operator's command line changes its sites only when told
 * to bypass review, and each version says it did, as an owner's direct change does.
 */
async function operatorReview(trx: Transaction<Database>, workspaceId: string, bypassReview: boolean): Promise<VersionReview | undefined> {
  const required = await findReviewRequired(trx, workspaceId);
  if (required === undefined) throw new AppError(404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND, `No workspace with the id ${workspaceId}.`);
  if (!required) return undefined;
  if (!bypassReview) throw new AppError(403, SITE_ERRORS.REVIEW_REQUIRED, 'This workspace requires review of changes: propose them in the dashboard, or import with --bypass-review (each version then says it bypassed review).');
  return { review_bypassed: true };
}

export interface SiteServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  secrets: SecretBox;
  /** Told of every write after it commits, so that it never serves what the write replaced. */
  cache: Cache;
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
    const empty = this.#emptyRow(targetId, userId, input.name);
    const row: SiteRow = { ...empty, ...this.#changes(empty, input), version: 1 };
    await invalidatingAfter(this.deps.cache, { workspaceId: targetId }, () =>
      this.deps.db.transaction().execute(async (trx) => {
        // The membership stays locked until the site is in: a removal or demotion waits for it.
        assertCan(await lockRole(trx, this.deps.dialect, targetId, userId), 'site.create', workspaceNotFound);
        await writeNewSite(trx, this.deps.clock, origin, { empty, row });
      }),
    );
    return row;
  }

  /** A new site's row before the input is merged in: the defaults, a new id and public key. */
  #emptyRow(workspaceId: string, userId: string | null, name: string): SiteRow {
    const at = this.deps.clock.now();
    return newSiteRow({ id: newId(at), workspaceId, userId, name, now: at.toISOString(), publicKey: generatePublicKey() });
  }

  /**
   * For the operator's command line (src/site-files): creates and updates of one workspace's sites
   * in one transaction, all committed or none. A created site has no member behind it (no
   * creator); an update lands when its site is still at `expectedVersion` (null: whatever it is
   * at), else 412 precondition_failed, and 404 when the site is no longer a live site of the
   * workspace. While the workspace requires review, the changes need `bypassReview`, and each
   * version then says it bypassed review, as an owner's direct change does.
   */
  async applyAsOperator(origin: ChangeOrigin, workspaceId: string, changes: readonly OperatorChange[], { bypassReview }: { bypassReview: boolean }): Promise<SiteRow[]> {
    const tags: string[] = siteChangeTags(workspaceId);
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const review = await operatorReview(trx, workspaceId, bypassReview);
        const saved: SiteRow[] = [];
        for (const change of changes) {
          checkSiteInput(change.input);
          if (change.kind === 'create') {
            const empty = this.#emptyRow(workspaceId, null, change.input.name);
            const row: SiteRow = { ...empty, ...this.#changes(empty, change.input), version: 1 };
            await writeNewSite(trx, this.deps.clock, origin, { empty, row }, review);
            saved.push(row);
            continue;
          }
          tags.push(...siteChangeTags(undefined, change.id));
          const row = await lockSiteInWorkspace(trx, this.deps.dialect, workspaceId, change.id);
          if (row === undefined) throw new AppError(404, SITE_ERRORS.SITE_NOT_FOUND, `The site ${change.id} is no longer a site of the workspace.`);
          if (change.expectedVersion !== null && row.version !== change.expectedVersion) {
            throw new AppError(412, SITE_ERRORS.PRECONDITION_FAILED, `The site ${change.id} is at version ${row.version}, not ${change.expectedVersion}.`);
          }
          // The outbox reads the workspace's subscriptions itself: no count was read with this lock.
          saved.push(await this.saveVersion(trx, origin, { row, webhooks: 1 }, change.input, { review }));
        }
        return saved;
      });
    } finally {
      this.deps.cache.invalidate(tags);
    }
  }

  /**
   * Merges the update into the stored site inside one transaction that holds the row, so two
   * concurrent updates of different fields both land. The expected version (If-Match) is checked under the same lock.
   */
  async update(caller: SiteCaller, origin: ChangeOrigin, id: string, input: SiteUpdate, expected: ExpectedVersions): Promise<SiteRow> {
    checkSiteInput(input);
    return invalidatingAfter(this.deps.cache, { siteId: id }, (touched) =>
      this.deps.db.transaction().execute(async (trx) => {
        const found = await this.lockFor(trx, caller, id, 'site.update');
        touched.workspaceId = found.site.workspace_id;
        const review = directChangeReview(found, origin);
        assertExpectedVersion(found.site, expected, 'apply your change again');
        return this.saveVersion(trx, origin, { row: found.site, webhooks: found.webhooks }, input, { review });
      }),
    );
  }

  /**
   * Saves an update of a locked row as the next version, in the caller's transaction (writes.ts):
   * the row, its version in the history and its audit event commit together or not at all.
   */
  async saveVersion(
    trx: Transaction<Database>,
    origin: ChangeOrigin,
    { row, webhooks }: LockedSite,
    input: SiteUpdate,
    how: { restoredFrom?: number; review?: VersionReview | undefined } = {},
  ): Promise<SiteRow> {
    const updated: SiteRow = { ...row, ...this.#changes(row, input), version: row.version + 1, updated_at: this.deps.clock.now().toISOString() };
    await writeNextVersion(trx, this.deps.clock, origin, { before: row, after: updated, webhooks }, how);
    return updated;
  }

  /**
   * The site, locked in the caller's transaction, with the caller's role and the workspace's review
   * policy read under the same lock; the role must allow `action`.
   */
  async lockFor(trx: Transaction<Database>, caller: SiteCaller, id: string, action: WorkspaceAction): Promise<LockedSiteRow> {
    const found = await findSiteForUpdate(trx, this.deps.dialect, caller, id);
    if (found === undefined) throw siteNotFound();
    assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
    assertCan(found.role, action, siteNotFound);
    return found;
  }

  /**
   * The site locked in the caller's transaction with the caller's role and the workspace's review
   * policy, unchecked: undefined when the caller is no member of its workspace or it is in the
   * trash. For a caller that answers those cases itself (change requests: a site in the trash).
   */
  findForUpdate(trx: Transaction<Database>, caller: SiteCaller, id: string): Promise<LockedSiteRow | undefined> {
    return findSiteForUpdate(trx, this.deps.dialect, caller, id);
  }

  /** A site of the caller's workspaces that is in the trash, locked in the caller's transaction. */
  findTrashedForUpdate(trx: Transaction<Database>, caller: SiteCaller, id: string): Promise<MemberSiteRow | undefined> {
    return findTrashedSiteForUpdate(trx, this.deps.dialect, caller, id);
  }

  /** A live site of `workspaceId`, locked in the caller's transaction, for work done as Siteward (no caller to check). */
  lockInWorkspace(trx: Transaction<Database>, workspaceId: string, id: string): Promise<SiteRow | undefined> {
    return lockSiteInWorkspace(trx, this.deps.dialect, workspaceId, id);
  }

  /** A site's name, in the trash or not, for a message about it; undefined once it is purged. */
  nameOf(id: string): Promise<string | undefined> {
    return findSiteName(this.deps.db, id);
  }

  /**
   * Saves a reviewed change (an applied change request) onto a site already locked in the caller's
   * transaction, as the next version naming the request: the same merge, history, audit event and
   * webhook event as a PUT. The caller reports the write to the cache (`changeTags`) after it ends.
   */
  saveReviewed(trx: Transaction<Database>, origin: ChangeOrigin, locked: LockedSite, input: SiteUpdate, changeRequest: { id: string; title: string }): Promise<SiteRow> {
    return this.saveVersion(trx, origin, locked, input, { review: { change_request: changeRequest } });
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
    if (input.partner_settings !== undefined) Object.assign(changes, partnerSettingsColumns(row, input.partner_settings, this.deps.secrets));
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

  /** The partner access token in clear, for the connection check only. */
  partnerAccessToken(row: SiteRow): string | null {
    return decryptPartnerAccessToken(row, this.deps.secrets);
  }

  /** The origins the stored partner access token may be sent to; null when none (or no token). */
  partnerTokenOrigins(row: SiteRow): PartnerTokenOrigins | null {
    return row.partner_access_token === null ? null : readTokenOrigins(row);
  }
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
