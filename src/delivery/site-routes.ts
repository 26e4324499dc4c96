import { changeOriginOf } from '../audit/origin.js';
import type { Guard } from '../auth/guard.js';
import { currentCaller } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { SiteEnvelope, SiteParams } from '../sites/schema.js';
import { siteEtag, siteToJson } from '../sites/presenter.js';
import type { SiteInstall } from './install.js';
import type { PublicKeyRotation } from './key-rotation.js';
import { SiteInstallEnvelope } from './schema.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];

/** The API's routes about a site's delivery (its key, how to install it); the public routes are in routes.ts. */
export function registerSiteDeliveryRoutes(app: App, deps: { guard: Guard; rotation: PublicKeyRotation; install: SiteInstall }): void {
  app.get(
    '/api/v1/sites/:id/install',
    {
      onRequest: deps.guard.require('sites:read', { siteParam: 'id' }),
      schema: {
        summary:
          "How to put the site's public configuration on a page: its public key (and the one a rotation replaced, while it answers), the embed snippet, and the origins of the pages it was lately fetched from",
        tags: ['sites'],
        security,
        params: SiteParams,
        response: { 200: SiteInstallEnvelope, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (request) => ({ install: await deps.install.get(currentCaller(request), request.params.id) }),
  );

  app.post(
    '/api/v1/sites/:id/public-key/rotate',
    {
      onRequest: deps.guard.require('sites:write', { siteParam: 'id' }),
      schema: {
        summary:
          "Replace the site's public key (editor or above; admin or owner while the workspace requires review). The previous key keeps answering on /public/v1 for 24 hours, so pages that carry it can be updated; until it stops, another rotation is 409 previous_key_still_answering",
        tags: ['sites'],
        security,
        params: SiteParams,
        response: { 200: SiteEnvelope, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const site = await deps.rotation.rotate(currentCaller(request), changeOriginOf(request), request.params.id);
      return reply.header('etag', siteEtag(site)).send({ site: siteToJson(site) });
    },
  );
}
