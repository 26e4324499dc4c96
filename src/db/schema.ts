import type { Generated } from 'kysely';

/**
 * Table types for Kysely. Timestamps are ISO 8601 UTC text (they sort as text and read the same on
 * SQLite and PostgreSQL); counters and epoch values are numbers.
 */
export interface Database {
  users: UsersTable;
  access_tokens: AccessTokensTable;
  sites: SitesTable;
  rate_limits: RateLimitsTable;
  sessions: SessionsTable;
  one_time_tokens: OneTimeTokensTable;
  user_totp: UserTotpTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  partner_checks: PartnerChecksTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  invitations: InvitationsTable;
  audit_events: AuditEventsTable;
  security_events: SecurityEventsTable;
  site_versions: SiteVersionsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  user_identities: UserIdentitiesTable;
  oidc_authorization_requests: OidcAuthorizationRequestsTable;
  oidc_pending_links: OidcPendingLinksTable;
  site_public_origins: SitePublicOriginsTable;
  change_requests: ChangeRequestsTable;
  change_request_approvals: ChangeRequestApprovalsTable;
  change_request_comments: ChangeRequestCommentsTable;
  usage_hourly: UsageCountsTable;
  usage_daily: UsageCountsTable;
  usage_origins_hourly: UsageOriginsTable;
  usage_origins_daily: UsageOriginsTable;
  usage_live_streams: UsageLiveStreamsTable;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  /**
   * Every JWT carries the generation it was issued in (claim "gen"); "sign out everywhere" bumps
   * it, refusing every older JWT at once. A counter, not a time: exact, and immune to clock skew
   * between app servers.
   */
  jwt_generation: number;
  /**
   * When the account's holder proved they read the address's mail (a verification or sign-in
   * link); null until then. An empty password_hash means the account has no password.
   */
  email_verified_at: string | null;
  /** 1: an instance administrator (the admin API and the dashboard's Admin area); set from the CLI only. */
  instance_admin: Generated<number>;
  /** When an administrator disabled the account; null while it is enabled. */
  disabled_at: string | null;
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
  /** The one workspace the token reaches; null for every workspace of its user. */
  workspace_id: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface SitesTable {
  id: string;
  /** The workspace the site belongs to: its members reach it, by their role. */
  workspace_id: string;
  /** Who created the site; null once their account is gone. No access rule depends on it. */
  user_id: string | null;
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
  /**
   * JSON {base_url, mcp_url}: the origins the access token was saved with ("" for an unset URL);
   * null when no token is stored. The token goes to no other origin (sites/partner-settings.ts).
   */
  partner_token_origins: string | null;
  /** Bumped by every update; the ETag. */
  version: number;
  created_at: string;
  updated_at: string;
  /** When the site went to the trash; null while it is live. Only the trash's own queries read trashed rows. */
  deleted_at: string | null;
  /** JSON {id, email, name} of who moved it to the trash, as they were then; null when none is known. */
  deleted_by: string | null;
  /** The publishable key its public configuration is fetched by (its shape in src/lib/public-key-shape.ts, made by src/lib/public-keys.ts); not a secret. */
  public_key: string;
  /** The key the last rotation replaced; it answers too until `previous_public_key_expires_at`. */
  previous_public_key: string | null;
  previous_public_key_expires_at: string | null;
}

export interface RateLimitsTable {
  key: string;
  /** Epoch milliseconds at which the current window opened. */
  window_start: number;
  count: number;
}

export interface SessionsTable {
  /** Public id, for listing and revoking; the cookie value is another, secret, random string. */
  id: string;
  user_id: string;
  /** SHA-256 of the cookie value. */
  token_hash: string;
  created_at: string;
  last_seen_at: string;
  /** Absolute end of the session, whatever its activity. */
  expires_at: string;
  user_agent: string;
  ip: string;
  /**
   * 1 while the session has passed the first factor only (password or magic link) of a user with
   * TOTP on: such a session can finish or cancel the second step and do nothing else.
   */
  second_factor_pending: number;
  /**
   * 1 while a magic-link sign-in to an unverified account that already has credentials waits for
   * the mailbox holder to keep or reset them (POST /auth/claim): such a session can do nothing else.
   */
  claim_pending: number;
  /**
   * When the person behind the session last proved who they are: the sign-in that made it, or a
   * later POST /api/v1/me/reauthenticate. Changes that could lock the owner out need it recent.
   */
  authenticated_at: string;
}

export interface OneTimeTokensTable {
  id: string;
  user_id: string;
  /** What the token is for ("magic_link", "email_verification", "email_change"); it is redeemed only for that purpose. */
  purpose: string;
  /** SHA-256 of the token; the token itself is only ever in the e-mail. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** For "email_change": the address the account moves to once the link is used; null otherwise. */
  new_email: string | null;
}

export interface UserTotpTable {
  user_id: string;
  /** The TOTP secret in use, AES-256-GCM encrypted with the user id bound as associated data. */
  secret: string | null;
  /** A secret set up but not yet confirmed with a code, encrypted the same way. */
  pending_secret: string | null;
  /** When 2FA was turned on; null while only set up. */
  enabled_at: string | null;
  /**
   * The last accepted 30-second time step (Unix time / 30). A code for this step or an earlier
   * one is refused, so no code is ever accepted twice.
   */
  last_used_step: number | null;
  updated_at: string;
}

export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  /** SHA-256 of the normalised code; the code itself is shown once and never stored. */
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

export interface PasskeysTable {
  id: string;
  user_id: string;
  /** The WebAuthn credential id, base64url; unique across every account. */
  credential_id: string;
  /** The credential's COSE public key, base64url. Public: a leak of it signs nothing. */
  public_key: string;
  /**
   * The authenticator's last sign counter. 0 for synced passkeys, which never count; once above 0,
   * every sign-in must report a higher one (a lower or equal one suggests a cloned key).
   */
  counter: number;
  /** Space-separated transports the browser reported ("internal hybrid"), passed back as hints. */
  transports: string;
  /** "single_device" (device-bound) or "multi_device" (may be synced, e.g. a password manager). */
  device_type: string;
  /** 1 when the authenticator reported the credential as backed up (synced); updated at each sign-in. */
  backed_up: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface WebauthnChallengesTable {
  id: string;
  /** SHA-256 of the base64url challenge sent to the browser. */
  challenge_hash: string;
  /** "registration" or "authentication": a challenge is consumed only by its own ceremony. */
  ceremony: string;
  /** Whose registration this is; null for a sign-in, where the user is not known yet. */
  user_id: string | null;
  expires_at: string;
  used_at: string | null;
}

/** One partner connection check's details; the last few per site, deleted with it. */
export interface PartnerChecksTable {
  site_id: string;
  /** The check's place in its site's history: 1, 2, 3 … in the order recorded. */
  seq: number;
  checked_at: string;
  /** "ok" or "error". */
  status: string;
  /** ok, unauthorized, forbidden, not_found, timeout, unreachable, tls, blocked, protocol_error, http_error. */
  category: string;
  /** Our own sentence: the summary when ok, last_error's text otherwise. */
  message: string;
  duration_ms: number;
  protocol_version: string | null;
  server_name: string | null;
  server_version: string | null;
  tool_count: number | null;
  /** JSON array of the first tool names. */
  tools: string;
}

/** A team, or a user's personal workspace; sites belong to one. */
export interface WorkspacesTable {
  id: string;
  name: string;
  /** Whose personal workspace this is (made with the account, never deleted on its own); null for a team's. */
  personal_user_id: string | null;
  /**
   * 1 while the workspace's owners require two-factor authentication of its members: a member with
   * neither TOTP nor a passkey reaches none of its sites, members or settings.
   */
  require_two_factor: number;
  /** 1 while direct changes by editors and admins are refused: they go through change requests. */
  review_required: number;
  /** How many approvals a change request needs before it is applied (1-5), while review is required. */
  review_approvals: number;
  created_at: string;
  updated_at: string;
}

/** Who belongs to a workspace, and with which role ("owner", "admin", "editor" or "viewer"). */
export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: string;
  joined_at: string;
}

/**
 * An invitation to join a workspace with a role. Pending while accepted_at and revoked_at are
 * null and expires_at is ahead; each is used once.
 */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  /** The invited address, normalised: only the account with this address may accept. */
  email: string;
  role: string;
  /** SHA-256 of the token; the token itself is only ever in the e-mail. */
  token_hash: string;
  /** Who sent it; null once their account is gone. */
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  /** Who joined through it; null until then, or once their account is gone. */
  accepted_by: string | null;
  revoked_at: string | null;
}

