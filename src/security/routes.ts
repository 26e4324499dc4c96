import type { Guard } from '../auth/guard.js';
import { currentUser } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import type { SecurityHistory } from './history.js';
import { SECURITY_EVENTS_DEFAULT_LIMIT, SecurityEventPage, SecurityEventQuery } from './schema.js';

/**
 * The caller's own security history, newest first. Signed-in people only: an access token reaches
 * sites, not the record of the account's sign-ins.
 */
export function registerSecurityEventRoutes(app: App, deps: { guard: Guard; history: SecurityHistory }): void {
  app.get(
    '/api/v1/me/security-events',
    {
      onRequest: deps.guard.require('signed_in'),
      schema: {
        summary: "Your account's security events, newest first: sign-ins with their method, failures, credential changes",
        tags: ['account'],
        security: [{ BearerAuth: [] }],
        querystring: SecurityEventQuery,
        response: { 200: SecurityEventPage, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema },
      },
    },
    async (request) => {
      const { limit = SECURITY_EVENTS_DEFAULT_LIMIT, cursor } = request.query;
      return deps.history.page(currentUser(request).id, limit, cursor);
    },
  );
}
