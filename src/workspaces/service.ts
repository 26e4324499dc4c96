import { reauthenticationRequired } from '../auth/recent-authentication.js';
import type { Kysely, Transaction } from 'kysely';
import type { Cache } from '../cache/cache.js';
import { membershipsTag, workspaceSitesTag, workspaceTag } from '../cache/change-feed.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { recordAuditEvent } from '../audit/queries.js';
import { publishMemberEvent } from '../webhooks/outbox.js';
import { COMMAND_LINE, type ChangeOrigin, type PersonOrigin } from '../audit/origin.js';
import { findUserById } from '../users/queries.js';
import { hasSecondFactor } from '../auth/queries.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { withdrawApprovalsOf } from '../change-requests/queries.js';
import { assertCan, can, grantsAdministration, memberChangeAction, workspaceNotFound, type WorkspaceRole } from '../memberships/permissions.js';
import { withdrawInvitationsBeyondRole } from './invitation-withdrawal.js';
import { memberToJson, workspaceToJson } from './presenter.js';
import {
  countMemberships,
  countOwners,
  deleteMember,
  deleteWorkspace,
  findRole,
  findWorkspaceOf,
  insertMember,
  insertWorkspace,
  listMemberIds,
  listMembers,
  listWorkspacesOf,
  lockWorkspace,
  lockWorkspaceOf,
  type MemberWorkspaceRow,
  renameWorkspace,
  setRequireTwoFactor,
  setReviewPolicy,
  updateMemberRole,
  type WorkspaceRow,
} from '../memberships/queries.js';
import type { MemberJson, WorkspaceJson } from './schema.js';

export interface WorkspaceServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told of every change after it commits: principals and site answers depend on memberships. */
  cache: Cache;
}

/** A generous ceiling on the workspaces one creates, so a script gone wrong cannot fill the table. */
export const MAX_WORKSPACES_PER_USER = 100;

/** What PATCH /api/v1/workspaces/{id} may change; a field left out keeps its value. */
export interface WorkspaceChanges {
  name?: string;
  requireTwoFactor?: boolean;
  /** The review policy (admins and owners); a field left out keeps its value. */
  review?: { required?: boolean; approvals?: number };
}

const memberNotFound = () => new AppError(404, WORKSPACE_ERRORS.MEMBER_NOT_FOUND, 'This user is not a member of the workspace.');
const twoFactorSetupRequired = () =>
  new AppError(
    409,
    WORKSPACE_ERRORS.TWO_FACTOR_SETUP_REQUIRED,
    'Turn on two-factor authentication for your own account first (an authenticator app or a passkey, under Settings > Security): requiring it of the members would otherwise shut you out too.',
  );
const lastOwner = () =>
  new AppError(409, WORKSPACE_ERRORS.LAST_OWNER, 'A workspace keeps at least one owner: make another member an owner first, or delete the workspace.');
const personalWorkspace = (detail: string) => new AppError(409, WORKSPACE_ERRORS.PERSONAL_WORKSPACE, detail);

/**
 * Workspaces and their members. The caller's role is read from the database under the
 * workspace's lock for every change (never from a cached principal), so a role just lowered or a
 * member just removed can change nothing, on any server.
 */
export class WorkspaceService {
  constructor(private readonly deps: WorkspaceServiceDeps) {}

  async list(userId: string): Promise<WorkspaceJson[]> {
    return (await listWorkspacesOf(this.deps.db, userId)).map((row) => workspaceToJson(row, userId));
  }

