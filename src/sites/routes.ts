import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { changeOriginOf } from '../audit/origin.js';
import type { Guard } from '../auth/guard.js';
import { sendJsonBuffer } from '../http/compression.js';
import { ifMatchVersions, ifNoneMatchHits, versionEtag } from '../http/etag.js';
import { currentCaller, currentPrincipal } from '../auth/principal.js';
import { workspaceNotFound } from '../memberships/permissions.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_SITE_LIST_SORT,
  IfMatchHeaders,
  SiteCreateBody,
  SiteEnvelope,
  SiteListAnswer,
  SiteListQuery,
  SiteParams,
  SiteRestoreAnswer,
  SiteUpdateBody,
  SiteVersionEnvelope,
  SiteVersionList,
  SiteVersionListQuery,
  SiteVersionParams,
  TrashList,
  TrashListQuery,
  TrashParams,
} from './schema.js';
import type { SiteReads } from './reads.js';
import type { SiteHistory } from './history.js';
import { encodeSiteEnvelope, siteEtag, siteToJson } from './presenter.js';
import type { SiteService } from './service.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];
/**
 * Names are trimmed before the schema checks their length, so "  Help  " is stored as "Help" and
 * a name of spaces only is refused as empty.
 */
async function trimName(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !('name' in body) || typeof body.name !== 'string') return;
  (body as { name: string }).name = body.name.trim();
}

const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema };

