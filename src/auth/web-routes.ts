import formBody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { magicConfirmPage, magicInvalidPage, magicRateLimitedPage, magicSentPage } from '../pages/magic.js';
import { PAGE_CSP } from '../pages/layout.js';
import { UserSchema } from '../users/schema.js';
import { userToJson } from '../users/service.js';
import { assertSameOrigin } from './csrf.js';
import type { MagicLinkService } from './magic-link.js';
import type { AuthService } from './service.js';
import type { SessionService } from './sessions.js';
import { EMAIL_MAX_LENGTH } from '../users/schema.js';
import { LoginBody } from './schema.js';

export interface WebSignInDeps {
  auth: AuthService;
  sessions: SessionService;
  magicLinks: MagicLinkService;
  publicOrigin: string;
}

const MAGIC_LINK_ACCEPTED = 'If an account exists for this address, we have sent it a sign-in link. It expires in 15 minutes.';

/** Headers for the server-rendered sign-in pages: never cached, never framed, no referrer. */
function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': PAGE_CSP,
      'x-frame-options': 'DENY',
    })
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * The web interface's sign-in: endpoints that set the session cookie. The API's own JWT login
 * (POST /auth/login) is separate and sets no cookie.
 */
export function registerWebSignInRoutes(app: App, deps: WebSignInDeps): void {
  const { sessions } = deps;

  async function startSession(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
    const { cookieValue } = await sessions.create(userId, { userAgent: request.headers['user-agent'], ip: request.ip });
    reply.setCookie(sessions.cookieName, cookieValue, sessions.cookieSettings);
  }

  app.post(
    '/auth/session',
    {
      schema: {
        summary: 'Web sign-in with e-mail and password: sets the session cookie',
        tags: ['web sign-in'],
        body: LoginBody,
        response: { 200: Type.Object({ user: UserSchema }), 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      // A forged cross-site sign-in would put the victim in the attacker's account (login CSRF).
      assertSameOrigin(request.headers, deps.publicOrigin);
      const user = await deps.auth.verifyPassword(request.body.email, request.body.password, request.ip);
      await startSession(request, reply, user.id);
      return { user: userToJson(user) };
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
          querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) }),
        },
      },
      async (request, reply) => {
        const token = (request.query as { token?: string }).token ?? '';
        const link = await deps.magicLinks.inspect(token);
        if (link === undefined) return sendPage(reply, 410, magicInvalidPage());
        return sendPage(reply, 200, magicConfirmPage(token, link.email));
      },
    );

    pages.post(
      '/magic',
      {
        schema: {
          summary: 'Redeem a sign-in link: the only step that uses the token. 303 to the app',
          tags: ['web sign-in'],
          body: Type.Object({ token: Type.String({ maxLength: 200 }) }),
        },
      },
      async (request, reply) => {
        assertSameOrigin(request.headers, deps.publicOrigin);
        const userId = await deps.magicLinks.redeem((request.body as { token: string }).token);
        if (userId === undefined) return sendPage(reply, 410, magicInvalidPage());
        await startSession(request, reply, userId);
        return reply.code(303).header('cache-control', 'no-store').redirect('/', 303);
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
  });
}
