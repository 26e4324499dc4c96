/**
 * Table types for Kysely. Timestamps are ISO 8601 UTC text (they sort as text and read the same on
 * SQLite and PostgreSQL); counters and epoch values are numbers.
 */
export interface Database {
  users: UsersTable;
  access_tokens: AccessTokensTable;
  sites: SitesTable;
  rate_limits: RateLimitsTable;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  /** JWTs issued (iat, seconds) before this are refused: "sign out everywhere". */
  tokens_not_before: number;
  created_at: string;
  updated_at: string;
}

export interface AccessTokensTable {
  id: string;
  user_id: string;
  name: string;
  /** SHA-256 of the whole token; the token itself is never stored. */
  token_hash: string;
  last_four: string;
  /** Space-separated scopes, e.g. "sites:read sites:write". */
  scopes: string;
  created_at: string;
  last_used_at: string | null;
}

export interface SitesTable {
  id: string;
  user_id: string;
  name: string;
  color: string;
  ai_settings: string;
  email_settings: string;
  widget: string;
  portal: string;
  branding: string;
  public_theme: string;
  knowledge_sources: string;
  /** JSON of the partner settings, without the access token. */
  partner_settings: string;
  /** The partner access token, AES-256-GCM encrypted with the site id as associated data. */
  partner_access_token: string | null;
  /** Bumped by every update; the ETag. */
  version: number;
  created_at: string;
  updated_at: string;
}

export interface RateLimitsTable {
  key: string;
  /** Epoch milliseconds at which the current window opened. */
  window_start: number;
  count: number;
}
