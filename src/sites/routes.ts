import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { ifNoneMatchHits, versionEtag } from '../http/etag.js';
import { currentUser } from '../http/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { DEFAULT_PAGE_SIZE, IfMatchHeaders, SiteCreateBody, SiteEnvelope, SiteList, SiteListQuery, SiteParams, SiteUpdateBody } from './schema.js';
import type { SiteReads } from './reads.js';
import { siteEtag, siteToJson, type SiteService } from './service.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];
/**
 * Sends JSON encoded beforehand from the route's own response schema (encode.ts); Fastify sends a
 * buffer as it is. The type provider only knows the schema's objects, hence the wider reply type.
 */
function sendEncodedJson(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema };

export function registerSiteRoutes(app: App, deps: { guard: Guard; sites: SiteService; reads: SiteReads }): void {
  const read = deps.guard.require('sites:read');
  const write = deps.guard.require('sites:write');
  const tags = ['sites'];

  app.get(
    '/api/v1/sites',
    { onRequest: read, schema: { summary: 'List your sites, oldest first, a page at a time', tags, security, querystring: SiteListQuery, response: { 200: SiteList, ...errors } } },
    async (request, reply) => {
      return sendEncodedJson(reply, await deps.reads.page(currentUser(request).id, request.query.limit ?? DEFAULT_PAGE_SIZE, request.query.cursor));
    },
  );

  app.post(
    '/api/v1/sites',
    {
      onRequest: write,
      schema: { summary: 'Create a site', tags, security, body: SiteCreateBody, response: { 201: SiteEnvelope, ...errors, 413: ProblemSchema } },
    },
    async (request, reply) => {
      const row = await deps.sites.create(currentUser(request).id, request.body);
      return reply.code(201).header('etag', siteEtag(row)).header('location', `/api/v1/sites/${row.id}`).send({ site: siteToJson(row) });
    },
  );

  app.get(
    '/api/v1/sites/:id',
    { onRequest: read, schema: { summary: 'Read one site', tags, security, params: SiteParams, response: { 200: SiteEnvelope, 304: Type.Null(), ...errors } } },
    async (request, reply) => {
      const site = await deps.reads.site(currentUser(request).id, request.params.id);
      const etag = versionEtag(site.version);
      reply.header('etag', etag);
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return sendEncodedJson(reply, site.body);
    },
  );

  app.put(
    '/api/v1/sites/:id',
    {
      onRequest: write,
      schema: {
        summary: 'Update a site: fields left out keep their value; partner_settings merges field by field',
        tags,
        security,
        params: SiteParams,
        headers: IfMatchHeaders,
        body: SiteUpdateBody,
        response: { 200: SiteEnvelope, ...errors, 412: ProblemSchema, 413: ProblemSchema },
      },
    },
    async (request, reply) => {
      const row = await deps.sites.update(currentUser(request).id, request.params.id, request.body, request.headers['if-match']);
      return reply.header('etag', siteEtag(row)).send({ site: siteToJson(row) });
    },
  );

  app.delete(
    '/api/v1/sites/:id',
    { onRequest: write, schema: { summary: 'Delete a site', tags, security, params: SiteParams, response: { 204: Type.Null(), ...errors } } },
    async (request, reply) => {
      await deps.sites.delete(currentUser(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
