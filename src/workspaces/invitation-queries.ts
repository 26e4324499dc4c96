import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, InvitationsTable } from '../db/schema.js';
import type { WorkspaceRole } from '../memberships/contract.js';

export type InvitationRow = Selectable<InvitationsTable>;

/** An invitation that can still be accepted, with its workspace's name, for the accept page. */
export interface PendingInvitationRow extends InvitationRow {
  workspace_name: string;
}

// Pending: neither accepted nor revoked, and not yet expired at `now`. Every query below that
// reads or changes an invitation for a caller names its workspace too: an id alone reaches nothing.

export function insertInvitation(trx: Transaction<Database>, row: InvitationRow): Promise<unknown> {
  return trx.insertInto('invitations').values(row).execute();
}

/** Withdraws the address's pending invitations to the workspace: a new one replaces them. */
export function revokePendingFor(trx: Transaction<Database>, workspaceId: string, email: string, now: string): Promise<unknown> {
  return trx
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

export function listPendingInvitations(db: Kysely<Database>, workspaceId: string, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes a pending invitation of the workspace; resolves false when there was none by that id. */
/** Withdraws a pending invitation; resolves its address, or undefined when none was pending. */
export async function revokeInvitation(trx: Transaction<Database>, workspaceId: string, invitationId: string, now: string): Promise<string | undefined> {
  const row = await trx
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('id', '=', invitationId)
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('email')
    .executeTakeFirst();
  return row?.email;
}

/**
 * Withdraws the pending invitations `inviterId` sent to the workspace with one of `roles`; resolves
 * what it withdrew. Used when the sender's right to send them ends (see invitation-withdrawal.ts).
 */
export function revokePendingSentBy(
  trx: Transaction<Database>,
  workspaceId: string,
  inviterId: string,
  roles: readonly WorkspaceRole[],
  now: string,
): Promise<Array<{ id: string; email: string; role: string }>> {
  return trx
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('invited_by', '=', inviterId)
    .where('role', 'in', roles)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'email', 'role'])
    .execute();
}

/** Withdraws every pending invitation the user sent, to any workspace: their account is going. */
export function revokeEveryPendingSentBy(trx: Transaction<Database>, inviterId: string, now: string): Promise<unknown> {
  return trx
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('invited_by', '=', inviterId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

/** The invitation with this token hash in whatever state, for saying why it was refused. */
export function findInvitationByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<Pick<InvitationRow, 'workspace_id' | 'accepted_at' | 'revoked_at' | 'expires_at'> | undefined> {
  return db.selectFrom('invitations').select(['workspace_id', 'accepted_at', 'revoked_at', 'expires_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The pending invitation whose token has this hash. Changes nothing. */
export function findPendingInvitation(db: Kysely<Database>, tokenHash: string, now: string): Promise<PendingInvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .innerJoin('workspaces', 'workspaces.id', 'invitations.workspace_id')
    .selectAll('invitations')
    .select('workspaces.name as workspace_name')
    .where('invitations.token_hash', '=', tokenHash)
    .where('invitations.accepted_at', 'is', null)
    .where('invitations.revoked_at', 'is', null)
    .where('invitations.expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Uses the invitation: one conditional UPDATE, so of any number of concurrent attempts exactly
 * one changes the row (the others find it accepted, and are told it no longer works). Resolves
 * false when it was no longer pending.
 */
export async function consumeInvitation(trx: Transaction<Database>, invitationId: string, userId: string, now: string): Promise<boolean> {
  const result = await trx
    .updateTable('invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('id', '=', invitationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether an invitation waits for the address (normalised) anywhere: with SIGNUP=closed, it still lets its holder make an account. */
export async function hasPendingInvitationFor(db: Kysely<Database>, email: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('invitations')
    .select('id')
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
