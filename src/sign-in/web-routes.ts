import formBody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, unauthorized } from '../errors.js';
import { CHECKED_BY_ROUTE } from '../http/params.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { magicConfirmPage, magicDisabledPage, magicInvalidPage, magicRateLimitedPage, magicSentPage } from '../pages/magic.js';
import { sendPage } from '../pages/layout.js';
import { twoFactorLockedPage, twoFactorPage } from '../pages/two-factor.js';
import type { TotpService } from '../totp/service.js';
import { UserSchema } from '../users/schema.js';
import { userToJson } from '../users/presenter.js';
import { assertSameOrigin } from '../auth/csrf.js';
import type { Guard } from '../auth/guard.js';
import type { EmailVerificationService } from '../email-verification/service.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import type { MagicLinkService } from '../auth/magic-link.js';
import type { AuthService } from './service.js';
import { type SessionService, sessionClient, startWebSession } from '../auth/sessions.js';
import { EMAIL_MAX_LENGTH } from '../users/schema.js';
import { LoginBody } from './schema.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { TOTP_ERRORS } from '../totp/errors.js';

export interface WebSignInDeps {
  auth: AuthService;
  guard: Guard;
  sessions: SessionService;
  magicLinks: MagicLinkService;
  emailVerification: EmailVerificationService;
  totp: TotpService;
  securityEvents: SecurityEvents;
  publicOrigin: string;
}

const MAGIC_LINK_ACCEPTED = 'If an account exists for this address, we have sent it a sign-in link. It expires in 15 minutes.';

/**
 * The web interface's sign-in: endpoints that set the session cookie. The API's own JWT login
 * (POST /auth/login) is separate and sets no cookie. Passkey sign-in is in src/passkeys/routes.ts.
 */
