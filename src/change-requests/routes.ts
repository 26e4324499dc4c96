import { changeOriginOf } from '../audit/origin.js';
import type { Guard } from '../auth/guard.js';
import { currentCaller, currentPrincipal } from '../auth/principal.js';
import { ifMatchVersions } from '../http/etag.js';
import { ProblemSchema } from '../http/schema.js';
import { IfMatchHeaders } from '../sites/schema.js';
import type { App } from '../http/types.js';
import type { SecretBox } from '../lib/crypto.js';
import { type ChangeRequestDetails, changeRequestToJson } from './presenter.js';
import type { ChangeRequestService } from './service.js';
import {
  ChangeRequestApplyBody,
  ChangeRequestCommentBody,
  ChangeRequestCreateBody,
  ChangeRequestDeclineBody,
  ChangeRequestEnvelope,
  ChangeRequestList,
  ChangeRequestParams,
  ChangeRequestQueueQuery,
  ChangeRequestUpdateBody,
  ConflictProblem,
  SiteChangeRequestListQuery,
  SiteChangeRequestParams,
} from './schema.js';

const tags = ['change requests'];
const readSecurity: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];
const personSecurity: Array<Record<string, string[]>> = [{ BearerAuth: [] }];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema };
const changeErrors = { ...errors, 409: ConflictProblem };

/**
 * Change requests. Access tokens read them and open them, as they read and change sites (a
 * pipeline proposes, people review). Reviewing (comment, approve, decline, close, apply) and
 * editing a proposal need a signed-in person: a leaked token must not approve or ship a change.
 */
