import type { IdentityRow } from './queries.js';
import type { IdentityJson } from './schema.js';

export function identityToJson(row: IdentityRow): IdentityJson {
  return { provider: row.provider, subject: row.subject, email: row.email, linked_at: row.linked_at };
}
