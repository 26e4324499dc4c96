import { validationError } from '../errors.js';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import type { RecentAuthentication } from '../auth/recent-authentication.js';
import { AuthenticationResponse, SignInOptionsResponse } from '../passkeys/schema.js';
import type { PasskeyService } from '../passkeys/service.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../passwords/passwords.js';
import type { SessionService } from '../auth/sessions.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { Id } from '../http/params.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { UserSchema } from '../users/schema.js';
import type { AccountDeletionService } from './deletion.js';
import type { PasswordChangeService } from './password-change.js';
import { userToJson } from '../users/presenter.js';
import type { ReauthenticationProof, ReauthenticationService } from './reauthentication.js';
import { SessionSchema } from './schema.js';

const ChangePasswordBody = Type.Object(
  {
    // Longer than the policy allows, so an over-long current password is "wrong", not a validation hint.
    current_password: Type.Optional(
      Type.String({
        maxLength: PASSWORD_MAX_LENGTH * 4,
        description:
          'Needed unless you signed in or re-authenticated within REAUTH_WINDOW_SECONDS (see recent_authentication_until); checked whenever sent to an account that has a password',
      }),
    ),
    new_password: Type.String({ maxLength: PASSWORD_MAX_LENGTH * 4, description: `${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters; not easy to guess (a common password, a repeat, a sequence), or built from your e-mail address, name or the service's name` }),
  },
  { additionalProperties: false },
);

const ReauthenticateBody = Type.Object(
  {
    password: Type.Optional(Type.String({ maxLength: PASSWORD_MAX_LENGTH * 4 })),
    otp: Type.Optional(Type.String({ maxLength: 64, description: 'With the password, when two-factor authentication is on: a TOTP or recovery code' })),
    passkey: Type.Optional(
      Type.Object(
        {
          challenge_id: Type.String({ maxLength: 64, description: 'From POST /api/v1/me/reauthenticate/passkey-options' }),
          response: AuthenticationResponse,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'Either {password, otp?} or {passkey: {challenge_id, response}}' },
);

const RecentAuthenticationUntil = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description:
    'Until when changes that need a recent authentication (new access tokens, passkeys, TOTP, a new password without the current one) go through without POST /api/v1/me/reauthenticate; null when they need it now, and always for a personal access token',
});

const ReauthenticatedResponse = Type.Object({
  recent_authentication_until: Type.String({ format: 'date-time' }),
  token: Type.Optional(Type.String({ description: 'JWT callers only: a fresh JWT that carries the new authentication time; the one sent stays valid but not recent' })),
  token_type: Type.Optional(Type.Literal('Bearer')),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});

const errors = { 401: ProblemSchema, 403: ProblemSchema };

const OwnershipTransferProblem = Type.Intersect([
  ProblemSchema,
  Type.Object({
    workspaces: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { description: 'The workspaces you are the only owner of while others are members' }),
  }),
]);
const tags = ['account'];

export interface AccountRouteDeps {
  guard: Guard;
  sessions: SessionService;
  passwordChanges: PasswordChangeService;
  securityEvents: SecurityEvents;
  recentAuthentication: RecentAuthentication;
  reauthentication: ReauthenticationService;
  passkeys: PasskeyService;
  accountDeletion: AccountDeletionService;
}

