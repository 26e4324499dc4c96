import type { Guard } from '../auth/guard.js';
import { currentCaller, currentPrincipal } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { assertTwoFactorMet, workspaceNotFound } from '../memberships/permissions.js';
import { SiteParams } from '../sites/schema.js';
import { SiteUsageQuery, SiteUsageSchema, WorkspaceUsageQuery, WorkspaceUsageSchema } from './schema.js';
import type { UsageService } from './service.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema };
const tags = ['usage'];

/** What reached the public path, read as the sites are (viewer and above; access tokens with sites:read). */
export function registerUsageRoutes(app: App, deps: { guard: Guard; usage: UsageService }): void {
  const read = deps.guard.require('sites:read');

  app.get(
    '/api/v1/sites/:id/usage',
    {
      onRequest: read,
      schema: {
        summary:
          "What reached the site's public path, per hour or UTC day: configurations answered (200) and revalidated (304), event streams opened and most open at once; the origins the loads came from; visitors now (streams open over every app server). Counted by each app server and written every 30 s",
        tags,
        security,
        params: SiteParams,
        querystring: SiteUsageQuery,
        response: { 200: SiteUsageSchema, ...errors },
      },
    },
    async (request) => deps.usage.siteUsage(currentCaller(request), request.params.id, request.query),
  );

  app.get(
    '/api/v1/usage',
    {
      onRequest: read,
      schema: {
        summary: 'The sites of your workspaces (or of one) at a glance: loads of the last 24 hours and 7 days, the last load, visitors now',
        tags,
        security,
        querystring: WorkspaceUsageQuery,
        response: { 200: WorkspaceUsageSchema, ...errors },
      },
    },
    async (request) => {
      const principal = currentPrincipal(request);
      const workspaceId = request.query.workspace_id;
      // As the sites list: a workspace one is not in is not found, and one closed for want of a
      // second factor is refused by name; without one, those closed are left out.
      if (workspaceId !== undefined) {
        if (!principal.memberships.has(workspaceId)) throw workspaceNotFound();
        assertTwoFactorMet(principal.twoFactorMissingIn, workspaceId);
        return deps.usage.workspaceUsage([workspaceId]);
      }
      return deps.usage.workspaceUsage([...principal.memberships.keys()].filter((id) => !principal.twoFactorMissingIn.has(id)));
    },
  );
}
