import { Type } from 'typebox';
import { assertSameOrigin } from '../auth/csrf.js';
import type { Guard } from '../auth/guard.js';
import { accountDisabled } from '../auth/disabled.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { type SessionService, startWebSession } from '../auth/sessions.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import type { UserRow } from '../users/queries.js';
import { UserSchema } from '../users/schema.js';
import { userToJson } from '../users/presenter.js';
import {
  PasskeyEnvelope,
  PasskeyList,
  PasskeyParams,
  PasskeySignInBody,
  RegisterPasskeyBody,
  RegistrationOptionsResponse,
  RenamePasskeyBody,
  SignInOptionsResponse,
} from './schema.js';
import type { PasskeyService } from './service.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 415: ProblemSchema };
const tags = ['passkeys'];
const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }];

export interface PasskeyRouteDeps {
  guard: Guard;
  passkeys: PasskeyService;
  sessions: SessionService;
  securityEvents: SecurityEvents;
  publicOrigin: string;
}

/**
 * Passkeys: managed by the signed-in user under /api/v1/me/passkeys ("account" requirement: a
 * personal access token cannot add a way to sign in), and used to sign in to the web interface
 * without a user name under /auth/passkey. Adding or removing one needs a recent authentication
 * ("recent"): a stolen session must not plant a passkey of the thief's, or remove the owner's; the
 * owner is mailed about either.
 */
export function registerPasskeyRoutes(app: App, deps: PasskeyRouteDeps): void {
  const { passkeys, securityEvents } = deps;
  const onRequest = deps.guard.require('account');
  const recent = deps.guard.require('recent');

  app.post(
    '/api/v1/me/passkeys/options',
    {
      // Asked before the browser's prompt, so the person confirms who they are first, not after.
      onRequest: recent,
      schema: {
        summary: 'Start adding a passkey: options for navigator.credentials.create(), valid 5 minutes, once',
        tags,
        security,
        response: { 200: RegistrationOptionsResponse, ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const options = await passkeys.registrationOptions(currentUser(request));
      return reply.header('cache-control', 'no-store').send({ options });
    },
  );

  app.post(
    '/api/v1/me/passkeys',
    {
      onRequest: recent,
      schema: {
        summary: 'Finish adding a passkey: the credential navigator.credentials.create() made (PublicKeyCredential.toJSON())',
        tags,
        security,
        body: RegisterPasskeyBody,
        response: { 201: PasskeyEnvelope, ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const passkey = await passkeys.register(principal.user, request.body);
      // Whether the user has a second factor is kept with their principal (a workspace may require one).
      deps.guard.forgetUser(principal.user.id);
      await securityEvents.record({ type: 'passkey.added', user: principal.user, origin: requestOrigin(request), credential: principal.method, details: { name: passkey.name } });
      return reply.code(201).send({ passkey });
    },
  );

  app.get(
    '/api/v1/me/passkeys',
    { onRequest, schema: { summary: 'Your passkeys', tags, security, response: { 200: PasskeyList, ...errors } } },
    async (request) => ({ passkeys: await passkeys.list(currentUser(request).id) }),
  );

  app.patch(
    '/api/v1/me/passkeys/:id',
    {
      onRequest,
      schema: { summary: 'Rename a passkey', tags, security, params: PasskeyParams, body: RenamePasskeyBody, response: { 200: PasskeyEnvelope, ...errors, 404: ProblemSchema } },
    },
    async (request) => ({ passkey: await passkeys.rename(currentUser(request).id, request.params.id, request.body.name) }),
  );

  app.delete(
    '/api/v1/me/passkeys/:id',
    {
      onRequest: recent,
      schema: { summary: 'Remove a passkey: it no longer signs in', tags, security, params: PasskeyParams, response: { 204: Type.Null(), ...errors, 404: ProblemSchema } },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const { name } = await passkeys.remove(principal.user.id, request.params.id);
      deps.guard.forgetUser(principal.user.id);
      await securityEvents.record({ type: 'passkey.removed', user: principal.user, origin: requestOrigin(request), credential: principal.method, details: { name } });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/passkey/options',
    {
      schema: {
        summary: 'Start a passkey sign-in (no user name: the browser offers the passkeys it holds). Answers the options and the challenge id for /auth/passkey/verify',
        tags: ['web sign-in'],
        response: { 200: SignInOptionsResponse, 403: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      // Sign-in endpoints take requests from Siteward's own pages only (login CSRF).
      assertSameOrigin(request.headers, deps.publicOrigin);
      const { options, challengeId } = await passkeys.signInOptions(request.ip);
      return reply.header('cache-control', 'no-store').send({ options, challenge_id: challengeId });
    },
  );

  app.post(
    '/auth/passkey/verify',
    {
      schema: {
        summary: 'Finish a passkey sign-in: sets the session cookie. User verification is required, so no 2FA step follows',
        tags: ['web sign-in'],
        body: PasskeySignInBody,
        response: { 200: Type.Object({ user: UserSchema }), 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      assertSameOrigin(request.headers, deps.publicOrigin);
      const origin = requestOrigin(request);
      let user: UserRow;
      try {
        user = await passkeys.signIn(request.body.challenge_id, request.body.response, request.ip);
      } catch (error) {
        // One reason for every way a response can fail (unknown, replayed, forged); the code is kept in details.
        await deps.securityEvents.recordSignInError(error, { user: null, origin, method: 'passkey', reason: 'passkey_invalid' });
        throw error;
      }
      // Said once the passkey was verified: only its holder learns that the account is disabled.
      if (user.disabled_at !== null) {
        await deps.securityEvents.record({ type: 'sign_in.refused', user, origin, method: 'passkey', reason: AUTH_ERRORS.ACCOUNT_DISABLED });
        throw accountDisabled();
      }
      await deps.securityEvents.record({ type: 'sign_in.succeeded', user, origin, method: 'passkey', credential: 'session' });
      await startWebSession(deps.sessions, request, reply, user.id, { secondFactorPending: false });
      return reply.header('cache-control', 'no-store').send({ user: userToJson(user) });
    },
  );
}
