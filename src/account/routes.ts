import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords.js';
import type { SessionService } from '../auth/sessions.js';
import { currentPrincipal, currentUser } from '../http/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { UserSchema } from '../users/schema.js';
import { type PasswordChangeService, userToJson } from '../users/service.js';

const SessionSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  user_agent: Type.String(),
  ip: Type.String(),
  current: Type.Boolean({ description: 'The session this request was made with' }),
  second_factor_pending: Type.Boolean({ description: 'A sign-in that passed the password or magic link but not yet the 2FA step' }),
});

const ChangePasswordBody = Type.Object(
  {
    // Longer than the policy allows, so an over-long current password is "wrong", not a validation hint.
    current_password: Type.Optional(Type.String({ maxLength: PASSWORD_MAX_LENGTH * 4, description: 'Required while the account has a password' })),
    new_password: Type.String({ maxLength: PASSWORD_MAX_LENGTH * 4, description: `${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters; not a commonly used password, a repeat, a sequence, or built from your e-mail address, name or the service's name` }),
  },
  { additionalProperties: false },
);

const errors = { 401: ProblemSchema, 403: ProblemSchema };
const tags = ['account'];

export function registerAccountRoutes(
  app: App,
  deps: { guard: Guard; sessions: SessionService; passwordChanges: PasswordChangeService; securityEvents: SecurityEvents },
): void {
  const { guard, sessions, passwordChanges, securityEvents } = deps;

  app.get(
    '/api/v1/me',
    {
      onRequest: guard.require('authenticated'),
      schema: { summary: 'The signed-in user', tags, response: { 200: Type.Object({ user: UserSchema }), ...errors } },
    },
    async (request) => ({ user: userToJson(currentUser(request)) }),
  );

  app.get(
    '/api/v1/me/sessions',
    {
      onRequest: guard.require('account'),
      schema: { summary: 'Your active web sessions', tags, response: { 200: Type.Object({ sessions: Type.Array(SessionSchema) }), ...errors } },
    },
    async (request) => {
      const principal = currentPrincipal(request);
      const rows = await sessions.list(principal.user.id);
      return {
        sessions: rows.map((row) => ({
          id: row.id,
          created_at: row.created_at,
          last_seen_at: row.last_seen_at,
          expires_at: row.expires_at,
          user_agent: row.user_agent,
          ip: row.ip,
          current: row.id === principal.sessionId,
          second_factor_pending: row.second_factor_pending === 1,
        })),
      };
    },
  );

  app.delete(
    '/api/v1/me/sessions/:id',
    {
      onRequest: guard.require('account'),
      schema: {
        summary: 'End one of your web sessions',
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null(), ...errors, 404: ProblemSchema },
      },
    },
    async (request, reply) => {
      await sessions.revoke(currentUser(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/api/v1/me/sessions',
    {
      onRequest: guard.require('account'),
      schema: { summary: 'Sign out everywhere: ends every web session and revokes every JWT issued so far', tags, response: { 204: Type.Null(), ...errors } },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      await sessions.revokeEverything(principal.user.id);
      securityEvents.record({ type: 'sessions.revoked', user: principal.user, origin: requestOrigin(request), credential: principal.method });
      reply.clearCookie(sessions.cookieName, { path: '/', secure: sessions.cookieSettings.secure, httpOnly: true, sameSite: 'lax' });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/me/password',
    {
      // "account": a personal access token cannot change the password it was never given.
      onRequest: guard.require('account'),
      schema: {
        summary: 'Change your password. Every other web session ends and every JWT issued so far is refused; the web session making the change stays signed in',
        tags,
        body: ChangePasswordBody,
        response: { 204: Type.Null(), 400: ProblemSchema, ...errors, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      await passwordChanges.changePassword(
        principal.user.id,
        { currentPassword: request.body.current_password, newPassword: request.body.new_password },
        principal.method === 'session' ? principal.sessionId : null,
      );
      return reply.code(204).send(null);
    },
  );
}