export function registerSiteRoutes(app: App, deps: { guard: Guard; sites: SiteService; history: SiteHistory; reads: SiteReads }): void {
  const write = deps.guard.require('sites:write');
  // Each route says how its workspace is found, so the guard checks the workspace's two-factor requirement.
  const readList = deps.guard.require('sites:read', { workspaceQuery: 'workspace_id' });
  const readSite = deps.guard.require('sites:read', { siteParam: 'id' });
  const writeSite = deps.guard.require('sites:write', { siteParam: 'id' });
  const tags = ['sites'];

  app.get(
    '/api/v1/sites',
    {
      onRequest: readList,
      // The answers are bytes prepared ahead (reads.ts); sendJsonBuffer compresses them when asked.
      compress: false,
      schema: {
        summary: 'List the sites of your workspaces (or of one) a page at a time: oldest first, or sorted, searched by name, or as summaries',
        tags,
        security,
        querystring: SiteListQuery,
        response: { 200: SiteListAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const caller = currentCaller(request);
      const { limit = DEFAULT_PAGE_SIZE, cursor, q = '', sort = DEFAULT_SITE_LIST_SORT, fields, workspace_id: workspaceId } = request.query;
      // Asking for a workspace one is not in is an error, not an empty list, as reading it is. The
      // query itself is limited to the caller's memberships whatever this says.
      if (workspaceId !== undefined && !principal.memberships.has(workspaceId)) throw workspaceNotFound();
      // The default list keeps its own path: its statements are prepared once and its pages cached.
      if (q === '' && sort === DEFAULT_SITE_LIST_SORT && fields === undefined) {
        return sendJsonBuffer(request, reply, await deps.reads.page(caller, workspaceId, limit, cursor));
      }
      return sendJsonBuffer(request, reply, await deps.reads.list(caller, { workspaceId, limit, cursor, q, sort, fields }));
    },
  );

  app.post(
    '/api/v1/sites',
    {
      onRequest: write,
      preValidation: trimName,
      schema: { summary: 'Create a site in a workspace (editor or above); your personal workspace by default', tags, security, body: SiteCreateBody, response: { 201: SiteEnvelope, ...errors, 413: ProblemSchema } },
    },
    async (request, reply) => {
      const row = await deps.sites.create(currentCaller(request), changeOriginOf(request), request.body.workspace_id, request.body);
      return reply.code(201).header('etag', siteEtag(row)).header('location', `/api/v1/sites/${row.id}`).send({ site: siteToJson(row) });
    },
  );

  app.get(
    '/api/v1/sites/:id',
    {
      onRequest: readSite,
      compress: false,
      schema: { summary: 'Read one site', tags, security, params: SiteParams, response: { 200: SiteEnvelope, 304: Type.Null(), ...errors } },
    },
    async (request, reply) => {
      const site = await deps.reads.site(currentCaller(request), request.params.id);
      const etag = versionEtag(site.version);
      reply.header('etag', etag);
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return sendJsonBuffer(request, reply, site.body);
    },
  );

  app.put(
    '/api/v1/sites/:id',
    {
      onRequest: writeSite,
      preValidation: trimName,
      // Encoded here like the reads, so an update without Accept-Encoding runs no compression hook either.
      compress: false,
      schema: {
        summary: 'Update a site (editor or above): fields left out keep their value; partner_settings merges field by field',
        tags,
        security,
        params: SiteParams,
        headers: IfMatchHeaders,
        body: SiteUpdateBody,
        response: { 200: SiteEnvelope, ...errors, 412: ProblemSchema, 413: ProblemSchema },
      },
    },
    async (request, reply) => {
      const row = await deps.sites.update(currentCaller(request), changeOriginOf(request), request.params.id, request.body, ifMatchVersions(request.headers['if-match']));
      return sendJsonBuffer(request, reply.header('etag', siteEtag(row)), encodeSiteEnvelope(row));
    },
  );

  app.get(
    '/api/v1/sites/:id/versions',
    {
      onRequest: readSite,
      schema: {
        summary: "The site's history, newest first: each create, update and restore with who made it, how, and the fields it changed (the partner token only as set, replaced or cleared)",
        tags,
        security,
        params: SiteParams,
        querystring: SiteVersionListQuery,
        response: { 200: SiteVersionList, ...errors },
      },
    },
    async (request) => {
      const cursor = request.query.cursor === undefined ? undefined : Number(request.query.cursor);
      const page = await deps.history.versions(currentCaller(request), request.params.id, request.query.limit ?? DEFAULT_PAGE_SIZE, cursor);
      return { versions: page.versions, next_cursor: page.nextCursor };
    },
  );

  app.get(
    '/api/v1/sites/:id/versions/:version',
    {
      onRequest: readSite,
      schema: { summary: 'One version of the site, with the site as it was then (no secret)', tags, security, params: SiteVersionParams, response: { 200: SiteVersionEnvelope, ...errors } },
    },
    async (request) => ({ version: await deps.history.version(currentCaller(request), request.params.id, request.params.version) }),
  );

  app.post(
    '/api/v1/sites/:id/versions/:version/restore',
    {
      onRequest: writeSite,
      schema: {
        summary: "Restore a version (editor or above) as a new version: its name, colour, settings and partner settings. The partner access token is never in a version; the current one is kept, unless the restored URLs move it to other origins, which clears it. If-Match as for PUT",
        tags,
        security,
        params: SiteVersionParams,
        headers: IfMatchHeaders,
        response: { 200: SiteRestoreAnswer, ...errors, 412: ProblemSchema },
      },
    },
    async (request, reply) => {
      const restored = await deps.history.restore(currentCaller(request), changeOriginOf(request), request.params.id, request.params.version, ifMatchVersions(request.headers['if-match']));
      return reply.header('etag', siteEtag(restored.site)).send({ site: siteToJson(restored.site), restored_from: request.params.version, partner_access_token: restored.token });
    },
  );

  app.delete(
    '/api/v1/sites/:id',
    { onRequest: writeSite, schema: { summary: 'Move a site to the trash (admin or owner of its workspace); POST /api/v1/trash/{site_id}/restore brings it back', tags, security, params: SiteParams, response: { 204: Type.Null(), ...errors } } },
    async (request, reply) => {
      await deps.history.delete(currentCaller(request), changeOriginOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/trash',
    {
      onRequest: readList,
      schema: {
        summary: "Deleted sites of your workspaces (or of one), most recently deleted first, restorable until they are purged (TRASH_RETENTION_DAYS after deletion)",
        tags,
        security,
        querystring: TrashListQuery,
        response: { 200: TrashList, ...errors },
      },
    },
    async (request) => {
      const { workspace_id: workspaceId, limit = DEFAULT_PAGE_SIZE, cursor } = request.query;
      // As for the sites list: a workspace one is not in is an error, not an empty trash.
      const principal = currentPrincipal(request);
      if (workspaceId !== undefined && !principal.memberships.has(workspaceId)) throw workspaceNotFound();
      const page = await deps.history.trash(currentCaller(request), workspaceId, limit, cursor);
      return { sites: page.entries, next_cursor: page.nextCursor };
    },
  );

  app.post(
    '/api/v1/trash/:site_id/restore',
    {
      onRequest: deps.guard.require('sites:write', { siteParam: 'site_id' }),
      schema: {
        summary: 'Bring a deleted site back from the trash as it was, with its history and partner access token (admin or owner of its workspace)',
        tags,
        security,
        params: TrashParams,
        response: { 200: SiteEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      const row = await deps.history.restoreFromTrash(currentCaller(request), changeOriginOf(request), request.params.site_id);
      return reply.header('etag', siteEtag(row)).send({ site: siteToJson(row) });
    },
  );
}
