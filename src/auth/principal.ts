import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../users/queries.js';
import type { AuthMethod } from '../lib/auth-method.js';
import type { WorkspaceRole } from '../memberships/contract.js';
import type { AccessTokenScope } from './scopes.js';

export type { AuthMethod } from '../lib/auth-method.js';

/** Who is calling, and with which credential. */
export interface Principal {
  user: UserRow;
  method: AuthMethod;
  scopes: readonly AccessTokenScope[];
  /** The personal access token the request came with, by id and name (as the audit log names it). */
  accessToken: { id: string; name: string } | null;
  sessionId: string | null;
  /**
   * When the person behind the credential last proved who they are (epoch milliseconds): the
   * session's authenticated_at or the JWT's auth_time; null for a personal access token.
   */
  authenticatedAt: number | null;
  /**
   * The workspaces the user belongs to, and their role in each, as last read (kept with the
   * principal, dropped when a membership of the user changes). Writes read the role afresh.
   */
  memberships: ReadonlyMap<string, WorkspaceRole>;
  /**
   * The one workspace the credential reaches (an access token made for it); null for every
   * workspace of the user. `memberships` then holds that workspace alone.
   */
  workspaceId: string | null;
  /**
   * The workspaces among `memberships` that require two-factor authentication of their members
   * while this user has neither TOTP nor a passkey: nothing of them is reached (403
   * two_factor_required). Empty for nearly everyone. Kept with the memberships, and dropped with
   * them when the workspace's requirement or the user's TOTP or passkeys change.
   */
  twoFactorMissingIn: ReadonlySet<string>;
}

/** The authenticated principal; only called behind a guard, so its absence is a wiring bug. */
export function currentPrincipal(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error(`route ${request.routeOptions.url ?? request.url} has no guard`);
  return request.principal;
}

export function currentUser(request: FastifyRequest): UserRow {
  return currentPrincipal(request).user;
}

/**
 * Who is calling, as site queries are scoped: the user, the one workspace their credential is
 * limited to (null: every workspace they are in), and the workspaces closed to them until they set
 * up a second factor.
 */
export function currentCaller(request: FastifyRequest): { userId: string; workspaceId: string | null; twoFactorMissingIn: ReadonlySet<string> } {
  const principal = currentPrincipal(request);
  return { userId: principal.user.id, workspaceId: principal.workspaceId, twoFactorMissingIn: principal.twoFactorMissingIn };
}
