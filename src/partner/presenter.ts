import type { PartnerCheckJson } from './schema.js';
import type { PartnerCheckRow } from './queries.js';

/** A recorded check as the API shows it. */
export function partnerCheckToJson(row: PartnerCheckRow): PartnerCheckJson {
  return {
    at: row.checked_at,
    status: row.status === 'ok' ? 'ok' : 'error',
    category: row.category as PartnerCheckJson['category'],
    message: row.message,
    duration_ms: Number(row.duration_ms),
    protocol_version: row.protocol_version,
    server: row.server_name === null ? null : { name: row.server_name, version: row.server_version ?? '' },
    tool_count: row.tool_count === null ? null : Number(row.tool_count),
    tools: JSON.parse(row.tools) as string[],
  };
}