/** The workspace audit log: append-only; who acted is a snapshot, not a reference. */
export interface AuditEventsTable {
  /** UUIDv7: the log's order. */
  id: string;
  workspace_id: string;
  at: string;
  action: string;
  /** Null for the command line and the system. */
  actor_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  via_type: 'session' | 'jwt' | 'access_token' | 'cli' | 'system';
  via_token_id: string | null;
  via_token_name: string | null;
  ip: string | null;
  user_agent: string | null;
  target_type: string;
  target_id: string;
  target_name: string;
  /** JSON object; never a secret. */
  details: string;
}

/** A site's history: one row per create, update and restore; never updated. */
export interface SiteVersionsTable {
  site_id: string;
  version: number;
  created_at: string;
  actor_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  via_type: 'session' | 'jwt' | 'access_token' | 'cli' | 'system';
  via_token_id: string | null;
  via_token_name: string | null;
  ip: string | null;
  user_agent: string | null;
  /** JSON array of `{path, before, after}` (the partner token as `{path, change}`). */
  changes: string;
  /** JSON: the site as the API showed it after this version, without any secret. */
  site: string;
}

export interface SecurityEventsTable {
  /** UUIDv7: the history's order. */
  id: string;
  user_id: string;
  at: string;
  type: string;
  /** How the person proved who they are (password, passkey, magic_link, totp, recovery_code). */
  method: string | null;
  /** The credential the request came with (session, jwt, access_token, cli). */
  credential: string | null;
  /** Why a sign-in failed or was refused, in a word. */
  reason: string | null;
  ip: string;
  user_agent: string;
  /** JSON of facts that name no secret: a token's or passkey's name. */
  details: string;
}

