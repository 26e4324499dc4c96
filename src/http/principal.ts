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
