import type { PasskeyRow } from './queries.js';
import type { PasskeyJson } from './schema.js';

/** The passkey as responses show it: never the credential id or public key. */
export function passkeyToJson(row: PasskeyRow): PasskeyJson {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    device_type: row.device_type === 'multi_device' ? 'multi_device' : 'single_device',
    backed_up: row.backed_up === 1,
  };
}