export function registerWebSignInRoutes(app: App, deps: WebSignInDeps): void {
  const { sessions } = deps;

  function startSession(request: FastifyRequest, reply: FastifyReply, userId: string, secondFactorPending: boolean): Promise<void> {
    return startWebSession(sessions, request, reply, userId, { secondFactorPending });
  }

  app.post(
    '/auth/session',
    {
      schema: {
        summary:
          'Web sign-in with e-mail and password: sets the session cookie. With 2FA on and no otp sent, the session waits for the second step (second_factor_required: true, then POST /auth/2fa)',
        tags: ['web sign-in'],
        body: LoginBody,
        response: {
          200: Type.Object({ user: UserSchema, second_factor_required: Type.Boolean() }),
          400: ProblemSchema,
          401: ProblemSchema,
          403: ProblemSchema,
          429: ProblemSchema,
        },
      },
    },
    async (request, reply) => {
      // A forged cross-site sign-in would put the victim in the attacker's account (login CSRF).
      assertSameOrigin(request.headers, deps.publicOrigin);
      const { body } = request;
      const signIn = await deps.auth.passwordSignIn(body.email, body.password, body.otp, requestOrigin(request));
      await startSession(request, reply, signIn.user.id, signIn.secondFactorPending);
      return { user: userToJson(signIn.user), second_factor_required: signIn.secondFactorPending };
    },
  );

  app.post(
    '/auth/logout',
    { schema: { summary: 'End the current web session', tags: ['web sign-in'], response: { 204: Type.Null(), 403: ProblemSchema } } },
    async (request, reply) => {
      const cookie = request.cookies[sessions.cookieName];
      if (cookie !== undefined && cookie !== '') {
        assertSameOrigin(request.headers, deps.publicOrigin);
        await sessions.destroy(cookie);
      }
      reply.clearCookie(sessions.cookieName, { path: '/', secure: sessions.cookieSettings.secure, httpOnly: true, sameSite: 'lax' });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/magic-link',
    {
      schema: {
        summary: 'E-mail a one-time sign-in link (answers the same whether or not the address has an account)',
        tags: ['web sign-in'],
        body: Type.Object({ email: Type.String({ maxLength: EMAIL_MAX_LENGTH }) }, { additionalProperties: false }),
        response: { 202: Type.Object({ detail: Type.String() }), 400: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      await deps.magicLinks.request(request.body.email, request.ip);
      return reply.code(202).send({ detail: MAGIC_LINK_ACCEPTED });
    },
  );

  // The /magic pages take HTML forms; only they accept form bodies.
  void app.register(async (pages) => {
    await pages.register(formBody, { bodyLimit: 4096 });

    pages.get(
      '/magic',
      {
        schema: {
          summary: 'Confirmation page for a sign-in link. Never redeems the token (HEAD neither)',
          tags: ['web sign-in'],
          querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200, [CHECKED_BY_ROUTE]: true })) }),
        },
      },
      async (request, reply) => {
        const token = (request.query as { token?: string }).token ?? '';
        const link = await deps.magicLinks.inspect(token);
        if (link === undefined) {
          deps.securityEvents.linkRefused(request, await deps.magicLinks.whyRefused(token));
          return sendPage(reply, 410, magicInvalidPage());
        }
        return sendPage(reply, 200, magicConfirmPage(token, link.email));
      },
    );

    pages.post(
      '/magic',
      {
        schema: {
          summary: 'Redeem a sign-in link: the only step that uses the token. 303 to the app, to /auth/claim when the address was unverified and the account already has credentials, or to /auth/2fa when 2FA is on; a page, 403, when the account is disabled (the link is used up)',
          tags: ['web sign-in'],
          body: Type.Object({ token: Type.String({ maxLength: 200 }) }),
        },
      },
      async (request, reply) => {
        assertSameOrigin(request.headers, deps.publicOrigin);
        const token = (request.body as { token: string }).token;
        const userId = await deps.magicLinks.redeem(token);
        if (userId === undefined) {
          deps.securityEvents.linkRefused(request, await deps.magicLinks.whyRefused(token));
          return sendPage(reply, 410, magicInvalidPage());
        }
        const signIn = await deps.emailVerification.afterMagicLink(userId);
        if (signIn === undefined) return sendPage(reply, 410, magicInvalidPage());
        const origin = requestOrigin(request);
        // Said only to whoever redeemed a valid link, so it holds the mailbox: nobody learns from
        // it whether an address has an account.
        if (signIn.disabled) {
          await deps.securityEvents.record({ type: 'sign_in.refused', user: signIn.user, origin, method: 'magic_link', reason: 'account_disabled' });
          return sendPage(reply, 403, magicDisabledPage());
        }
        if (signIn.newlyVerified) {
          deps.guard.forgetUser(userId);
          await deps.securityEvents.record({ type: 'email.verified', user: signIn.user, origin, method: 'magic_link' });
        }
        // Credentials made before anyone proved the address may be a squatter's: the mailbox
        // holder chooses to keep or reset them before the session opens anything (POST /auth/claim).
        if (signIn.claimRequired) {
          await startWebSession(sessions, request, reply, userId, { secondFactorPending: false, claimPending: true });
          return reply.header('cache-control', 'no-store').redirect('/auth/claim', 303);
        }
        // A magic link proves the mailbox, one factor: with TOTP on, the second step still follows.
        const secondFactorPending = await deps.totp.isEnabled(userId);
        await startSession(request, reply, userId, secondFactorPending);
        if (!secondFactorPending) await deps.securityEvents.record({ type: 'sign_in.succeeded', user: signIn.user, origin, method: 'magic_link', credential: 'session' });
        return reply.header('cache-control', 'no-store').redirect(secondFactorPending ? '/auth/2fa' : '/', 303);
      },
    );

    pages.post(
      '/magic/resend',
      { schema: { summary: 'Ask for a new sign-in link from the expired-link page', tags: ['web sign-in'], body: Type.Object({ email: Type.String({ maxLength: EMAIL_MAX_LENGTH }) }) } },
      async (request, reply) => {
        assertSameOrigin(request.headers, deps.publicOrigin);
        try {
          await deps.magicLinks.request((request.body as { email: string }).email, request.ip);
        } catch (error) {
          if (error instanceof AppError && error.status === 429) {
            const retryAfter = Number(error.options.headers?.['retry-after'] ?? 60);
            return sendPage(reply.header('retry-after', String(retryAfter)), 429, magicRateLimitedPage(retryAfter));
          }
          throw error;
        }
        return sendPage(reply, 200, magicSentPage());
      },
    );

    pages.get(
      '/auth/2fa',
      { schema: { summary: 'The second sign-in step: a form for the TOTP or recovery code. 303 to the app when no sign-in waits', tags: ['web sign-in'] } },
      async (request, reply) => {
        const pending = await findPending(request);
        if (pending === undefined) return reply.header('cache-control', 'no-store').redirect('/', 303);
        return sendPage(reply, 200, twoFactorPage({ email: pending.user.email }));
      },
    );

    pages.post(
      '/auth/2fa',
      {
        schema: {
          summary:
            'Finish a sign-in waiting for its second factor: form field or JSON code. Replaces the pending session with a full one (new cookie); 303 to the app (form) or 200 {user} (JSON)',
          tags: ['web sign-in'],
          body: Type.Object({ code: Type.String({ maxLength: 64 }) }),
          // The JSON answer only: a form is redirected, and a form's refusals are HTML pages.
          response: { 200: Type.Object({ user: UserSchema }) },
        },
      },
      async (request, reply) => {
        assertSameOrigin(request.headers, deps.publicOrigin);
        const isForm = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
        const pending = await findPending(request);
        if (pending === undefined) {
          if (isForm) return reply.header('cache-control', 'no-store').redirect('/', 303);
          throw notPending();
        }
        try {
          await deps.auth.completeSecondFactor(pending.user, (request.body as { code: string }).code, requestOrigin(request));
        } catch (error) {
          if (!isForm || !(error instanceof AppError)) throw error;
          if (error.status === 429) {
            const retryAfter = Number(error.options.headers?.['retry-after'] ?? 60);
            return sendPage(reply.header('retry-after', String(retryAfter)), 429, twoFactorLockedPage(retryAfter));
          }
          if (error.code !== TOTP_ERRORS.OTP_INVALID && error.code !== TOTP_ERRORS.OTP_REQUIRED) throw error;
          const message = error.code === TOTP_ERRORS.OTP_REQUIRED ? 'Enter the code from your app.' : 'That code is wrong or has already been used. Wait for the next one and try again.';
          return sendPage(reply, 401, twoFactorPage({ email: pending.user.email, error: message }));
        }
        const cookie = request.cookies[sessions.cookieName] ?? '';
        const finished = await sessions.completeSecondFactor(cookie, sessionClient(request));
        // Another request finished (or cancelled) this sign-in in the meantime: it gives nothing twice.
        if (finished === undefined) {
          if (isForm) return reply.header('cache-control', 'no-store').redirect('/', 303);
          throw notPending();
        }
        reply.setCookie(sessions.cookieName, finished.cookieValue, sessions.cookieSettingsFor(finished.session));
        if (isForm) return reply.header('cache-control', 'no-store').redirect('/', 303);
        return reply.header('cache-control', 'no-store').send({ user: userToJson(pending.user) });
      },
    );

    pages.post(
      '/auth/2fa/cancel',
      { schema: { summary: 'Give up a sign-in that waits for its second factor: the pending session ends; 303 to the sign-in screen', tags: ['web sign-in'] } },
      async (request, reply) => {
        assertSameOrigin(request.headers, deps.publicOrigin);
        // Only a pending session is ended here; a full session is signed out by POST /auth/logout.
        const pending = await findPending(request);
        if (pending !== undefined) {
          await sessions.destroy(request.cookies[sessions.cookieName] ?? '');
          reply.clearCookie(sessions.cookieName, { path: '/', secure: sessions.cookieSettings.secure, httpOnly: true, sameSite: 'lax' });
        }
        return reply.header('cache-control', 'no-store').redirect('/sign-in', 303);
      },
    );
  });

  function findPending(request: FastifyRequest) {
    const cookie = request.cookies[sessions.cookieName];
    return cookie === undefined || cookie === '' ? Promise.resolve(undefined) : sessions.findPendingSecondFactor(cookie);
  }
}

const notPending = () => unauthorized(AUTH_ERRORS.SECOND_FACTOR_NOT_PENDING, 'No sign-in is waiting for a second factor (it may have expired after 10 minutes); sign in again.');