export function registerAccountRoutes(app: App, deps: AccountRouteDeps): void {
  const { guard, sessions, passwordChanges, securityEvents, recentAuthentication, reauthentication, passkeys, accountDeletion } = deps;

  app.get(
    '/api/v1/me',
    {
      onRequest: guard.require('authenticated'),
      schema: {
        summary: 'The signed-in user, and until when their sign-in counts as recent',
        tags,
        response: {
          200: Type.Object({
            user: UserSchema,
            recent_authentication_until: RecentAuthenticationUntil,
            instance_admin: Type.Boolean({ description: 'An instance administrator: the admin API (/api/v1/admin) and the dashboard\'s Admin area are open to them' }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const principal = currentPrincipal(request);
      const until = recentAuthentication.isRecent(principal) ? recentAuthentication.endsAt(principal) : null;
      return { user: userToJson(principal.user), recent_authentication_until: until === null ? null : until.toISOString(), instance_admin: principal.user.instance_admin === 1 };
    },
  );

  app.delete(
    '/api/v1/me',
    {
      // "recent": a borrowed session or a stolen JWT must not be able to destroy the account and its sites.
      onRequest: guard.require('recent'),
      schema: {
        summary:
          'Delete your account (recent authentication): your personal workspace and every workspace you are the only member of go with their sites, and every session, JWT and access token of yours ends; sites of workspaces shared with others stay. 409 ownership_transfer_required, naming the workspaces in `workspaces`, while you are the only owner of a workspace that has other members',
        tags,
        response: { 204: Type.Null(), ...errors, 404: ProblemSchema, 409: OwnershipTransferProblem },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      await accountDeletion.delete(principal.user.id);
      await securityEvents.record({ type: 'account.deleted', user: principal.user, origin: requestOrigin(request), credential: principal.method });
      reply.clearCookie(sessions.cookieName, { path: '/', secure: sessions.cookieSettings.secure, httpOnly: true, sameSite: 'lax' });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/me/reauthenticate/passkey-options',
    {
      onRequest: guard.require('account'),
      schema: {
        summary: 'Start confirming who you are with a passkey: options for navigator.credentials.get() (your passkeys only) and the challenge id, valid 5 minutes, once',
        tags,
        response: { 200: SignInOptionsResponse, ...errors, 409: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const { options, challengeId } = await passkeys.reauthenticationOptions(currentUser(request), request.ip);
      return reply.header('cache-control', 'no-store').send({ options, challenge_id: challengeId });
    },
  );

  app.post(
    '/api/v1/me/reauthenticate',
    {
      // "account": a personal access token never proves a person, so it cannot be made recent either.
      onRequest: guard.require('account'),
      schema: {
        summary:
          'Confirm who you are (password, with otp when 2FA is on; or a passkey), so changes that need a recent authentication go through for REAUTH_WINDOW_SECONDS. A web session gets a new cookie value; a JWT caller gets a fresh JWT',
        tags,
        body: ReauthenticateBody,
        response: { 200: ReauthenticatedResponse, 400: ProblemSchema, ...errors, 409: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const { password, otp, passkey } = request.body;
      if ((password === undefined) === (passkey === undefined) || (passkey !== undefined && otp !== undefined)) {
        throw validationError([{ path: '/', message: 'send either password (with otp when two-factor authentication is on) or passkey' }]);
      }
      const proof: ReauthenticationProof =
        passkey === undefined
          ? { kind: 'password', password: password ?? '', otp }
          : { kind: 'passkey', challengeId: passkey.challenge_id, response: passkey.response, clientIp: request.ip };
      const origin = requestOrigin(request);
      let done;
      try {
        done = await reauthentication.reauthenticate(principal, proof);
      } catch (error) {
        await securityEvents.recordReauthenticationError(error, { user: principal.user, origin, method: proof.kind, credential: principal.method });
        throw error;
      }
      await securityEvents.record({ type: 'reauthenticated', user: principal.user, origin, method: done.method, credential: principal.method });
      if (done.session !== null) reply.setCookie(sessions.cookieName, done.session.cookieValue, sessions.cookieSettingsFor(done.session.session));
      return reply.header('cache-control', 'no-store').send({
        recent_authentication_until: done.until.toISOString(),
        ...(done.jwt === null ? {} : { token: done.jwt.token, token_type: 'Bearer' as const, expires_at: done.jwt.expiresAt.toISOString() }),
      });
    },
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
        params: Type.Object({ id: Id }),
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
      await securityEvents.record({ type: 'sessions.revoked', user: principal.user, origin: requestOrigin(request), credential: principal.method });
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
        summary:
          'Change your password. Without current_password only within a recent authentication (the "forgot password" path: sign in by e-mail link, then set one), else 403 reauthentication_required. Every other web session ends and every JWT issued so far is refused; the web session making the change stays signed in',
        tags,
        body: ChangePasswordBody,
        response: { 204: Type.Null(), 400: ProblemSchema, ...errors, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      await passwordChanges.changePassword(
        principal.user.id,
        { currentPassword: request.body.current_password, newPassword: request.body.new_password, recentlyAuthenticated: guard.isRecent(request) },
        { credential: principal.method, keepSessionId: principal.method === 'session' ? principal.sessionId : null },
      );
      await securityEvents.record({ type: 'password.changed', user: principal.user, origin: requestOrigin(request), credential: principal.method });
      return reply.code(204).send(null);
    },
  );
}
