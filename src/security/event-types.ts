/**
 * What happened to an account's security. The names are the ones DESIGN.md gives the stored,
 * user-visible history (GET /api/v1/me/security-events); `sign_in.refused` covers a limit or a
 * policy saying no before any credential was checked. `reauthentication.failed` is a wrong
 * password or code when confirming who one is, `reauthentication.refused` one past the limit;
 * `link.refused` an e-mail link (sign-in, verification, change of address, invitation) that no
 * longer works; `request.refused` a request the guard or a workspace's rules turned away
 * (cross-site, an access token where only a person may go, a role or scope too low).
 */
export const SECURITY_EVENT_TYPES = [
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.refused',
  'reauthentication.failed',
  'reauthentication.refused',
  'link.refused',
  'request.refused',
  'password.changed',
  'email.verified',
  'email.changed',
  'totp.enabled',
  'totp.disabled',
  'recovery_codes.regenerated',
  'passkey.added',
  'passkey.removed',
  'access_token.created',
  'access_token.revoked',
  'identity.linked',
  'identity.unlinked',
  'sessions.revoked',
  'reauthenticated',
  'account.taken_over',
  'account.deleted',
  'account.disabled',
  'account.enabled',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** The events that are an attempt turned away: logged as failures, and warnings in the dashboard. */
export const SECURITY_FAILURE_TYPES = ['sign_in.failed', 'sign_in.refused', 'reauthentication.failed', 'reauthentication.refused', 'link.refused', 'request.refused'] as const satisfies readonly SecurityEventType[];

// Defined where the links are checked (auth/), named here as the events record them.
export type { LinkRefusal, MailedLink } from '../auth/mailed-links.js';

/** How a person proved who they are, for sign-ins and re-authentication; `oidc`: at a single sign-on provider. */
export type AuthenticationMethod = 'password' | 'magic_link' | 'passkey' | 'totp' | 'recovery_code' | 'oidc';

/** The credential a request came with, as the log names it. */
export type CredentialKind = 'session' | 'jwt' | 'access_token' | 'cli' | 'none';

/** Where a request came from; never a header value that could carry a credential. */
export interface RequestOrigin {
  ip: string;
  userAgent: string;
  /** The request's id, so an event's line can be matched with its request line. */
  requestId?: string;
}
