import { reauthenticationRequired } from '../auth/recent-authentication.js';
import type { Kysely } from 'kysely';
import { TOKEN_SHAPE } from '../auth/magic-link.js';
import type { Cache } from '../cache/cache.js';
import { membershipsTag } from '../cache/change-feed.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { markEmailVerified } from '../email-verification/queries.js';
import { assertEmailVerified } from '../email-verification/service.js';
import { AppError, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { PersonOrigin } from '../audit/origin.js';
import { recordAuditEvent } from '../audit/queries.js';
import { publishMemberEvent } from '../webhooks/outbox.js';
import type { Mailer } from '../mail/mailer.js';
import { invitationMessage } from '../mail/templates.js';
import { assertCan, grantsAdministration, workspaceNotFound, type WorkspaceRole } from '../memberships/permissions.js';
import { countMemberships, findRole, findWorkspaceOf, insertMember, lockWorkspace, lockWorkspaceOf } from '../memberships/queries.js';
import { RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import { USER_ERRORS } from '../users/errors.js';
import { findUserByEmail, findUserById, type UserRow } from '../users/queries.js';
import { checkEmail, normalizeEmail } from '../users/service.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import type { LinkRefusal } from '../security/event-types.js';
import {
  consumeInvitation,
  findInvitationByTokenHash,
  findPendingInvitation,
  insertInvitation,
  type InvitationRow,
  listPendingInvitations,
  revokeInvitation,
  revokePendingFor,
} from './invitation-queries.js';
import { invitationToJson, invitedRole, workspaceToJson } from './presenter.js';
import type { InvitationJson, WorkspaceJson } from './schema.js';
import { MAX_WORKSPACES_PER_USER } from './service.js';

export const INVITATION_LIFETIME_DAYS = 7;
const INVITATION_LIFETIME_MS = INVITATION_LIFETIME_DAYS * 24 * 60 * 60 * 1000;

export interface InvitationServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told of every membership an acceptance adds, after it commits. */
  cache: Cache;
  limiter: RateLimiter;
  mailer: Mailer;
  publicUrl: string;
}

/** What the accept page shows of an invitation that still works. */
export interface InvitationPreview {
  workspaceName: string;
  role: WorkspaceRole;
  email: string;
}

export interface AcceptedInvitation {
  workspace: WorkspaceJson;
  /** False when the caller was a member already (their role is kept). */
  joined: boolean;
  /** True when accepting was the first proof that the caller holds their address. */
  newlyVerified: boolean;
  user: UserRow;
}

export const invitationInvalid = () =>
  new AppError(410, WORKSPACE_ERRORS.INVITATION_INVALID, 'This invitation is unknown, already used, withdrawn or expired; ask for a new one.');
const invitationNotFound = () => new AppError(404, WORKSPACE_ERRORS.INVITATION_NOT_FOUND, 'No pending invitation with this id in this workspace.');

/**
 * Invitations to a workspace. The token exists only in the mail to the invited address (the
 * database keeps its SHA-256), so whoever accepts has read that mailbox, and only the account with
 * that address may accept: a forwarded or leaked link lets no one else in.
 */
export class InvitationService {
  constructor(private readonly deps: InvitationServiceDeps) {}

  /**
   * Invites an address with a role (admins; an owner only by an owner; admin or owner only after
   * a recent sign-in, `recentlyAuthenticated`) and
   * mails it the link. A pending invitation of the same address to the workspace is withdrawn: the
   * newest mail is the one that works.
   */
  async create(origin: PersonOrigin, workspaceId: string, emailInput: string, role: WorkspaceRole, recentlyAuthenticated: boolean): Promise<InvitationJson> {
    const userId = origin.actor.id;
    const { db, dialect, clock } = this.deps;
    const email = normalizeEmail(emailInput);
    const invalid = checkEmail(email);
    if (invalid.length > 0) throw validationError(invalid);
    const workspace = await findWorkspaceOf(db, userId, workspaceId);
    this.#assertMayInvite(workspace?.role, role, recentlyAuthenticated);
    // Read afresh: the request's principal may be cached from before a verification.
    const inviter = await findUserById(db, userId);
    if (inviter === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');
    // An address nobody proved to hold could be someone else's: it may not mail people in their name.
    assertEmailVerified(inviter);
    // Counted before anything is looked up or mailed: parallel requests cannot all pass one count.
    await this.deps.limiter.reserve([[`invitation:user:${userId}`, RATE_LIMITS.invitationsPerUser]]);

    const token = randomToken(32);
    const now = clock.now();
    const row: InvitationRow = {
      id: newId(now),
      workspace_id: workspaceId,
      email,
      role,
      token_hash: sha256(token),
      invited_by: userId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
      accepted_at: null,
      accepted_by: null,
      revoked_at: null,
    };
    const workspaceName = await db.transaction().execute(async (trx) => {
      // The role again, under the workspace's lock: one lowered meanwhile is the one that counts.
      const locked = await lockWorkspaceOf(trx, dialect, userId, workspaceId);
      this.#assertMayInvite(locked?.role, role, recentlyAuthenticated);
      const invited = await findUserByEmail(trx, email);
      if (invited !== undefined && (await findRole(trx, workspaceId, invited.id)) !== undefined) {
        throw new AppError(409, WORKSPACE_ERRORS.ALREADY_MEMBER, 'This address belongs to a member of the workspace already; change their role instead.');
      }
      await revokePendingFor(trx, workspaceId, email, row.created_at);
      await insertInvitation(trx, row);
      await recordAuditEvent(trx, clock, origin, { workspaceId, action: 'member.invited', target: { type: 'invitation', id: row.id, name: email }, details: { role } });
      return locked?.name ?? '';
    });
    const link = `${this.deps.publicUrl}/invitations/accept?token=${encodeURIComponent(token)}`;
    this.deps.mailer.send(invitationMessage(email, { link, workspaceName, role, inviterEmail: inviter.email, days: INVITATION_LIFETIME_DAYS }));
    return invitationToJson(row);
  }

  /** The workspace's pending invitations (admins). */
  async list(userId: string, workspaceId: string): Promise<InvitationJson[]> {
    const workspace = await findWorkspaceOf(this.deps.db, userId, workspaceId);
    assertCan(workspace?.role, 'invitation.manage', workspaceNotFound);
    return (await listPendingInvitations(this.deps.db, workspaceId, this.deps.clock.now().toISOString())).map(invitationToJson);
  }

  /** Withdraws a pending invitation (admins); its link stops working at once. */
  async revoke(origin: PersonOrigin, workspaceId: string, invitationId: string): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const workspace = await lockWorkspaceOf(trx, this.deps.dialect, origin.actor.id, workspaceId);
      assertCan(workspace?.role, 'invitation.manage', workspaceNotFound);
      const email = await revokeInvitation(trx, workspaceId, invitationId, this.deps.clock.now().toISOString());
      if (email === undefined) throw invitationNotFound();
      await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'invitation.revoked', target: { type: 'invitation', id: invitationId, name: email } });
    });
  }

  /** Why an invitation link could not be used (`mismatch`: it is another address's): for the security log. */
  async whyRefused(token: string, mismatch = false): Promise<{ reason: LinkRefusal; workspaceId?: string }> {
    const row = TOKEN_SHAPE.test(token) ? await findInvitationByTokenHash(this.deps.db, sha256(token)) : undefined;
    if (row === undefined) return { reason: mismatch ? 'email_mismatch' : 'unknown' };
    let reason: LinkRefusal = 'unknown';
    if (mismatch) reason = 'email_mismatch';
    else if (row.accepted_at !== null) reason = 'used';
    else if (row.revoked_at !== null) reason = 'withdrawn';
    else if (row.expires_at <= this.deps.clock.now().toISOString()) reason = 'expired';
    return { reason, workspaceId: row.workspace_id };
  }

  /** For the accept page: what the invitation offers, if it still works. Changes nothing. */
  async inspect(token: string): Promise<InvitationPreview | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const row = await findPendingInvitation(this.deps.db, sha256(token), this.deps.clock.now().toISOString());
    return row === undefined ? undefined : { workspaceName: row.workspace_name, role: invitedRole(row), email: row.email };
  }

  /**
   * Adds the caller to the invitation's workspace with its role, if the invited address is theirs.
   * A member already keeps their role; the invitation is used either way. Holding the token proves
   * the mailbox, and the caller's own sign-in proves the account: together they verify an
   * unverified address, which is how signing up from an invitation confirms it.
   */
  async accept(origin: PersonOrigin, token: string): Promise<AcceptedInvitation> {
    const userId = origin.actor.id;
    const { db, dialect, clock } = this.deps;
    if (!TOKEN_SHAPE.test(token)) throw invitationInvalid();
    const user = await findUserById(db, userId);
    if (user === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');
    const now = clock.now().toISOString();
    try {
      return await db.transaction().execute(async (trx) => {
        const invitation = await findPendingInvitation(trx, sha256(token), now);
        if (invitation === undefined) throw invitationInvalid();
        // Checked before the invitation is used: someone else signed in does not burn it.
        if (invitation.email !== normalizeEmail(user.email)) {
          throw new AppError(403, WORKSPACE_ERRORS.INVITATION_EMAIL_MISMATCH, `This invitation is for another e-mail address than ${user.email}; sign in with the invited address.`);
        }
        // The workspace's lock before the invitation's row, in the order every member change takes.
        const workspace = await lockWorkspace(trx, dialect, invitation.workspace_id);
        if (workspace === undefined || !(await consumeInvitation(trx, invitation.id, userId, now))) throw invitationInvalid();
        const current = await findRole(trx, workspace.id, userId);
        if (current === undefined && (await countMemberships(trx, userId)) >= MAX_WORKSPACES_PER_USER) {
          throw new AppError(409, WORKSPACE_ERRORS.TOO_MANY_WORKSPACES, `You can be in at most ${MAX_WORKSPACES_PER_USER} workspaces; leave one, then use the invitation again.`);
        }
        const joined = current === undefined && (await insertMember(trx, { workspace_id: workspace.id, user_id: userId, role: invitedRole(invitation), joined_at: now }));
        if (joined) {
          await recordAuditEvent(trx, clock, origin, {
            workspaceId: workspace.id,
            action: 'member.joined',
            target: { type: 'member', id: userId, name: user.email },
            details: { role: invitedRole(invitation), invitation_id: invitation.id },
          });
          await publishMemberEvent(trx, clock, origin, { type: 'member.joined', workspace, member: user, role: invitedRole(invitation) });
        }
        const newlyVerified = user.email_verified_at === null && (await markEmailVerified(trx, userId, now));
        const role = current ?? invitedRole(invitation);
        return {
          workspace: workspaceToJson({ ...workspace, role }, userId),
          joined,
          newlyVerified,
          user: newlyVerified ? { ...user, email_verified_at: now, updated_at: now } : user,
        };
      });
    } finally {
      // Every server's principals and site lists for the caller depend on their memberships.
      this.deps.cache.invalidate([membershipsTag(userId)]);
    }
  }

  /**
   * Inviting is managing members; inviting an owner is making one (owners only). Inviting an admin
   * or owner grants administration: recently signed in only.
   */
  #assertMayInvite(callerRole: WorkspaceRole | undefined, role: WorkspaceRole, recentlyAuthenticated: boolean): void {
    assertCan(callerRole, 'invitation.manage', workspaceNotFound);
    if (role === 'owner') assertCan(callerRole, 'owner.grant', workspaceNotFound);
    if (grantsAdministration(undefined, role) && !recentlyAuthenticated) throw reauthenticationRequired();
  }
}
