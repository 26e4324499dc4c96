import type { UserRow } from './queries.js';
import type { UserJson } from './schema.js';
import { hasPassword, isEmailVerified } from './service.js';

/** The user as every response shows it: never the password hash or token state. */
export function userToJson(user: UserRow): UserJson {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    email_verified: isEmailVerified(user),
    has_password: hasPassword(user),
    created_at: user.created_at,
  };
}
