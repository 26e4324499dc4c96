import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { changeOriginOf } from '../audit/origin.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import {
  MemberEnvelope,
  MemberList,
  MemberParams,
  MemberUpdateBody,
  WorkspaceCreateBody,
  WorkspaceEnvelope,
  WorkspaceList,
  WorkspaceParams,
  WorkspaceUpdateBody,
} from './schema.js';
import type { WorkspaceService } from './service.js';
import type { TwoFactorRequirementNotices } from './two-factor-notices.js';
import { assertTwoFactorMet } from '../memberships/permissions.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }];
const tags = ['workspaces'];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema };

/** Names are trimmed before the schema checks their length, as site names are. */
async function trimName(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !('name' in body) || typeof body.name !== 'string') return;
  (body as { name: string }).name = body.name.trim();
}

/**
 * Workspaces and their members. These need a signed-in person: an access token reaches sites
 * only, so a leaked one cannot add its holder to a workspace or take it over. Deleting a
 * workspace deletes its sites, and raising someone to admin or owner hands them the workspace
 * beyond the granting session's end, so these need a recent sign-in too: a borrowed session
 * cannot do either.
 */
export function registerWorkspaceRoutes(
  app: App,
  deps: { guard: Guard; workspaces: WorkspaceService; twoFactorNotices: TwoFactorRequirementNotices },
): void {
  const onRequest = deps.guard.require('signed_in');
  // A route of one workspace: closed to a member who lacks the second factor it requires.
  const inWorkspace = deps.guard.require('signed_in', { workspaceParam: 'id' });
  const { workspaces } = deps;

  app.get(
    '/api/v1/workspaces',
    { onRequest, schema: { summary: 'List the workspaces you are a member of, with your role in each', tags, security, response: { 200: WorkspaceList, ...errors } } },
    async (request) => ({ workspaces: await workspaces.list(currentUser(request).id) }),
  );

  app.post(
    '/api/v1/workspaces',
    {
      onRequest,
      preValidation: trimName,
      schema: { summary: 'Create a workspace; you are its owner', tags, security, body: WorkspaceCreateBody, response: { 201: WorkspaceEnvelope, ...errors, 409: ProblemSchema } },
    },
    async (request, reply) => {
      const workspace = await workspaces.create(changeOriginOf(request), request.body.name);
      return reply.code(201).header('location', `/api/v1/workspaces/${workspace.id}`).send({ workspace });
    },
  );

  app.get(
    '/api/v1/workspaces/:id',
    { onRequest: inWorkspace, schema: { summary: 'Read a workspace you are a member of', tags, security, params: WorkspaceParams, response: { 200: WorkspaceEnvelope, ...errors } } },
    async (request) => ({ workspace: await workspaces.get(currentUser(request).id, request.params.id) }),
  );

  app.patch(
    '/api/v1/workspaces/:id',
    {
      onRequest: inWorkspace,
      preValidation: trimName,
      schema: {
        summary:
          'Change a workspace: rename it or require two-factor authentication of its members (owners; turning it on needs it on your own account: 409 two_factor_setup_required; the members who lack it are mailed), or set its review policy (admins and owners)',
        tags,
        security,
        params: WorkspaceParams,
        body: WorkspaceUpdateBody,
        response: { 200: WorkspaceEnvelope, ...errors, 409: ProblemSchema },
      },
    },
    async (request) => {
      const { name, require_two_factor: requireTwoFactor, review } = request.body;
      const { workspace, requirementTurnedOn } = await workspaces.update(changeOriginOf(request), request.params.id, {
        ...(name === undefined ? {} : { name }),
        ...(requireTwoFactor === undefined ? {} : { requireTwoFactor }),
        ...(review === undefined ? {} : { review }),
      });
      if (requirementTurnedOn) await deps.twoFactorNotices.send(workspace);
      return { workspace };
    },
  );

  app.delete(
    '/api/v1/workspaces/:id',
    {
      onRequest: deps.guard.require('recent', { workspaceParam: 'id' }),
      schema: {
        summary: 'Delete a workspace and its sites (owner, recent sign-in); a personal workspace cannot be deleted',
        tags,
        security,
        params: WorkspaceParams,
        response: { 204: Type.Null(), ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      await workspaces.delete(currentUser(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/workspaces/:id/members',
    { onRequest: inWorkspace, schema: { summary: "List a workspace's members and their roles", tags, security, params: WorkspaceParams, response: { 200: MemberList, ...errors } } },
    async (request) => ({ members: await workspaces.members(currentUser(request).id, request.params.id) }),
  );

  app.patch(
    '/api/v1/workspaces/:id/members/:user_id',
    {
      onRequest: inWorkspace,
      schema: {
        summary: "Change a member's role: admins manage members below owner, owners make and unmake owners; raising someone to admin or owner needs a recent sign-in; the last owner stays",
        tags,
        security,
        params: MemberParams,
        body: MemberUpdateBody,
        response: { 200: MemberEnvelope, ...errors, 409: ProblemSchema },
      },
    },
    async (request) => {
      return { member: await workspaces.changeRole(changeOriginOf(request), request.params.id, request.params.user_id, request.body.role, deps.guard.isRecent(request)) };
    },
  );

  app.delete(
    '/api/v1/workspaces/:id/members/:user_id',
    {
      onRequest,
      schema: {
        summary: 'Remove a member, or leave the workspace (your own user id); the last owner cannot leave',
        tags,
        security,
        params: MemberParams,
        response: { 204: Type.Null(), ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      // Leaving stays open to a member without the second factor the workspace requires: nothing is reached by it.
      if (request.params.user_id !== principal.user.id) assertTwoFactorMet(principal.twoFactorMissingIn, request.params.id);
      await workspaces.removeMember(changeOriginOf(request), request.params.id, request.params.user_id);
      return reply.code(204).send(null);
    },
  );
}