export function registerChangeRequestRoutes(app: App, deps: { guard: Guard; changeRequests: ChangeRequestService; secrets: SecretBox }): void {
  // Each route says how its workspace is found (its site, or the queue's workspace_id), so the guard checks the workspace's two-factor requirement.
  const read = deps.guard.require('sites:read', { siteParam: 'id' });
  const write = deps.guard.require('sites:write', { siteParam: 'id' });
  const person = deps.guard.require('signed_in', { siteParam: 'id' });
  const { changeRequests } = deps;
  const present = (details: ChangeRequestDetails) => changeRequestToJson(details, deps.secrets);
  const base = '/api/v1/sites/:id/change-requests';

  app.post(
    base,
    {
      onRequest: write,
      schema: {
        summary:
          'Propose a change to a site for review (editor and above): `changes` is a PUT body; nothing of the site changes until the request is applied. An If-Match with the site\'s ETag opens it only while the site is at that version (412 precondition_failed once it moved on)',
        tags,
        security: readSecurity,
        params: SiteChangeRequestParams,
        headers: IfMatchHeaders,
        body: ChangeRequestCreateBody,
        response: { 201: ChangeRequestEnvelope, ...errors, 412: ProblemSchema, 413: ProblemSchema },
      },
    },
    async (request, reply) => {
      const opened = await changeRequests.open(currentCaller(request), changeOriginOf(request), request.params.id, request.body, ifMatchVersions(request.headers['if-match']));
      return reply.code(201).header('location', `/api/v1/sites/${request.params.id}/change-requests/${opened.row.id}`).send({ change_request: present(opened) });
    },
  );

  app.get(
    base,
    {
      onRequest: read,
      schema: { summary: "A site's change requests, newest first (at most 100)", tags, security: readSecurity, params: SiteChangeRequestParams, querystring: SiteChangeRequestListQuery, response: { 200: ChangeRequestList, ...errors } },
    },
    async (request) => ({ change_requests: (await changeRequests.listForSite(currentCaller(request), request.params.id, request.query.status)).map(present) }),
  );

  app.get(
    '/api/v1/change-requests',
    {
      onRequest: deps.guard.require('sites:read', { workspaceQuery: 'workspace_id' }),
      schema: {
        summary: "The review queue: change requests on a workspace's sites, open and scheduled unless `status` says otherwise, newest first (at most 100)",
        tags,
        security: readSecurity,
        querystring: ChangeRequestQueueQuery,
        response: { 200: ChangeRequestList, ...errors },
      },
    },
    async (request) => {
      const principal = currentPrincipal(request);
      const caller = { ...currentCaller(request), memberships: principal.memberships };
      return { change_requests: (await changeRequests.queue(caller, request.query.workspace_id, request.query.status)).map(present) };
    },
  );

  app.get(
    `${base}/:cr_id`,
    { onRequest: read, schema: { summary: 'One change request', tags, security: readSecurity, params: ChangeRequestParams, response: { 200: ChangeRequestEnvelope, ...errors } } },
    async (request) => ({ change_request: present(await changeRequests.get(currentCaller(request), request.params.id, request.params.cr_id)) }),
  );

  app.patch(
    `${base}/:cr_id`,
    {
      onRequest: person,
      schema: {
        summary: 'Change your open change request: title, description, or the proposal (made anew against the current site). Every approval is withdrawn',
        tags,
        security: personSecurity,
        params: ChangeRequestParams,
        body: ChangeRequestUpdateBody,
        response: { 200: ChangeRequestEnvelope, ...changeErrors, 413: ProblemSchema },
      },
    },
    async (request) => ({ change_request: present(await changeRequests.update(currentCaller(request), changeOriginOf(request), request.params.id, request.params.cr_id, request.body)) }),
  );

  app.post(
    `${base}/:cr_id/comments`,
    {
      onRequest: person,
      schema: { summary: 'Comment on an open or scheduled change request (editor and above)', tags, security: personSecurity, params: ChangeRequestParams, body: ChangeRequestCommentBody, response: { 200: ChangeRequestEnvelope, ...changeErrors } },
    },
    async (request) => ({ change_request: present(await changeRequests.comment(currentCaller(request), changeOriginOf(request), request.params.id, request.params.cr_id, request.body.body)) }),
  );

  app.post(
    `${base}/:cr_id/approve`,
    {
      onRequest: person,
      schema: { summary: 'Approve an open change request (an admin or owner other than its author)', tags, security: personSecurity, params: ChangeRequestParams, response: { 200: ChangeRequestEnvelope, ...changeErrors } },
    },
    async (request) => ({ change_request: present(await changeRequests.approve(currentCaller(request), changeOriginOf(request), request.params.id, request.params.cr_id)) }),
  );

  app.post(
    `${base}/:cr_id/decline`,
    {
      onRequest: person,
      schema: {
        summary: 'Decline an open or scheduled change request (admins and owners), with an optional comment',
        tags,
        security: personSecurity,
        params: ChangeRequestParams,
        body: ChangeRequestDeclineBody,
        response: { 200: ChangeRequestEnvelope, ...changeErrors },
      },
    },
    async (request) => ({ change_request: present(await changeRequests.decline(currentCaller(request), changeOriginOf(request), request.params.id, request.params.cr_id, request.body?.comment)) }),
  );

  app.post(
    `${base}/:cr_id/close`,
    {
      onRequest: person,
      schema: { summary: 'Withdraw an open or scheduled change request (its author, an admin or an owner)', tags, security: personSecurity, params: ChangeRequestParams, response: { 200: ChangeRequestEnvelope, ...changeErrors } },
    },
    async (request) => ({ change_request: present(await changeRequests.close(currentCaller(request), changeOriginOf(request), request.params.id, request.params.cr_id)) }),
  );

  app.post(
    `${base}/:cr_id/apply`,
    {
      onRequest: person,
      schema: {
        summary:
          'Apply a change request now, or at `at` (status scheduled): its author, an admin or an owner, once the approvals are in (409 approvals_missing). It merges path by path onto the current site; a path changed since the base to another value is 409 change_request_conflict listing every such path, and nothing changes, unless `resolve` settles it',
        tags,
        security: personSecurity,
        params: ChangeRequestParams,
        body: ChangeRequestApplyBody,
        response: { 200: ChangeRequestEnvelope, ...changeErrors },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return { change_request: present(await changeRequests.apply(currentCaller(request), changeOriginOf(request), request.params.id, request.params.cr_id, { at: body.at, resolve: body.resolve })) };
    },
  );
}
