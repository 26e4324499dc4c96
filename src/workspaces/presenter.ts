import type { MemberRow, MemberWorkspaceRow } from '../memberships/queries.js';
import type { MemberJson, WorkspaceJson } from './schema.js';

/** A workspace as its member `userId` sees it. */
export function workspaceToJson(row: MemberWorkspaceRow, userId: string): WorkspaceJson {
  return { id: row.id, name: row.name, role: row.role, personal: row.personal_user_id === userId, created_at: row.created_at };
}

export function memberToJson(row: MemberRow): MemberJson {
  return { user: { id: row.user_id, email: row.email, name: row.name }, role: row.role, joined_at: row.joined_at };
}
