import { isWorkspaceRole, type WorkspaceRole } from '../memberships/permissions.js';
import type { MemberRow, MemberWorkspaceRow } from '../memberships/queries.js';
import type { InvitationRow } from './invitation-queries.js';
import type { InvitationJson, MemberJson, WorkspaceJson } from './schema.js';

/** A workspace as its member `userId` sees it. */
export function workspaceToJson(row: MemberWorkspaceRow, userId: string): WorkspaceJson {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    personal: row.personal_user_id === userId,
    require_two_factor: row.require_two_factor === 1,
    review: { required: row.review_required === 1, approvals: row.review_approvals },
    created_at: row.created_at,
  };
}

export function memberToJson(row: MemberRow): MemberJson {
  return { user: { id: row.user_id, email: row.email, name: row.name }, role: row.role, joined_at: row.joined_at };
}

/** An invitation as admins see it: never its token, which exists only in the mail. */
export function invitationToJson(row: InvitationRow): InvitationJson {
  return { id: row.id, email: row.email, role: invitedRole(row), expires_at: row.expires_at };
}

export function invitedRole(row: InvitationRow): WorkspaceRole {
  // The column's CHECK constraint allows only roles; anything else is a corrupt row, not a viewer.
  if (!isWorkspaceRole(row.role)) throw new Error(`unknown role in an invitation: ${row.role}`);
  return row.role;
}
