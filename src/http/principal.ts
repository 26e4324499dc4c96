import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { UserRow } from '../users/queries.js';

/** The authenticated principal; only called behind a guard, so its absence is a wiring bug. */
export function currentPrincipal(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error(`route ${request.routeOptions.url ?? request.url} has no guard`);
  return request.principal;
}

export function currentUser(request: FastifyRequest): UserRow {
  return currentPrincipal(request).user;
}

/**
 * Who is calling, as site queries are scoped: the user, and the one workspace their credential
 * is limited to (null: every workspace they are in).
 */
export function currentCaller(request: FastifyRequest): { userId: string; workspaceId: string | null } {
  const principal = currentPrincipal(request);
  return { userId: principal.user.id, workspaceId: principal.workspaceId };
}
