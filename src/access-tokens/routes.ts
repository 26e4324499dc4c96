import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { AccessTokenList, AccessTokenParams, CreateAccessTokenBody, CreatedAccessToken } from './schema.js';
import type { AccessTokenService } from './service.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 415: ProblemSchema };
const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }];

/**
 * Settings > Access Tokens. Only a signed-in owner manages tokens; a token itself cannot (403).
 * Creating one needs a recent authentication: a token never expires, so minting one would turn a
 * stolen session or JWT into access for good. Creating and revoking are mailed to the owner.
 */
export function registerAccessTokenRoutes(app: App, deps: { guard: Guard; accessTokens: AccessTokenService; securityEvents: SecurityEvents }): void {
  const onRequest = deps.guard.require('account');
  const { securityEvents } = deps;
  // What a token resolved to is kept in the cache (src/cache/cache.ts): a token
  // revoked here must be refused by this process's very next request.
  deps.accessTokens.onRevoked((accessTokenId) => deps.guard.forgetAccessToken(accessTokenId));

  app.get(
    '/api/v1/access-tokens',
    { onRequest, schema: { summary: 'List your personal access tokens (never their secrets)', tags: ['access tokens'], security, response: { 200: AccessTokenList, ...errors } } },
    async (request) => ({ access_tokens: await deps.accessTokens.list(currentUser(request).id) }),
  );

  app.post(
    '/api/v1/access-tokens',
    {
      onRequest: deps.guard.require('recent'),
      schema: {
        summary: 'Create a personal access token; the token is shown in this response only',
        tags: ['access tokens'],
        security,
        body: CreateAccessTokenBody,
        response: { 201: CreatedAccessToken, ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const created = await deps.accessTokens.create(principal.user.id, request.body);
      await securityEvents.record({ type: 'access_token.created', user: principal.user, origin: requestOrigin(request), credential: principal.method, details: { name: created.name } });
      return reply.code(201).header('cache-control', 'no-store').send({ access_token: created });
    },
  );

  app.delete(
    '/api/v1/access-tokens/:id',
    {
      onRequest,
      schema: { summary: 'Revoke a personal access token', tags: ['access tokens'], security, params: AccessTokenParams, response: { 204: Type.Null(), ...errors, 404: ProblemSchema } },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const { name } = await deps.accessTokens.revoke(principal.user.id, request.params.id);
      await securityEvents.record({ type: 'access_token.revoked', user: principal.user, origin: requestOrigin(request), credential: principal.method, details: { name } });
      return reply.code(204).send(null);
    },
  );
}
