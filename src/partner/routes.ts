import type { Guard } from '../auth/guard.js';
import { currentCaller } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { SiteEnvelope, SiteParams } from '../sites/schema.js';
import { siteEtag, siteToJson } from '../sites/presenter.js';
import { CHECK_HISTORY_LENGTH, PartnerCheckList, PartnerTestBody, PartnerTestResult } from './schema.js';
import type { PartnerCheckService } from './service.js';

export interface PartnerRoutesDeps {
  guard: Guard;
  checks: PartnerCheckService;
}

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];

/** POST /api/v1/sites/{id}/partner/check, GET …/partner/checks, POST …/partner/test. */
export function registerPartnerRoutes(app: App, deps: PartnerRoutesDeps): void {
  const { checks } = deps;

  app.post(
    '/api/v1/sites/:id/partner/check',
    {
      onRequest: deps.guard.require('sites:write', { siteParam: 'id' }),
      schema: {
        summary: 'Check the partner connection now: base_url must answer over HTTP, mcp_url must speak MCP. The result is stored in partner_settings.',
        tags: ['sites'],
        security,
        params: SiteParams,
        response: {
          200: SiteEnvelope,
          400: ProblemSchema,
          401: ProblemSchema,
          403: ProblemSchema,
          404: ProblemSchema,
          429: ProblemSchema,
        },
      },
    },
    async (request, reply) => {
      const row = await checks.checkSite(currentCaller(request), request.params.id, request.log);
      return reply.header('etag', siteEtag(row)).send({ site: siteToJson(row) });
    },
  );

  app.get(
    '/api/v1/sites/:id/partner/checks',
    {
      onRequest: deps.guard.require('sites:read', { siteParam: 'id' }),
      schema: {
        summary: `The site's last ${CHECK_HISTORY_LENGTH} partner connection checks (manual and periodic), newest first, with what each learnt of the MCP server`,
        tags: ['sites'],
        security,
        params: SiteParams,
        response: { 200: PartnerCheckList, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (request) => ({ checks: await checks.listChecks(currentCaller(request), request.params.id) }),
  );

  app.post(
    '/api/v1/sites/:id/partner/test',
    {
      onRequest: deps.guard.require('sites:write', { siteParam: 'id' }),
      schema: {
        summary:
          'Check draft partner settings before saving them: merged over the saved ones as PUT merges them, checked, and nothing stored (neither the settings nor the result). The saved access token is sent only to the origins it is bound to; a token in the draft is used for this check only.',
        tags: ['sites'],
        security,
        params: SiteParams,
        body: PartnerTestBody,
        response: { 200: PartnerTestResult, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request) => ({ check: await checks.testDraft(currentCaller(request), request.params.id, request.body.partner_settings, request.log) }),
  );
}
