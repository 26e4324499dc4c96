import type { Kysely, Transaction } from 'kysely';
import { type ChangeOrigin, type PersonOrigin, SYSTEM } from '../audit/origin.js';
import type { Mailer } from '../mail/mailer.js';
import { changeRequestFailedMessage, type ChangeRequestEvent, changeRequestMessage } from '../mail/templates.js';
import { recordAuditEvent } from '../audit/queries.js';
import type { Cache } from '../cache/cache.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, type SecretBox, secretsEqual, sha256 } from '../lib/crypto.js';
import type { PublicSiteRow } from '../delivery/queries.js';
import { newId } from '../lib/ids.js';
import { assertCan, assertTwoFactorMet, can, workspaceNotFound, type WorkspaceRole } from '../memberships/permissions.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { findAdminEmails, findReviewApprovals, findReviewRequired, findRole, lockRole } from '../memberships/queries.js';
import { hasSecondFactor } from '../auth/queries.js';
import { invalidatingAfter } from '../sites/writes.js';
import type { SiteUpdate } from '../sites/schema.js';
import { siteToJson } from '../sites/presenter.js';
import { assertExpectedVersion, type ExpectedVersions, type SiteCaller, siteNotFound, type SiteRow, type SiteService } from '../sites/service.js';
import { eventActor, publishWebhookEvent } from '../webhooks/outbox.js';
import { CHANGE_REQUEST_LIST_LIMIT, CHANGE_REQUEST_SCHEDULE_MAX_DAYS, type ChangeRequestStatus, type ConflictResolution, PENDING_CHANGE_REQUEST_STATUSES } from './contract.js';
import { CHANGE_REQUEST_ERRORS } from './errors.js';
import { type MergeConflict, mergeProposal, previewedRow, type ProposedChange } from './merge.js';
import { type ChangeRequestDetails, previewTokenContext } from './presenter.js';
import {
  type ChangeRequestRow,
  deleteApprovals,
  findAuthorStanding,
  findChangeRequest,
  findPreviewByTokenHash,
  findPreviewSite,
  insertApproval,
  insertChangeRequest,
  insertComment,
  listApprovals,
  listComments,
  listSiteChangeRequests,
  listWorkspaceChangeRequests,
  lockChangeRequest,
  updateChangeRequest,
} from './queries.js';

export interface ChangeRequestServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  secrets: SecretBox;
  cache: Cache;
  sites: SiteService;
  mailer: Mailer;
  publicUrl: string;
}

/** What a change request is opened with: a PUT body as the proposal. */
export interface ChangeRequestInput {
  title: string;
  description?: string | undefined;
  changes: SiteUpdate;
}

/** Why a due scheduled request failed, besides a conflict or a site in the trash: an apply-now would be refused. */
type ScheduledFailureCode = typeof CHANGE_REQUEST_ERRORS.AUTHOR_NOT_ALLOWED | typeof CHANGE_REQUEST_ERRORS.APPROVALS_MISSING | typeof WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED;

const PREVIEW_TOKEN_PREFIX = 'swp_';

function changeRequestNotFound(): AppError {
  return new AppError(404, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_NOT_FOUND, 'This site has no change request with this id.');
}

function notOpen(row: ChangeRequestRow, allowed: readonly ChangeRequestStatus[]): AppError {
  return new AppError(409, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_NOT_OPEN, `This change request is ${row.status}; only a request that is ${allowed.join(' or ')} can be changed this way.`);
}

function assertStatus(row: ChangeRequestRow, allowed: readonly ChangeRequestStatus[]): void {
  if (!allowed.includes(row.status)) throw notOpen(row, allowed);
}

export function conflictError(conflicts: MergeConflict[]): AppError {
  return new AppError(
    409,
    CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT,
    `The site changed since this request was made, at ${conflicts.map((conflict) => conflict.path).join(', ')}: settle each path (keep the proposal or take the current value) and apply again. Nothing was changed.`,
    { extensions: { conflicts } },
  );
}

/**
 * The partner access token is a secret: it is set directly by someone allowed to, never carried
 * in a proposal that every member reads and that waits in the database for review.
 */
function refuseSecrets(changes: SiteUpdate): void {
  if (changes.partner_settings !== undefined && 'access_token' in changes.partner_settings) {
    throw validationError([{ path: '/changes/partner_settings/access_token', message: 'a partner access token cannot be proposed; set it on the site directly' }]);
  }
}

