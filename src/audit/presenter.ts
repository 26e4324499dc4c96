import { originJson } from './origin.js';
import type { AuditEventRow } from './queries.js';
import type { AuditEventJson } from './schema.js';

export function auditEventToJson(row: AuditEventRow): AuditEventJson {
  return {
    id: row.id,
    at: row.at,
    action: row.action,
    ...originJson(row),
    ip: row.ip,
    user_agent: row.user_agent,
    target: { type: row.target_type, id: row.target_id, name: row.target_name },
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}
