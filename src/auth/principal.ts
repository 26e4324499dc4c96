import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../users/queries.js';
import type { AuthMethod } from './methods.js';
import type { AccessTokenScope } from './scopes.js';

export type { AuthMethod } from './methods.js';

/** Who is calling, and with which credential. */
export interface Principal {
  user: UserRow;
  method: AuthMethod;
  scopes: readonly AccessTokenScope[];
  accessTokenId: string | null;
  sessionId: string | null;
  /**
   * When the person behind the credential last proved who they are (epoch milliseconds): the
   * session's authenticated_at or the JWT's auth_time; null for a personal access token.
   */
  authenticatedAt: number | null;
}

/** The authenticated principal; only called behind a guard, so its absence is a wiring bug. */
export function currentPrincipal(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error(`route ${request.routeOptions.url ?? request.url} has no guard`);
  return request.principal;
}

export function currentUser(request: FastifyRequest): UserRow {
  return currentPrincipal(request).user;
}