function trimmedName(changes: SiteUpdate): SiteUpdate {
  return changes.name === undefined ? changes : { ...changes, name: changes.name.trim() };
}

/**
 * Change requests: a proposed change of a site, reviewed before it goes live. The proposal is kept
 * as paths of the history's diff with their value at the base version, so applying it later merges
 * path by path onto whatever the site has become (merge.ts).
 */
export class ChangeRequestService {
  constructor(private readonly deps: ChangeRequestServiceDeps) {}

  /** Opens a request (editors and above): the proposal is checked as a PUT would be, nothing of the site changes. */
  /**
   * `expected` (If-Match) names the versions the proposal was made from: checked under the site's
   * row lock in the transaction that opens the request, so a change of the site that commits
   * first makes it 412, and one that commits after finds the request based on the version named.
   */
  async open(caller: SiteCaller, origin: PersonOrigin, siteId: string, input: ChangeRequestInput, expected: ExpectedVersions = undefined): Promise<ChangeRequestDetails> {
    refuseSecrets(input.changes);
    const { site } = await this.deps.sites.getFor(caller, siteId, 'change_request.open');
    const changes = this.#proposal(site, input.changes);
    const now = this.deps.clock.now();
    const id = newId(now);
    const previewToken = PREVIEW_TOKEN_PREFIX + randomToken(32);
    const row: ChangeRequestRow = {
      id,
      workspace_id: site.workspace_id,
      site_id: site.id,
      title: input.title.trim(),
      description: input.description ?? '',
      status: 'open',
      author_id: origin.actor.id,
      author_email: origin.actor.email,
      author_name: origin.actor.name,
      base_version: site.version,
      changes: JSON.stringify(changes),
      scheduled_at: null,
      applied_version: null,
      failure: null,
      preview_token_hash: sha256(previewToken),
      preview_token: this.deps.secrets.encrypt(previewToken, previewTokenContext(id)),
      lease_owner: null,
      lease_until: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.deps.db.transaction().execute(async (trx) => {
      if (expected !== undefined) {
        const locked = await this.deps.sites.lockInWorkspace(trx, site.workspace_id, site.id);
        if (locked === undefined) throw siteNotFound();
        assertExpectedVersion(locked, expected, 'propose the change again');
        // Read before the lock: the proposal was checked against a version that has moved since.
        assertExpectedVersion(locked, [site.version], 'propose the change again');
      }
      await insertChangeRequest(trx, row);
      await this.#recordEvent(trx, origin, row, 'change_request.opened', { paths: changes.map((change) => change.path) });
      await publishWebhookEvent(trx, this.deps.clock, {
        workspaceId: row.workspace_id,
        type: 'change_request.opened',
        orderKey: row.site_id,
        data: () => ({ change_request: this.#summary(row), site: { id: site.id, name: site.name }, ...eventActor(origin) }),
      });
    });
    // The reviewers are told; the author, if one of them, knows already.
    for (const to of await findAdminEmails(this.deps.db, row.workspace_id)) {
      if (to !== origin.actor.email) this.#notify(to, 'opened', row, site.name, origin);
    }
    return this.#details(row);
  }

  /** A site's requests, newest first (every member). */
  async listForSite(caller: SiteCaller, siteId: string, status: ChangeRequestStatus | undefined): Promise<ChangeRequestDetails[]> {
    await this.deps.sites.getFor(caller, siteId, 'site.read');
    return this.#detailsOf(await listSiteChangeRequests(this.deps.db, siteId, status, CHANGE_REQUEST_LIST_LIMIT));
  }

  /** The review queue of a workspace: requests on its live sites, open and scheduled unless asked otherwise. */
  async queue(caller: SiteCaller & { memberships: ReadonlyMap<string, WorkspaceRole> }, workspaceId: string, status: ChangeRequestStatus | undefined): Promise<ChangeRequestDetails[]> {
    if (!caller.memberships.has(workspaceId) || (caller.workspaceId !== null && caller.workspaceId !== workspaceId)) throw workspaceNotFound();
    assertTwoFactorMet(caller.twoFactorMissingIn, workspaceId);
    const statuses = status === undefined ? PENDING_CHANGE_REQUEST_STATUSES : [status];
    return this.#detailsOf(await listWorkspaceChangeRequests(this.deps.db, workspaceId, statuses, CHANGE_REQUEST_LIST_LIMIT));
  }

  async get(caller: SiteCaller, siteId: string, id: string): Promise<ChangeRequestDetails> {
    await this.deps.sites.getFor(caller, siteId, 'site.read');
    const row = await findChangeRequest(this.deps.db, siteId, id);
    if (row === undefined) throw changeRequestNotFound();
    return this.#details(row);
  }

  /**
   * The author changes their open request. New changes are proposed against the site as it is now
   * (the base moves to the current version). Every approval is withdrawn: they approved another text.
   */
  async update(caller: SiteCaller, origin: PersonOrigin, siteId: string, id: string, input: Partial<ChangeRequestInput>): Promise<ChangeRequestDetails> {
    if (input.changes !== undefined) refuseSecrets(input.changes);
    const { site, role } = await this.deps.sites.getFor(caller, siteId, 'site.read');
    const row = await this.#locked(siteId, id, async (trx, locked) => {
      this.#assertAuthor(locked, origin, role);
      assertStatus(locked, ['open']);
      const changes: Partial<ChangeRequestRow> = { updated_at: this.deps.clock.now().toISOString() };
      if (input.title !== undefined) changes.title = input.title.trim();
      if (input.description !== undefined) changes.description = input.description;
      if (input.changes !== undefined) {
        changes.changes = JSON.stringify(this.#proposal(site, input.changes));
        changes.base_version = site.version;
      }
      await updateChangeRequest(trx, id, changes);
      await deleteApprovals(trx, id);
      return { ...locked, ...changes };
    });
    return this.#details(row);
  }

  /** A comment by a member who may propose changes (editors and above), while the request is open or scheduled. */
  async comment(caller: SiteCaller, origin: PersonOrigin, siteId: string, id: string, body: string): Promise<ChangeRequestDetails> {
    await this.deps.sites.getFor(caller, siteId, 'change_request.open');
    const row = await this.#locked(siteId, id, async (trx, locked) => {
      assertStatus(locked, ['open', 'scheduled']);
      await this.#insertComment(trx, origin, id, body);
      return locked;
    });
    return this.#details(row);
  }

