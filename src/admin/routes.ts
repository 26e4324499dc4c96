import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { currentPrincipal } from '../auth/principal.js';
import type { SessionService } from '../auth/sessions.js';
import { AppError } from '../errors.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { requestOrigin, type SecurityEvents, type SecurityEventType } from '../security/events.js';
import { ADMIN_ERRORS } from './errors.js';
import { adminUserToJson } from './presenter.js';
import type { AdminUserRow } from './queries.js';
import { ADMIN_USERS_PAGE_SIZE, AdminUserPage, AdminUserParams, AdminUserQuery, AdminUserResponse } from './schema.js';
import type { AdminService } from './service.js';

export interface AdminRouteDeps {
  guard: Guard;
  admin: AdminService;
  sessions: SessionService;
  securityEvents: SecurityEvents;
}

const tags = ['admin'];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema };

/**
 * The admin API: instance administrators see every account and can disable, enable and sign out
 * one. A person, signed in and recently re-authenticated, is needed (an access token never is
 * one); anyone else gets 403 instance_admin_required before any account is looked up, so the
 * answer says nothing about which ids exist.
 */
export function registerAdminRoutes(app: App, deps: AdminRouteDeps): void {
  const { guard, admin, sessions, securityEvents } = deps;

  const requireAdministrator = async (request: FastifyRequest): Promise<void> => {
    const principal = currentPrincipal(request);
    if (principal.user.instance_admin !== 1) throw new AppError(403, ADMIN_ERRORS.INSTANCE_ADMIN_REQUIRED, 'Only an instance administrator may do this.');
    guard.assertRecent(request);
  };
  const onRequest = [guard.require('account'), requireAdministrator];

  /** The action as a security event of the account it was done to, naming the administrator. */
  async function recordAction(request: FastifyRequest, type: SecurityEventType, target: AdminUserRow): Promise<void> {
    const principal = currentPrincipal(request);
    await securityEvents.record({
      type,
      user: { id: target.id, email: target.email },
      origin: requestOrigin(request),
      credential: principal.method,
      details: { administrator_id: principal.user.id },
    });
  }

  app.get(
    '/api/v1/admin/users',
    {
      onRequest,
      schema: {
        summary: 'Every account, oldest first, optionally those whose address or name contains `query` (instance administrators, recent authentication)',
        tags,
        querystring: AdminUserQuery,
        response: { 200: AdminUserPage, ...errors },
      },
    },
    async (request, reply) => {
      const page = await admin.search(request.query.query ?? '', request.query.cursor, ADMIN_USERS_PAGE_SIZE);
      return reply.header('cache-control', 'no-store').send({ users: page.users.map(adminUserToJson), next_cursor: page.nextCursor });
    },
  );

  app.post(
    '/api/v1/admin/users/:id/disable',
    {
      onRequest,
      schema: {
        summary:
          'Disable an account: its sessions end and its JWTs and access tokens are refused at once on every app server; every sign-in answers 403 account_disabled until it is enabled. 409 cannot_disable_self, 409 last_administrator',
        tags,
        params: AdminUserParams,
        response: { 200: AdminUserResponse, ...errors, 404: ProblemSchema, 409: ProblemSchema },
      },
    },
    async (request) => {
      const { user, changed } = await admin.disable(currentPrincipal(request).user.id, request.params.id);
      // The guard of this process forgets the user now; the others hear of it from the change feed.
      sessions.credentialsEnded(user.id);
      if (changed) await recordAction(request, 'account.disabled', user);
      return { user: adminUserToJson(user) };
    },
  );

  app.post(
    '/api/v1/admin/users/:id/enable',
    {
      onRequest,
      schema: {
        summary: 'Enable a disabled account: it can sign in again, and its access tokens work again (its sessions and JWTs ended for good)',
        tags,
        params: AdminUserParams,
        response: { 200: AdminUserResponse, ...errors, 404: ProblemSchema },
      },
    },
    async (request) => {
      const { user, changed } = await admin.enable(request.params.id);
      if (changed) await recordAction(request, 'account.enabled', user);
      return { user: adminUserToJson(user) };
    },
  );

  app.delete(
    '/api/v1/admin/users/:id/sessions',
    {
      onRequest,
      schema: {
        summary: "Sign an account out everywhere: every web session ends and every JWT issued so far is refused (its access tokens stay)",
        tags,
        params: AdminUserParams,
        response: { 204: Type.Null(), ...errors, 404: ProblemSchema },
      },
    },
    async (request, reply) => {
      const user = await admin.find(request.params.id);
      await sessions.revokeEverything(user.id);
      await recordAction(request, 'sessions.revoked', user);
      return reply.code(204).send(null);
    },
  );
}