export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  /** JSON array of the event types it receives. */
  events: string;
  /** 1 or 0. */
  enabled: number;
  /** The signing secret (whsec_…), AES-256-GCM encrypted with the webhook id bound as associated data. */
  secret: string;
  /** The secret before the last rotation, encrypted the same way; it signs too until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** Since when every attempt has failed; null after a success. */
  failing_since: string | null;
  /** Why Siteward turned it off ("failing"); null otherwise. */
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  /** The database's own sequence: the order of the changes, one site's as they committed. */
  seq: Generated<number>;
  /** Sent as webhook-id, the same on every attempt. */
  id: string;
  webhook_id: string;
  event_type: string;
  /** Deliveries with the same key go out one at a time, in seq order. */
  order_key: string;
  /** The JSON body, exactly as every attempt sends it. */
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  /** When a pending delivery is next due; null once it ended. */
  next_attempt_at: string | null;
  /** The sender holding the delivery while it sends, and until when. */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  at: string;
  /** The receiver's HTTP status; null when no answer came. */
  response_status: number | null;
  duration_ms: number;
  /** What went wrong, in our words; null for a 2xx. */
  error: string | null;
}

/** An identity at an OpenID Connect provider that signs in to an account. */
export interface UserIdentitiesTable {
  id: string;
  user_id: string;
  /** The provider's configured id (OIDC_PROVIDERS_FILE's "id", or "oidc"). */
  provider: string;
  /** The provider's "sub" for the person; unique with the provider. */
  subject: string;
  /** The address the provider last gave; null when it gave none. */
  email: string | null;
  linked_at: string;
  last_used_at: string | null;
}