  async create(origin: PersonOrigin, name: string): Promise<WorkspaceJson> {
    const userId = origin.actor.id;
    const now = this.deps.clock.now();
    const workspace: WorkspaceRow = { id: newId(now), name: name.trim(), personal_user_id: null, require_two_factor: 0, review_required: 0, review_approvals: 1, created_at: now.toISOString(), updated_at: now.toISOString() };
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        if ((await countMemberships(trx, userId)) >= MAX_WORKSPACES_PER_USER) {
          throw new AppError(409, WORKSPACE_ERRORS.TOO_MANY_WORKSPACES, `You can be in at most ${MAX_WORKSPACES_PER_USER} workspaces; leave or delete one first.`);
        }
        await insertWorkspace(trx, workspace, userId);
        await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId: workspace.id, action: 'workspace.created', target: { type: 'workspace', id: workspace.id, name: workspace.name } });
      });
    } finally {
      this.deps.cache.invalidate([membershipsTag(userId)]);
    }
    return workspaceToJson({ ...workspace, role: 'owner' }, userId);
  }

  async get(userId: string, workspaceId: string): Promise<WorkspaceJson> {
    const row = await findWorkspaceOf(this.deps.db, userId, workspaceId);
    if (row === undefined) throw workspaceNotFound();
    assertCan(row.role, 'workspace.read', workspaceNotFound);
    return workspaceToJson(row, userId);
  }

  /**
   * Renames the workspace and turns its requirement of two-factor authentication on or off
   * (owners), and sets its review policy (admins and owners). An owner turns it on only with a second factor of their own (409
   * two_factor_setup_required): they would otherwise shut themselves out. Every member's principal
   * depends on the workspace's row (workspaceTag), so the requirement holds from their next request.
   */
  async update(origin: PersonOrigin, workspaceId: string, changes: WorkspaceChanges): Promise<{ workspace: WorkspaceJson; requirementTurnedOn: boolean }> {
    const userId = origin.actor.id;
    return this.#locked(userId, workspaceId, [workspaceTag(workspaceId)], async (trx, workspace) => {
      // The name and the two-factor requirement are the owners'; the review policy is the admins' too.
      if (changes.name !== undefined || changes.requireTwoFactor !== undefined) assertCan(workspace.role, 'workspace.update', workspaceNotFound);
      if (changes.review !== undefined) assertCan(workspace.role, 'review.manage', workspaceNotFound);
      const now = this.deps.clock.now().toISOString();
      const details: Record<string, { before: unknown; after: unknown }> = {};
      const name = changes.name?.trim() ?? workspace.name;
      if (name !== workspace.name) {
        await renameWorkspace(trx, workspaceId, name, now);
        details.name = { before: workspace.name, after: name };
      }
      const required = changes.requireTwoFactor ?? workspace.require_two_factor === 1;
      if (required !== (workspace.require_two_factor === 1)) {
        if (required && !(await hasSecondFactor(trx, userId))) throw twoFactorSetupRequired();
        await setRequireTwoFactor(trx, workspaceId, required, now);
        details.require_two_factor = { before: !required, after: required };
      }
      const review = { required: changes.review?.required ?? workspace.review_required === 1, approvals: changes.review?.approvals ?? workspace.review_approvals };
      if (review.required !== (workspace.review_required === 1) || review.approvals !== workspace.review_approvals) {
        await setReviewPolicy(trx, workspaceId, review, now);
        details.review = { before: { required: workspace.review_required === 1, approvals: workspace.review_approvals }, after: review };
      }
      if (Object.keys(details).length > 0) {
        await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'workspace.updated', target: { type: 'workspace', id: workspaceId, name }, details });
      }
      const updated = {
        ...workspace,
        name,
        require_two_factor: required ? 1 : 0,
        review_required: review.required ? 1 : 0,
        review_approvals: review.approvals,
        updated_at: Object.keys(details).length === 0 ? workspace.updated_at : now,
      };
      return { workspace: workspaceToJson(updated, userId), requirementTurnedOn: details.require_two_factor !== undefined && required };
    });
  }

  /** Deletes a team workspace with its sites; every member's lists and principals are dropped. */
  async delete(userId: string, workspaceId: string): Promise<void> {
    const touched: string[] = [workspaceSitesTag(workspaceId)];
    await this.#locked(userId, workspaceId, touched, async (trx, workspace) => {
      assertCan(workspace.role, 'workspace.delete', workspaceNotFound);
      if (workspace.personal_user_id !== null) throw personalWorkspace('A personal workspace cannot be deleted; it goes with its account.');
      for (const memberId of await listMemberIds(trx, workspaceId)) touched.push(membershipsTag(memberId));
      await deleteWorkspace(trx, workspaceId);
    });
  }

  async members(userId: string, workspaceId: string): Promise<MemberJson[]> {
    const rows = await listMembers(this.deps.db, userId, workspaceId);
    // The caller is among the rows exactly when they are a member (the query joins on them).
    const caller = rows.find((row) => row.user_id === userId);
    assertCan(caller?.role, 'member.read', workspaceNotFound);
    return rows.map(memberToJson);
  }

  /**
   * Gives a member another role. Admins manage members below owner; making or unmaking an owner
   * is for owners; the last owner cannot be demoted, nor the person whose personal workspace it is.
   * Raising someone to admin or owner grants administration: only by a caller `recentlyAuthenticated`.
   */
  async changeRole(origin: PersonOrigin, workspaceId: string, memberId: string, role: WorkspaceRole, recentlyAuthenticated: boolean): Promise<MemberJson> {
    const userId = origin.actor.id;
    return this.#locked(userId, workspaceId, [membershipsTag(memberId)], async (trx, workspace) => {
      assertCan(workspace.role, 'member.read', workspaceNotFound);
      const current = await findRole(trx, workspaceId, memberId);
      if (current === undefined) throw memberNotFound();
      assertCan(workspace.role, memberChangeAction(current, role), workspaceNotFound);
      if (grantsAdministration(current, role) && !recentlyAuthenticated) throw reauthenticationRequired();
      if (current === 'owner' && role !== 'owner') await this.#keepOwnership(trx, workspace, memberId);
      const member = (await listMembers(trx, userId, workspaceId)).find((row) => row.user_id === memberId);
      if (member === undefined) throw memberNotFound();
      if (current === role) return memberToJson(member);
      await updateMemberRole(trx, workspaceId, memberId, role);
      await withdrawInvitationsBeyondRole(trx, this.deps.clock, origin, { workspaceId, senderId: memberId, newRole: role, reason: 'inviter_role_changed' });
      // An approval stands for a reviewer who kept the role since: a demotion withdraws it for good.
      const withdrawn = can(role, 'change_request.review') ? 0 : await withdrawApprovalsOf(trx, workspaceId, memberId);
      await recordAuditEvent(trx, this.deps.clock, origin, {
        workspaceId,
        action: 'member.role_changed',
        target: { type: 'member', id: memberId, name: member.email },
        details: { role: { before: current, after: role }, ...(withdrawn > 0 ? { approvals_withdrawn: withdrawn } : {}) },
      });
      return memberToJson({ ...member, role });
    });
  }

  /**
   * Adds a user to a workspace with a role, as the server's operator does from the command line.
   * Resolves false when they were a member already, whose role is then left as it was.
   */
  async addMember(workspaceId: string, memberId: string, role: WorkspaceRole, origin: ChangeOrigin = COMMAND_LINE): Promise<boolean> {
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const workspace = await lockWorkspace(trx, this.deps.dialect, workspaceId);
        if (workspace === undefined) throw workspaceNotFound();
        const member = await findUserById(trx, memberId);
        if (member === undefined) throw memberNotFound();
        const added = await insertMember(trx, { workspace_id: workspaceId, user_id: memberId, role, joined_at: this.deps.clock.now().toISOString() });
        if (added) {
          await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'member.joined', target: { type: 'member', id: memberId, name: member.email }, details: { role } });
          await publishMemberEvent(trx, this.deps.clock, origin, { type: 'member.joined', workspace, member, role });
        }
        return added;
      });
    } finally {
      this.deps.cache.invalidate([membershipsTag(memberId)]);
    }
  }

  /** Removes a member, or (memberId = the caller) leaves the workspace; the invitations they sent are withdrawn. */
  async removeMember(origin: PersonOrigin, workspaceId: string, memberId: string): Promise<void> {
    const userId = origin.actor.id;
    await this.#locked(userId, workspaceId, [membershipsTag(memberId)], async (trx, workspace) => {
      const current = memberId === userId ? workspace.role : await findRole(trx, workspaceId, memberId);
      if (current === undefined) {
        assertCan(workspace.role, 'member.read', workspaceNotFound);
        throw memberNotFound();
      }
      // Anyone may leave; removing someone else is managing members (an owner: owners only).
      if (memberId !== userId) assertCan(workspace.role, memberChangeAction(current, null), workspaceNotFound);
      if (current === 'owner' || workspace.personal_user_id === memberId) await this.#keepOwnership(trx, workspace, memberId);
      const member = await findUserById(trx, memberId);
      await deleteMember(trx, workspaceId, memberId);
      const reason = memberId === userId ? 'inviter_left' : 'inviter_removed';
      await withdrawInvitationsBeyondRole(trx, this.deps.clock, origin, { workspaceId, senderId: memberId, newRole: null, reason });
      // Their approvals go with them: joining again later revives none.
      const withdrawn = await withdrawApprovalsOf(trx, workspaceId, memberId);
      await recordAuditEvent(trx, this.deps.clock, origin, {
        workspaceId,
        action: memberId === userId ? 'member.left' : 'member.removed',
        target: { type: 'member', id: memberId, name: member?.email ?? '' },
        details: { role: current, ...(withdrawn > 0 ? { approvals_withdrawn: withdrawn } : {}) },
      });
      if (member !== undefined) {
        await publishMemberEvent(trx, this.deps.clock, origin, { type: 'member.removed', workspace, member, role: current, left: memberId === userId });
      }
    });
  }

  /** Refuses a change that would leave the workspace without an owner, or its personal user out. */
  async #keepOwnership(trx: Transaction<Database>, workspace: MemberWorkspaceRow, memberId: string): Promise<void> {
    if (workspace.personal_user_id === memberId) {
      throw personalWorkspace('The person whose personal workspace this is stays its owner: they cannot leave, be removed or be demoted.');
    }
    if ((await countOwners(trx, workspace.id)) <= 1) throw lastOwner();
  }

  /**
   * Runs `work` in a transaction holding the workspace's row lock, with the caller's role read
   * under it (404 when they are not a member); `touched` are reported to the cache after it ends,
   * committed or not (a commit whose answer was lost still changed the rows).
   */
  async #locked<T>(userId: string, workspaceId: string, touched: string[], work: (trx: Transaction<Database>, workspace: MemberWorkspaceRow) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const workspace = await lockWorkspaceOf(trx, this.deps.dialect, userId, workspaceId);
        if (workspace === undefined) throw workspaceNotFound();
        return work(trx, workspace);
      });
    } finally {
      this.deps.cache.invalidate(touched);
    }
  }
}
