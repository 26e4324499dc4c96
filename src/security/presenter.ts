import type { SecurityEventRow } from './queries.js';
import type { SecurityEventJson } from './schema.js';

/** A security event as the account's history shows it. */
export function securityEventToJson(row: SecurityEventRow): SecurityEventJson {
  return {
    id: row.id,
    at: row.at,
    type: row.type as SecurityEventJson['type'],
    method: row.method,
    credential: row.credential,
    reason: row.reason,
    ip: row.ip,
    user_agent: row.user_agent,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}