/**
 * A sign-in (or link) started at a provider and not yet finished: one row per click, used once by
 * the callback, which must come from the browser that started it.
 */
export interface OidcAuthorizationRequestsTable {
  id: string;
  provider: string;
  /** SHA-256 of the state parameter. */
  state_hash: string;
  /** SHA-256 of the random value in the browser's binding cookie. */
  browser_hash: string;
  /** Whose account the identity is to be linked to; null for a sign-in. */
  link_user_id: string | null;
  /** JSON {nonce, code_verifier, next}, AES-256-GCM encrypted with the row id as associated data. */
  sealed: string;
  created_at: string;
  expires_at: string;
}

/**
 * An identity whose sign-in met an unverified account that already had credentials: it is linked
 * only once the claim step is answered, and goes with the pending session if it never is.
 */
export interface OidcPendingLinksTable {
  session_id: string;
  user_id: string;
  /** JSON {provider, subject, email, next}, AES-256-GCM encrypted with the session id as associated data. */
  sealed: string;
  created_at: string;
}

/** An origin a site's public configuration was fetched from (src/delivery/origins.ts). */
export interface SitePublicOriginsTable {
  site_id: string;
  /** scheme://host[:port], lower-case, as a browser's Origin header names a page's origin. */
  origin: string;
  last_seen_at: string;
}

/** What reached a site's public path in one hour or UTC day, summed over the app servers (src/usage/counter.ts). */
export interface UsageCountsTable {
  site_id: string;
  /** The start of the hour or day, ISO 8601 in UTC. */
  at: string;
  /** Configurations answered 200. */
  loads: number;
  /** Revalidations answered 304. */
  not_modified: number;
  streams_opened: number;
  /** The most event streams open at once: each server's most, added up (an upper bound when servers peak apart). */
  peak_streams: number;
  /** When a configuration was last answered (200 or 304), as precise as the writes; null when none was. */
  last_loaded_at: string | null;
}

/** A site's loads from one page origin (Origin, else Referer) in one hour or UTC day. */
export interface UsageOriginsTable {
  site_id: string;
  at: string;
  origin: string;
  loads: number;
  last_seen: string;
}

/** One app server's open event streams of a site, as it last reported them. */
export interface UsageLiveStreamsTable {
  server_id: string;
  site_id: string;
  open_streams: number;
  reported_at: string;
}

export interface ChangeRequestsTable {
  id: string;
  workspace_id: string;
  site_id: string;
  title: string;
  description: string;
  status: 'open' | 'scheduled' | 'applied' | 'declined' | 'closed' | 'failed';
  /** Null once the author's account is deleted; their name and address stay as they were. */
  author_id: string | null;
  author_email: string;
  author_name: string;
  base_version: number;
  /** JSON array of `{path, before, after}`, `before` being the value at base_version. */
  changes: string;
  scheduled_at: string | null;
  applied_version: number | null;
  /** JSON `{code, conflicts?}` when a scheduled apply failed. */
  failure: string | null;
  /** SHA-256 of the preview token: how the public endpoint finds the request. */
  preview_token_hash: string;
  /** The preview token, encrypted with ENCRYPTION_KEY and bound to the request's id. */
  preview_token: string;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChangeRequestApprovalsTable {
  change_request_id: string;
  user_id: string;
  at: string;
}

export interface ChangeRequestCommentsTable {
  id: string;
  change_request_id: string;
  user_id: string | null;
  user_email: string;
  user_name: string;
  body: string;
  at: string;
}
