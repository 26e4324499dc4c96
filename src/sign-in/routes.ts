import type { EmailVerificationService } from '../email-verification/service.js';
import type { App } from '../http/types.js';
import { requestOrigin } from '../security/events.js';
import { userToJson } from '../users/presenter.js';
import { authErrorResponses, LoginBody, SignupBody, TokenResponse } from './schema.js';
import type { AuthService, SignedIn } from './service.js';
import { AppError } from '../errors.js';
import { ProblemSchema } from '../http/schema.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { OidcProviders } from '../oidc/providers.js';
import { AuthConfigSchema } from '../oidc/schema.js';

function tokenResponse({ user, jwt }: SignedIn) {
  return { token: jwt.token, token_type: 'Bearer' as const, expires_at: jwt.expiresAt.toISOString(), user: userToJson(user) };
}

export function registerAuthRoutes(
  app: App,
  deps: { auth: AuthService; emailVerification: EmailVerificationService; signup: 'open' | 'closed'; oidcProviders: OidcProviders },
): void {
  app.post(
    '/auth/login',
    {
      schema: {
        summary: 'Log in with e-mail and password (and, with 2FA on, a TOTP or recovery code in otp) and obtain a JWT (valid 7 days)',
        tags: ['auth'],
        body: LoginBody,
        response: { 200: TokenResponse, ...authErrorResponses },
      },
    },
    async (request) => tokenResponse(await deps.auth.login(request.body.email, request.body.password, request.body.otp, requestOrigin(request))),
  );

  // What the sign-in screen may offer; public, and it names no account.
  app.get(
    '/auth/config',
    {
      schema: {
        summary: 'Which sign-in features this server offers (no authentication needed)',
        tags: ['auth'],
        response: { 200: AuthConfigSchema },
      },
    },
    async () => ({ signup: deps.signup, oidc: deps.oidcProviders.list() }),
  );

  app.post(
    '/auth/signup',
    {
      schema: {
        summary: 'Create an account and obtain a JWT; a link that confirms the address is mailed to it',
        tags: ['auth'],
        body: SignupBody,
        response: { 201: TokenResponse, ...authErrorResponses, 403: ProblemSchema, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      if (deps.signup === 'closed') {
        throw new AppError(403, AUTH_ERRORS.SIGNUP_CLOSED, 'Sign-up is closed on this server; ask an administrator for an account.');
      }
      const signedIn = await deps.auth.signup(request.body, request.ip);
      // Typing an address proves nothing about it: the account is unverified until its link is used.
      await deps.emailVerification.send(signedIn.user);
      return reply.code(201).send(tokenResponse(signedIn));
    },
  );
}
