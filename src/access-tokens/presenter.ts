import type { AccessTokenScope } from '../auth/scopes.js';
import type { AccessTokenRow } from './queries.js';
import type { AccessTokenJson } from './schema.js';

/** The token as lists show it: never the secret or its hash. */
export function accessTokenToJson(row: AccessTokenRow): AccessTokenJson {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes.split(' ') as AccessTokenScope[],
    last_four: row.last_four,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    workspace_id: row.workspace_id,
  };
}
