import type { AdminUserRow } from './queries.js';
import type { AdminUserJson } from './schema.js';

export function adminUserToJson(row: AdminUserRow): AdminUserJson {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    email_verified: row.email_verified_at !== null,
    created_at: row.created_at,
    last_sign_in_at: row.last_sign_in_at,
    disabled: row.disabled_at !== null,
    instance_admin: row.instance_admin === 1,
  };
}