  /** An approval by an admin or owner who is not the author. Approving twice is one approval. */
  async approve(caller: SiteCaller, origin: PersonOrigin, siteId: string, id: string): Promise<ChangeRequestDetails> {
    await this.deps.sites.getFor(caller, siteId, 'change_request.review');
    const row = await this.#locked(siteId, id, async (trx, locked) => {
      // Read again under a share lock of the approver's membership: a demotion that committed first
      // refuses this approval, and one that commits after waits for it and then withdraws it.
      assertCan(await lockRole(trx, this.deps.dialect, locked.workspace_id, origin.actor.id), 'change_request.review', siteNotFound);
      if (locked.author_id === origin.actor.id) {
        throw new AppError(403, CHANGE_REQUEST_ERRORS.SELF_APPROVAL, 'You cannot approve your own change request; another admin or owner reviews it.');
      }
      assertStatus(locked, ['open']);
      await insertApproval(trx, id, origin.actor.id, this.deps.clock.now().toISOString());
      await this.#recordEvent(trx, origin, locked, 'change_request.approved', {});
      return locked;
    });
    await this.#notifyAuthor(row, 'approved', origin);
    return this.#details(row);
  }

  /** Declines an open or scheduled request (admins and owners), with an optional comment for the author. */
  async decline(caller: SiteCaller, origin: PersonOrigin, siteId: string, id: string, comment: string | undefined): Promise<ChangeRequestDetails> {
    await this.deps.sites.getFor(caller, siteId, 'change_request.review');
    const row = await this.#locked(siteId, id, async (trx, locked) => {
      assertCan(await findRole(trx, locked.workspace_id, origin.actor.id), 'change_request.review', siteNotFound);
      assertStatus(locked, ['open', 'scheduled']);
      if (comment !== undefined) await this.#insertComment(trx, origin, id, comment);
      const ended = await this.#end(trx, locked, 'declined');
      await this.#recordEvent(trx, origin, locked, 'change_request.declined', {});
      return ended;
    });
    await this.#notifyAuthor(row, 'declined', origin);
    return this.#details(row);
  }

  /** Withdraws an open or scheduled request: its author, or an admin or owner. */
  async close(caller: SiteCaller, origin: PersonOrigin, siteId: string, id: string): Promise<ChangeRequestDetails> {
    const { role } = await this.deps.sites.getFor(caller, siteId, 'site.read');
    const row = await this.#locked(siteId, id, async (trx, locked) => {
      this.#assertAuthorOrReviewer(locked, origin, role);
      assertStatus(locked, ['open', 'scheduled']);
      return this.#end(trx, locked, 'closed');
    });
    return this.#details(row);
  }

  /**
   * Applies the request now, or schedules it (`at`): its author, an admin or an owner, once the
   * workspace's approvals are in. Under the site's row lock, the proposal merges path by path onto
   * the current site (conflicts: 409 and nothing changes) and becomes one version naming the request.
   */
  async apply(
    caller: SiteCaller,
    origin: PersonOrigin,
    siteId: string,
    id: string,
    options: { at?: string | undefined; resolve?: Record<string, ConflictResolution> | undefined },
  ): Promise<ChangeRequestDetails> {
    const at = options.at === undefined ? undefined : this.#scheduleTime(options.at);
    const row = await invalidatingAfter(this.deps.cache, { siteId }, (touched) =>
      this.deps.db.transaction().execute(async (trx) => {
        const found = await this.deps.sites.findForUpdate(trx, caller, siteId);
        if (found === undefined) throw await this.#missingSite(trx, caller, siteId);
        touched.workspaceId = found.site.workspace_id;
        assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
        assertCan(found.role, 'site.read', siteNotFound);
        const locked = await lockChangeRequest(trx, this.deps.dialect, siteId, id);
        if (locked === undefined) throw changeRequestNotFound();
        this.#assertAuthorOrReviewer(locked, origin, found.role);
        assertStatus(locked, ['open', 'scheduled']);
        if (found.reviewRequired) await this.#assertApproved(trx, locked);
        if (at !== undefined) {
          const scheduled = { status: 'scheduled' as const, scheduled_at: at, updated_at: this.deps.clock.now().toISOString() };
          await updateChangeRequest(trx, id, scheduled);
          return { ...locked, ...scheduled };
        }
        const proposal = JSON.parse(locked.changes) as ProposedChange[];
        this.#checkResolutions(proposal, options.resolve ?? {});
        const { input, conflicts } = mergeProposal(found.site, proposal, options.resolve);
        if (conflicts.length > 0) throw conflictError(conflicts);
        return this.#applyMerged(trx, origin, { row: found.site, webhooks: found.webhooks }, locked, input);
      }),
    );
    if (row.status === 'applied') await this.#notifyAuthor(row, 'applied', origin);
    return await this.#details(row);
  }

  /**
   * Applies a scheduled request that `leaseOwner` claimed, as Siteward. Under the site's and the
   * request's locks it must still be scheduled and still this claimant's (else another server, or a
   * person closing it, came first, and nothing happens). It must then pass what an apply-now by its
   * author would, read at this moment (#dueRefusal); a refusal, a conflict, or a site in the trash
   * makes it `failed` and mails its author; nothing of the site changes then.
   */
  async applyScheduled(claimed: { id: string; site_id: string; workspace_id: string }, leaseOwner: string): Promise<void> {
    const failed: { row?: ChangeRequestRow; siteName?: string; reason?: string } = {};
    let applied: ChangeRequestRow | undefined;
    await invalidatingAfter(this.deps.cache, { workspaceId: claimed.workspace_id, siteId: claimed.site_id }, () =>
      this.deps.db.transaction().execute(async (trx) => {
        const site = await this.deps.sites.lockInWorkspace(trx, claimed.workspace_id, claimed.site_id);
        const locked = await lockChangeRequest(trx, this.deps.dialect, claimed.site_id, claimed.id);
        if (locked === undefined || locked.status !== 'scheduled' || locked.lease_owner !== leaseOwner) return;
        if (site === undefined) {
          failed.row = await this.#fail(trx, locked, { code: CHANGE_REQUEST_ERRORS.SITE_IN_TRASH });
          failed.reason = 'the site is in the trash.';
          return;
        }
        // Approved and allowed when it was scheduled is not enough: people and policy may have changed since.
        const refused = await this.#dueRefusal(trx, locked);
        if (refused !== undefined) {
          failed.row = await this.#fail(trx, locked, { code: refused.code });
          failed.siteName = site.name;
          failed.reason = refused.reason;
          return;
        }
        const { input, conflicts } = mergeProposal(site, JSON.parse(locked.changes) as ProposedChange[]);
        if (conflicts.length > 0) {
          failed.row = await this.#fail(trx, locked, { code: CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT, conflicts });
          failed.siteName = site.name;
          failed.reason = `the site changed meanwhile at ${conflicts.map((conflict) => conflict.path).join(', ')}.`;
          return;
        }
        // The outbox reads the workspace's subscriptions itself: no count was read with this lock.
        applied = await this.#applyMerged(trx, SYSTEM, { row: site, webhooks: 1 }, locked, input);
      }),
    );
    if (applied !== undefined) await this.#notifyAuthor(applied, 'applied', SYSTEM);
    const { row, reason } = failed;
    if (row !== undefined && reason !== undefined && row.author_id !== null) {
      const link = new URL(`/sites/${row.site_id}`, this.deps.publicUrl).href;
      this.deps.mailer.send(changeRequestFailedMessage(row.author_email, { title: row.title, siteName: failed.siteName ?? 'in the trash', reason, link }));
    }
  }

  /** Tells the author, unless they did it themselves or their account is gone. */
  async #notifyAuthor(row: ChangeRequestRow, event: ChangeRequestEvent, origin: ChangeOrigin): Promise<void> {
    if (row.author_id === null || row.author_id === origin.actor?.id) return;
    this.#notify(row.author_email, event, row, (await this.deps.sites.nameOf(row.site_id)) ?? '', origin);
  }

  #notify(to: string, event: ChangeRequestEvent, row: ChangeRequestRow, siteName: string, origin: ChangeOrigin): void {
    const actor = origin.actor === null ? 'Siteward' : origin.actor.name === '' ? origin.actor.email : origin.actor.name;
    const link = new URL(`/sites/${row.site_id}`, this.deps.publicUrl).href;
    this.deps.mailer.send(changeRequestMessage(to, event, { title: row.title, siteName, actor, link }));
  }

  async #fail(trx: Transaction<Database>, row: ChangeRequestRow, failure: { code: string; conflicts?: MergeConflict[] }): Promise<ChangeRequestRow> {
    const changes = { status: 'failed' as const, failure: JSON.stringify(failure), lease_owner: null, lease_until: null, updated_at: this.deps.clock.now().toISOString() };
    await updateChangeRequest(trx, row.id, changes);
    const failed = { ...row, ...changes };
    await this.#recordEvent(trx, SYSTEM, failed, 'change_request.failed', { reason: failure.code, ...(failure.conflicts === undefined ? {} : { paths: failure.conflicts.map((conflict) => conflict.path) }) });
    return failed;
  }

  /**
   * The site's public columns as the request would leave them, for the holder of its preview
   * token, while the request is open or scheduled and the key is its site's current one. The token
   * is found by its hash and the hashes compared in constant time.
   */
  async preview(publicKey: string, token: string): Promise<PublicSiteRow | undefined> {
    if (!token.startsWith(PREVIEW_TOKEN_PREFIX)) return undefined;
    const tokenHash = sha256(token);
    const request = await findPreviewByTokenHash(this.deps.db, tokenHash);
    if (request === undefined || !secretsEqual(request.preview_token_hash, tokenHash)) return undefined;
    const site = await findPreviewSite(this.deps.db, request.site_id, publicKey);
    if (site === undefined) return undefined;
    return previewedRow(site, JSON.parse(request.changes) as ProposedChange[]);
  }

  /** Writes the merged change as the site's next version and marks the request applied, in the caller's transaction. */
  async #applyMerged(trx: Transaction<Database>, origin: ChangeOrigin, site: { row: SiteRow; webhooks: number }, locked: ChangeRequestRow, input: SiteUpdate): Promise<ChangeRequestRow> {
    const saved = await this.deps.sites.saveReviewed(trx, origin, site, input, { id: locked.id, title: locked.title });
    const applied = { status: 'applied' as const, applied_version: saved.version, lease_owner: null, lease_until: null, updated_at: saved.updated_at };
    await updateChangeRequest(trx, locked.id, applied);
    const row = { ...locked, ...applied };
    await this.#recordEvent(trx, origin, row, 'change_request.applied', { version: saved.version });
    await publishWebhookEvent(trx, this.deps.clock, {
      workspaceId: row.workspace_id,
      type: 'change_request.applied',
      orderKey: row.site_id,
      data: () => ({ change_request: this.#summary(row), site: siteToJson(saved), version: saved.version, ...eventActor(origin) }),
    });
    return row;
  }

  /** Every path a resolution names must be one the request changes: a typo must not pass for a decision. */
  #checkResolutions(proposal: readonly ProposedChange[], resolve: Record<string, ConflictResolution>): void {
    const paths = new Set(proposal.map((change) => change.path));
    const unknown = Object.keys(resolve).filter((path) => !paths.has(path));
    if (unknown.length > 0) throw validationError(unknown.map((path) => ({ path: `/resolve/${path.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'the request does not change this path' })));
  }

  async #assertApproved(trx: Transaction<Database>, row: ChangeRequestRow): Promise<void> {
    const { required, approvals } = await this.#approvalCount(trx, row);
    if (approvals < required) {
      throw new AppError(409, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING, `This workspace requires ${required} approval(s) before a change goes live; this request has ${approvals}.`);
    }
  }

  /** The approvals the workspace's policy asks for, and how many of the request's still count (listApprovals). */
  async #approvalCount(trx: Transaction<Database>, row: ChangeRequestRow): Promise<{ required: number; approvals: number }> {
    const required = await findReviewApprovals(trx, row.workspace_id);
    const approvals = (await listApprovals(trx, row.workspace_id, [row.id])).length;
    return { required, approvals };
  }

  /**
   * Why an apply-now by the request's author would be refused at this moment, if it would: a
   * scheduled request goes live as its author's act, so the author must still be an enabled member
   * whose role may apply it, with a second factor where the workspace requires one, and the
   * workspace's policy as it is now must find the approvals that still count. The reason is told
   * to the author by mail.
   */
  async #dueRefusal(trx: Transaction<Database>, row: ChangeRequestRow): Promise<{ code: ScheduledFailureCode; reason: string } | undefined> {
    const author = row.author_id === null ? undefined : await findAuthorStanding(trx, row.workspace_id, row.author_id);
    const notAllowed = CHANGE_REQUEST_ERRORS.AUTHOR_NOT_ALLOWED;
    if (row.author_id === null || author === undefined) return { code: notAllowed, reason: 'you are no longer a member of its workspace.' };
    if (author.disabled) return { code: notAllowed, reason: 'your account is disabled.' };
    if (!can(author.role, 'change_request.open')) return { code: notAllowed, reason: `your role in its workspace (${author.role}) no longer allows applying it.` };
    if (author.requireTwoFactor && !(await hasSecondFactor(trx, row.author_id))) {
      return { code: WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED, reason: 'its workspace requires two-factor authentication, and your account has neither an authenticator app nor a passkey.' };
    }
    if (!(await findReviewRequired(trx, row.workspace_id))) return undefined;
    const { required, approvals } = await this.#approvalCount(trx, row);
    if (approvals >= required) return undefined;
    return {
      code: CHANGE_REQUEST_ERRORS.APPROVALS_MISSING,
      reason: `its workspace requires ${required} approval(s), and ${approvals} still count (an approval is withdrawn when its giver is demoted, removed or disabled).`,
    };
  }

  /** A site that is gone from the caller's reads: in the trash (said plainly to its members), or not theirs (404). */
  async #missingSite(trx: Transaction<Database>, caller: SiteCaller, siteId: string): Promise<AppError> {
    const trashed = await this.deps.sites.findTrashedForUpdate(trx, caller, siteId);
    if (trashed === undefined) return siteNotFound();
    return new AppError(409, CHANGE_REQUEST_ERRORS.SITE_IN_TRASH, 'The site of this change request is in the trash: restore it first, then apply the request.');
  }

  #scheduleTime(at: string): string {
    const when = new Date(at);
    const now = this.deps.clock.now();
    if (Number.isNaN(when.getTime()) || when <= now) throw validationError([{ path: '/at', message: 'must be a time in the future' }]);
    if (when.getTime() - now.getTime() > CHANGE_REQUEST_SCHEDULE_MAX_DAYS * 86_400_000) {
      throw validationError([{ path: '/at', message: `must be at most ${CHANGE_REQUEST_SCHEDULE_MAX_DAYS} days ahead` }]);
    }
    return when.toISOString();
  }

  /** The proposal as paths, checked as PUT checks a body; the token's own entry (a URL moved) is the merge's to redo. */
  #proposal(site: SiteRow, changes: SiteUpdate): ProposedChange[] {
    const { changes: diff } = this.deps.sites.proposeChange(site, trimmedName(changes));
    const proposal = diff.filter((change): change is ProposedChange => !('change' in change));
    if (proposal.length === 0) {
      throw new AppError(400, CHANGE_REQUEST_ERRORS.NOTHING_TO_CHANGE, 'The proposed changes leave the site as it is: change at least one field.');
    }
    return proposal;
  }

  #assertAuthor(row: ChangeRequestRow, origin: PersonOrigin, role: WorkspaceRole): void {
    if (row.author_id !== origin.actor.id) throw new AppError(403, CHANGE_REQUEST_ERRORS.NOT_THE_AUTHOR, 'Only the author of a change request can change it.');
    assertCan(role, 'change_request.open', siteNotFound);
  }

  #assertAuthorOrReviewer(row: ChangeRequestRow, origin: PersonOrigin, role: WorkspaceRole): void {
    if (row.author_id === origin.actor.id && can(role, 'change_request.open')) return;
    assertCan(role, 'change_request.review', siteNotFound);
  }

  async #end(trx: Transaction<Database>, row: ChangeRequestRow, status: 'declined' | 'closed'): Promise<ChangeRequestRow> {
    const ended = { status, scheduled_at: null, lease_owner: null, lease_until: null, updated_at: this.deps.clock.now().toISOString() };
    await updateChangeRequest(trx, row.id, ended);
    return { ...row, ...ended };
  }

  #insertComment(trx: Transaction<Database>, origin: PersonOrigin, id: string, body: string): Promise<unknown> {
    const now = this.deps.clock.now();
    return insertComment(trx, { id: newId(now), change_request_id: id, user_id: origin.actor.id, user_email: origin.actor.email, user_name: origin.actor.name, body, at: now.toISOString() });
  }

  async #locked(siteId: string, id: string, work: (trx: Transaction<Database>, row: ChangeRequestRow) => Promise<ChangeRequestRow>): Promise<ChangeRequestRow> {
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await lockChangeRequest(trx, this.deps.dialect, siteId, id);
      if (row === undefined) throw changeRequestNotFound();
      return work(trx, row);
    });
  }

  #recordEvent(trx: Transaction<Database>, origin: ChangeOrigin, row: ChangeRequestRow, action: 'change_request.opened' | 'change_request.approved' | 'change_request.declined' | 'change_request.applied' | 'change_request.failed', details: Record<string, unknown>): Promise<void> {
    return recordAuditEvent(trx, this.deps.clock, origin, {
      workspaceId: row.workspace_id,
      action,
      target: { type: 'change_request', id: row.id, name: row.title },
      details: { site_id: row.site_id, ...details },
    });
  }

  #summary(row: ChangeRequestRow): Record<string, unknown> {
    return { id: row.id, title: row.title, status: row.status, base_version: row.base_version, changed: (JSON.parse(row.changes) as ProposedChange[]).map((change) => change.path) };
  }

  async #details(row: ChangeRequestRow): Promise<ChangeRequestDetails> {
    return (await this.#detailsOf([row]))[0] as ChangeRequestDetails;
  }

  /** The requests with their approvals and comments: two queries for any number of requests. */
  async #detailsOf(rows: ChangeRequestRow[]): Promise<ChangeRequestDetails[]> {
    const ids = rows.map((row) => row.id);
    const workspaceId = rows[0]?.workspace_id;
    const approvals = workspaceId === undefined ? [] : await listApprovals(this.deps.db, workspaceId, ids);
    const comments = await listComments(this.deps.db, ids);
    return rows.map((row) => ({
      row,
      approvals: approvals.filter((approval) => approval.change_request_id === row.id),
      comments: comments.filter((comment) => comment.change_request_id === row.id),
    }));
  }
}
