import type { FastifyRequest } from 'fastify';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { AppError, ErrorCode } from '../errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { requestOrigin, type SecurityEvents } from './events.js';

/**
 * The refusals that say a credential tried to go where it may not (ASVS 16.3.2, failed
 * authorisation): a cross-site request, an access token where only a person may go, a scope or a
 * role too low, a workspace's second factor missing. Each is a `request.refused` security event, logged wherever it was thrown from:
 * the guard, a sign-in form's Origin rule, a service's permission check.
 */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  AUTH_ERRORS.CROSS_SITE_REQUEST,
  AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED,
  AUTH_ERRORS.INSUFFICIENT_SCOPE,
  WORKSPACE_ERRORS.INSUFFICIENT_ROLE,
  WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED,
]);

/**
 * For the one error handler: logs `error` as a refused request when it is one of REFUSALS, naming
 * the caller's credential when the guard got that far (it sets the principal before its rules).
 */
export function refusalLogger(securityEvents: SecurityEvents): (request: FastifyRequest, error: AppError) => void {
  return (request, error) => {
    if (!REFUSALS.has(error.code)) return;
    const principal = request.principal;
    securityEvents.refused({
      type: 'request.refused',
      user: principal === null ? null : principal.user,
      origin: requestOrigin(request),
      ...(principal === null ? {} : { credential: principal.method }),
      reason: error.code,
      details: { method: request.method, route: request.routeOptions.url ?? '' },
    });
  };
}
