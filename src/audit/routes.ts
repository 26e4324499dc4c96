import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { currentUser } from '../auth/principal.js';
import { Id } from '../http/params.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { AuditLogPage, AuditLogQuery } from './schema.js';
import { AUDIT_LOG_DEFAULT_LIMIT } from './contract.js';
import type { AuditLog } from './service.js';

export const NDJSON = 'application/x-ndjson';

/** Whether the caller asked for the whole log as NDJSON rather than a page of JSON. */
function wantsNdjson(accept: string | undefined): boolean {
  return accept !== undefined && accept.split(',').some((part) => part.split(';')[0]?.trim().toLowerCase() === NDJSON);
}

/**
 * GET /api/v1/workspaces/{id}/audit-log: the workspace's changes, newest first, for its admins. A
 * signed-in person only: an access token reaches sites, not the record of who did what.
 */
export function registerAuditRoutes(app: App, deps: { guard: Guard; auditLog: AuditLog }): void {
  app.get(
    '/api/v1/workspaces/:id/audit-log',
    {
      onRequest: deps.guard.require('signed_in', { workspaceParam: 'id' }),
      schema: {
        summary: `The workspace's audit log (admin), newest first, filtered by action or actor. With Accept: ${NDJSON}, every matching event, one JSON object per line, streamed`,
        tags: ['audit log'],
        security: [{ BearerAuth: [] }],
        params: Type.Object({ id: Id }),
        querystring: AuditLogQuery,
        produces: ['application/json', NDJSON],
        response: { 200: AuditLogPage, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (request, reply) => {
      const userId = currentUser(request).id;
      const filter = { action: request.query.action, actorId: request.query.actor_id };
      if (!wantsNdjson(request.headers.accept)) {
        return deps.auditLog.page(userId, request.params.id, filter, request.query.limit ?? AUDIT_LOG_DEFAULT_LIMIT, request.query.cursor);
      }
      const events = await deps.auditLog.export(userId, request.params.id, filter);
      const lines = Readable.from(
        (async function* () {
          for await (const event of events) yield `${JSON.stringify(event)}\n`;
        })(),
      );
      // A stream goes out as it is; the 200 schema describes the JSON page, which the type checks.
      return reply.type(NDJSON).header('cache-control', 'no-store').send(lines as never);
    },
  );
}
