import type { Transaction } from 'kysely';
import type { PersonOrigin } from '../audit/origin.js';
import { recordAuditEvent } from '../audit/queries.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { can, WORKSPACE_ROLES, type WorkspaceRole } from '../memberships/permissions.js';
import { revokePendingSentBy } from './invitation-queries.js';

/** Why a sender's invitations were withdrawn, as the audit event's `details.withdrawn_because` says. */
export type WithdrawalReason = 'inviter_left' | 'inviter_removed' | 'inviter_role_changed';

/** The roles a member with `role` (null: no longer a member) could not invite someone with. */
function rolesBeyond(role: WorkspaceRole | null): readonly WorkspaceRole[] {
  if (role === null || !can(role, 'invitation.manage')) return WORKSPACE_ROLES;
  return can(role, 'owner.grant') ? [] : ['owner'];
}

/**
 * An invitation is sent with its sender's right to invite. When that right ends (the sender leaves,
 * is removed, or drops to a role that could not have sent it), the invitations it no longer covers
 * are withdrawn in the transaction of that change, so that a removed admin's accomplice cannot join
 * with a link sent before the removal. Each withdrawal is an audit event of the change's actor.
 */
export async function withdrawInvitationsBeyondRole(
  trx: Transaction<Database>,
  clock: Clock,
  origin: PersonOrigin,
  change: { workspaceId: string; senderId: string; newRole: WorkspaceRole | null; reason: WithdrawalReason },
): Promise<void> {
  const roles = rolesBeyond(change.newRole);
  if (roles.length === 0) return;
  const withdrawn = await revokePendingSentBy(trx, change.workspaceId, change.senderId, roles, clock.now().toISOString());
  for (const invitation of withdrawn) {
    await recordAuditEvent(trx, clock, origin, {
      workspaceId: change.workspaceId,
      action: 'invitation.revoked',
      target: { type: 'invitation', id: invitation.id, name: invitation.email },
      details: { role: invitation.role, withdrawn_because: change.reason, inviter_id: change.senderId },
    });
  }
}
