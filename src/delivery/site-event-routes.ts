import type { OutgoingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { currentCaller, currentUser } from '../auth/principal.js';
import { DELIVERY_ERRORS } from './errors.js';
import { AppError } from '../errors.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { SITE_ERRORS } from '../sites/errors.js';
import type { SiteEventStreams } from './site-event-streams.js';
import { writeStreamHead } from './streams.js';
import type { SiteReads } from '../sites/reads.js';
import { siteNotFound } from '../sites/service.js';
import { SiteParams } from '../sites/schema.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];

/** GET /api/v1/sites/{id}/events: a member's editor hears of every new version of the site as it is made. */
export function registerSiteEventRoutes(app: App, deps: { guard: Guard; reads: SiteReads; streams: SiteEventStreams }): void {
  app.get(
    '/api/v1/sites/:id/events',
    {
      onRequest: deps.guard.require('sites:read'),
      compress: false,
      exposeHeadRoute: false,
      schema: {
        summary:
          'New versions of a site as Server-Sent Events, for members who can read it (as GET /api/v1/sites/{id}): an event `version` (id: the version) at once, unless Last-Event-ID names the newest, then one for each new version, with who made it; a comment every 25 s. The stream ends after 10 minutes, and when the member\'s access may have changed: the browser reconnects',
        tags: ['sites'],
        security,
        params: SiteParams,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ description: 'The id of the last event received: the version held' })) }),
        response: {
          200: Type.String({ description: 'text/event-stream; each event\'s data: {"version": 7, "updated_at": "…", "actor_id": "…", "actor_name": "Olivia"}' }),
          401: ProblemSchema,
          403: ProblemSchema,
          404: ProblemSchema,
          429: ProblemSchema,
          503: ProblemSchema,
        },
      },
    },
    async (request, reply) => {
      const userId = currentUser(request).id;
      // The bounds are counted before the site is read: requests arriving together cannot all pass them.
      const place = deps.streams.reserve(userId);
      if (place === 'server_full') {
        reply.header('retry-after', '10');
        throw new AppError(503, DELIVERY_ERRORS.TOO_MANY_STREAMS, 'This server holds as many event streams as it may; try again shortly.');
      }
      if (place === 'user_full') throw new AppError(429, SITE_ERRORS.TOO_MANY_SITE_STREAMS, 'You hold as many site event streams open as you may: close some editors first.');
      let latest;
      try {
        // The same checks as reading the site: a member of its workspace, the workspace's two-factor rule, the token's workspace.
        await deps.reads.site(currentCaller(request), request.params.id);
        latest = await deps.streams.latest(request.params.id);
      } catch (error) {
        deps.streams.release(userId);
        throw error;
      }
      if (latest === undefined) {
        deps.streams.release(userId);
        throw siteNotFound();
      }
      reply.hijack();
      // The stream's liveness is its heartbeat and its writes.
      request.raw.socket.setTimeout(0);
      // Hijacked: the security headers set for every response are written here, with the stream's own.
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
      // nginx passes the events on as they come instead of collecting them (docs/deployment.md).
      writeStreamHead(reply.raw, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      deps.streams.open(reply.raw, userId, latest, request.headers['last-event-id']);
      return reply;
    },
  );
}
