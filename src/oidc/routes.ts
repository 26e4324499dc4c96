import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AUTH_ERRORS } from '../auth/errors.js';
import { RATE_LIMIT_ERRORS } from '../rate-limit/errors.js';
import { TOKEN_SHAPE } from '../auth/magic-link.js';
import type { Guard, Principal } from '../auth/guard.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { type SessionService, sessionClient, startWebSession } from '../auth/sessions.js';
import { assertEmailVerified } from '../email-verification/service.js';
import { AppError } from '../errors.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import type { Clock } from '../lib/clock.js';
import { randomToken } from '../lib/crypto.js';
import { sendPage } from '../pages/layout.js';
import { type SingleSignOnFailure, singleSignOnFailurePage } from './single-sign-on-page.js';
import { RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { AUTHORIZATION_REQUEST_LIFETIME_MS, type AuthorizationRequests } from './authorization-requests.js';
import { OIDC_ERRORS } from './errors.js';
import type { IdentityService } from './identities.js';
import { DEFAULT_NEXT, safeNextPath } from '../lib/next-path.js';
import type { PendingIdentityLinks } from './pending-links.js';
import type { OidcProviders, ProviderSummary } from './providers.js';
import { type OidcFailure, OidcExchangeError, type VerifiedIdentity } from './contract.js';
import { IdentityList, IdentityParams } from './schema.js';
import { type SingleSignOn, type SingleSignOnOutcome } from './sign-in.js';

export interface OidcRouteDeps {
  guard: Guard;
  sessions: SessionService;
  providers: OidcProviders;
  requests: AuthorizationRequests;
  singleSignOn: SingleSignOn;
  identities: IdentityService;
  pendingLinks: PendingIdentityLinks;
  securityEvents: SecurityEvents;
  limiter: RateLimiter;
  clock: Clock;
  publicUrl: string;
  publicOrigin: string;
}

const tags = ['single sign-on'];
const ProviderPath = Type.Object({ provider: Type.String({ maxLength: 64 }) });
/** Where a link made from the dashboard returns when it names nowhere else. */
const LINK_DEFAULT_NEXT = '/settings/security';

const EXCHANGE_FAILURES: Record<OidcFailure, SingleSignOnFailure> = {
  unreachable: OIDC_ERRORS.OIDC_PROVIDER_UNREACHABLE,
  cancelled: OIDC_ERRORS.OIDC_CANCELLED,
  refused: OIDC_ERRORS.OIDC_REFUSED,
  invalid: OIDC_ERRORS.OIDC_RESPONSE_INVALID,
};

const FAILURE_STATUS: Record<SingleSignOnFailure, number> = {
  [OIDC_ERRORS.OIDC_PROVIDER_NOT_FOUND]: 404,
  [OIDC_ERRORS.OIDC_PROVIDER_UNREACHABLE]: 503,
  [OIDC_ERRORS.OIDC_STATE_INVALID]: 400,
  [OIDC_ERRORS.OIDC_CANCELLED]: 400,
  [OIDC_ERRORS.OIDC_REFUSED]: 400,
  [OIDC_ERRORS.OIDC_RESPONSE_INVALID]: 502,
  [OIDC_ERRORS.OIDC_EMAIL_NOT_VERIFIED]: 403,
  [OIDC_ERRORS.OIDC_IDENTITY_CONFLICT]: 409,
  [AUTH_ERRORS.SIGNUP_CLOSED]: 403,
  [AUTH_ERRORS.ACCOUNT_DISABLED]: 403,
  [RATE_LIMIT_ERRORS.RATE_LIMITED]: 429,
};

/** The refusals of the sign-in service that end on a page rather than as an API problem. */
const PAGE_FAILURES: readonly SingleSignOnFailure[] = [OIDC_ERRORS.OIDC_EMAIL_NOT_VERIFIED, OIDC_ERRORS.OIDC_IDENTITY_CONFLICT, AUTH_ERRORS.SIGNUP_CLOSED];

function isPageFailure(code: string): code is SingleSignOnFailure {
  return (PAGE_FAILURES as readonly string[]).includes(code);
}

/**
 * Single sign-on with OpenID Connect. GET …/start sends the browser to the provider (authorization
 * code flow with PKCE, state and nonce, bound to this browser by a short-lived cookie); GET
 * …/callback checks the answer and signs in, or links the identity for a signed-in person who
 * asked to (POST /api/v1/me/identities/{provider}/link). Failures end on a page that says what to
 * do; the provider's own words never reach it.
 */
export function registerOidcRoutes(app: App, deps: OidcRouteDeps): void {
  const { guard, sessions, providers, requests, securityEvents } = deps;
  // A random value naming this browser, not a secret on its own: the authorization requests it
  // started are bound to its hash. __Host- on https: no sibling domain can plant it.
  const secure = deps.publicUrl.startsWith('https:');
  const browserCookie = secure ? '__Host-siteward_oidc' : 'siteward_oidc';

  function browserValue(request: FastifyRequest): string | undefined {
    const value = request.cookies[browserCookie];
    return value !== undefined && TOKEN_SHAPE.test(value) ? value : undefined;
  }

  function bindBrowser(request: FastifyRequest, reply: FastifyReply): string {
    // Kept while it lives, so sign-ins started in two tabs both finish.
    const value = browserValue(request) ?? randomToken(32);
    reply.setCookie(browserCookie, value, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: AUTHORIZATION_REQUEST_LIFETIME_MS / 1000 });
    return value;
  }

  /**
   * The page for a failure. `options.retryHref` replaces the way to start again (a link starts
   * again from Settings); `options.retryAfterSeconds` comes with a rate limit.
   */
  function failurePage(
    reply: FastifyReply,
    failure: SingleSignOnFailure,
    provider: ProviderSummary | undefined,
    next: string,
    options: { retryHref?: string; retryAfterSeconds?: number } = {},
  ): FastifyReply {
    const { retryAfterSeconds } = options;
    const nextQuery = next === DEFAULT_NEXT ? '' : `?next=${encodeURIComponent(next)}`;
    const retryHref =
      provider === undefined || failure === OIDC_ERRORS.OIDC_PROVIDER_NOT_FOUND || failure === AUTH_ERRORS.SIGNUP_CLOSED || failure === RATE_LIMIT_ERRORS.RATE_LIMITED
        ? undefined
        : (options.retryHref ?? `/auth/oidc/${encodeURIComponent(provider.id)}/start${nextQuery}`);
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    return sendPage(reply, FAILURE_STATUS[failure], singleSignOnFailurePage(failure, { providerName: provider?.name, retryHref, signInHref: `/sign-in${nextQuery}`, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) }));
  }

  function redirect(reply: FastifyReply, location: string, status: 302 | 303 = 303): FastifyReply {
    return reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(location, status);
  }

  app.get(
    '/auth/oidc/:provider/start',
    {
      schema: {
        summary: 'Sign in with a single sign-on provider: 302 to the provider (authorization code flow, PKCE S256, state, nonce). next: a path of this site to return to. Failures are HTML pages',
        tags,
        params: ProviderPath,
        querystring: Type.Object({ next: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const next = safeNextPath(request.query.next, deps.publicOrigin);
      const provider = providers.find(request.params.provider);
      if (provider === undefined) return failurePage(reply, OIDC_ERRORS.OIDC_PROVIDER_NOT_FOUND, undefined, next);
      const refusal = await reserveStart(request);
      if (refusal !== undefined) return failurePage(reply, RATE_LIMIT_ERRORS.RATE_LIMITED, provider, next, { retryAfterSeconds: refusal });
      const location = await authorizationLocation(request, reply, provider, next, null);
      if (location === undefined) return failurePage(reply, OIDC_ERRORS.OIDC_PROVIDER_UNREACHABLE, provider, next);
      return redirect(reply, location, 302);
    },
  );

  /** Counts the start against the client's limit; the seconds to wait when it is over. */
  async function reserveStart(request: FastifyRequest): Promise<number | undefined> {
    try {
      await deps.limiter.reserve([[`oidc-start:ip:${request.ip}`, RATE_LIMITS.oidcStartsPerIp]]);
      return undefined;
    } catch (error) {
      if (error instanceof AppError && error.status === 429) return Number(error.options.headers?.['retry-after'] ?? 60);
      throw error;
    }
  }

  /** A new authorization request for this browser, and the provider's address for it; undefined when the provider cannot be reached. */
  async function authorizationLocation(request: FastifyRequest, reply: FastifyReply, provider: ProviderSummary, next: string, linkUserId: string | null): Promise<string | undefined> {
    let relyingParty;
    try {
      relyingParty = await providers.ready(provider.id);
    } catch (error) {
      if (error instanceof OidcExchangeError) return undefined;
      throw error;
    }
    const { checks, codeChallenge } = await relyingParty.newChecks();
    await requests.begin({ provider: provider.id, browserValue: bindBrowser(request, reply), next, linkUserId, checks });
    return relyingParty.authorizationUrl(checks, codeChallenge, deps.clock.now(), { promptLogin: linkUserId !== null }).href;
  }

  app.get(
    '/auth/oidc/:provider/callback',
    {
      schema: {
        summary:
          'Where the provider sends the browser back: checks state (bound to this browser, used once), issuer, nonce, audience, signature and expiry, then signs in (303 to next), links, or leads to the claim step. Failures are HTML pages',
        tags,
        params: ProviderPath,
        querystring: Type.Object({ state: Type.Optional(Type.String()) }, { additionalProperties: true }),
      },
    },
    async (request, reply) => {
      const provider = providers.find(request.params.provider);
      if (provider === undefined) return failurePage(reply, OIDC_ERRORS.OIDC_PROVIDER_NOT_FOUND, undefined, DEFAULT_NEXT);
      const state = request.query.state;
      const browser = browserValue(request);
      const started = state === undefined || browser === undefined ? undefined : await requests.finish({ provider: provider.id, state, browserValue: browser });
      if (started === undefined) {
        // Forged, replayed, expired, or carried to another browser (login CSRF): nothing to finish.
        request.log.info({ oidc_provider: provider.id, has_state: state !== undefined, has_browser_cookie: browser !== undefined }, 'single sign-on callback without a matching request');
        return failurePage(reply, OIDC_ERRORS.OIDC_STATE_INVALID, provider, DEFAULT_NEXT);
      }
      let identity: VerifiedIdentity;
      try {
        const relyingParty = await providers.ready(provider.id);
        // The address the provider redirected to, with the query the browser brought: openid-client
        // reads the code, state and issuer from it and sends the same redirect_uri to the token endpoint.
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        identity = await relyingParty.exchange(new URL(`${deps.publicUrl}/auth/oidc/${provider.id}/callback${query}`), started.checks, deps.clock.now());
      } catch (error) {
        if (!(error instanceof OidcExchangeError)) throw error;
        request.log.warn({ oidc_provider: provider.id, failure: error.failure, reason: error.reason }, 'single sign-on did not complete');
        if (error.failure !== 'cancelled' && error.failure !== 'unreachable') {
          await securityEvents.record({ type: 'sign_in.failed', user: null, origin: requestOrigin(request), method: 'oidc', reason: EXCHANGE_FAILURES[error.failure], details: { provider: provider.id } });
        }
        return failurePage(reply, EXCHANGE_FAILURES[error.failure], provider, started.next, started.linkUserId === null ? {} : { retryHref: LINK_DEFAULT_NEXT });
      }
      if (started.linkUserId !== null) return finishLink(request, reply, provider, identity, started.linkUserId, started.next);
      let outcome: SingleSignOnOutcome;
      try {
        outcome = await deps.singleSignOn.signIn(provider.id, identity);
      } catch (error) {
        if (!(error instanceof AppError) || !isPageFailure(error.code)) throw error;
        request.log.info({ oidc_provider: provider.id, reason: error.code }, 'single sign-on refused');
        return failurePage(reply, error.code, provider, started.next);
      }
      return finishSignIn(request, reply, provider, identity, outcome, started.next);
    },
  );

  async function finishSignIn(request: FastifyRequest, reply: FastifyReply, provider: ProviderSummary, identity: VerifiedIdentity, outcome: SingleSignOnOutcome, next: string): Promise<FastifyReply> {
    const origin = requestOrigin(request);
    const details = { provider: provider.id, name: provider.name };
    // Told only to whom the provider signed in as the account's identity or address.
    if (outcome.kind === 'account_disabled') {
      await securityEvents.record({ type: 'sign_in.refused', user: outcome.user, origin, method: 'oidc', reason: AUTH_ERRORS.ACCOUNT_DISABLED, details: { provider: provider.id } });
      return failurePage(reply, AUTH_ERRORS.ACCOUNT_DISABLED, provider, next);
    }
    if (outcome.kind === 'claim_required') {
      // The claim step comes first: the identity waits with the pending session and is linked
      // only once the mailbox holder (proved by the provider) has kept or reset the account.
      const { cookieValue, session } = await sessions.create(outcome.user.id, sessionClient(request), { claimPending: true });
      await deps.pendingLinks.remember(session.id, outcome.user.id, provider.id, identity, next);
      reply.setCookie(sessions.cookieName, cookieValue, sessions.cookieSettingsFor(session));
      return redirect(reply, '/auth/claim');
    }
    const { user } = outcome;
    if (outcome.newlyVerified) {
      guard.forgetUser(user.id);
      await securityEvents.record({ type: 'email.verified', user, origin, method: 'oidc', details });
    }
    // A new account needs no warning that its first identity was linked: the person just made it.
    if (outcome.linked) await securityEvents.record({ type: 'identity.linked', user, origin, method: 'oidc', details, notify: !outcome.created });
    // The provider owns the second factor: its sign-in is complete and recent, with no TOTP step.
    await startWebSession(sessions, request, reply, user.id, { secondFactorPending: false });
    await securityEvents.record({ type: 'sign_in.succeeded', user, origin, method: 'oidc', credential: 'session', details: outcome.created ? { ...details, account_created: true } : details });
    return redirect(reply, next);
  }

  async function finishLink(request: FastifyRequest, reply: FastifyReply, provider: ProviderSummary, identity: VerifiedIdentity, linkUserId: string, next: string): Promise<FastifyReply> {
    // The person who asked must still be the one signed in here.
    const principal = await sessionPrincipal(request);
    if (principal === undefined || principal.user.id !== linkUserId) return failurePage(reply, OIDC_ERRORS.OIDC_STATE_INVALID, provider, DEFAULT_NEXT);
    let linked;
    try {
      linked = await deps.singleSignOn.link(linkUserId, provider.id, identity);
    } catch (error) {
      if (error instanceof AppError && error.code === OIDC_ERRORS.OIDC_IDENTITY_CONFLICT) return failurePage(reply, OIDC_ERRORS.OIDC_IDENTITY_CONFLICT, provider, next, { retryHref: LINK_DEFAULT_NEXT });
      throw error;
    }
    if (!linked.alreadyLinked) {
      await securityEvents.record({ type: 'identity.linked', user: principal.user, origin: requestOrigin(request), method: 'oidc', details: { provider: provider.id, name: provider.name } });
    }
    return redirect(reply, next);
  }

  /** The web session behind the request, if it is a full one; undefined otherwise. */
  async function sessionPrincipal(request: FastifyRequest): Promise<Principal | undefined> {
    if (request.headers.authorization !== undefined) return undefined;
    try {
      const principal = await guard.authenticate(request);
      return principal.method === 'session' ? principal : undefined;
    } catch (error) {
      if (error instanceof AppError && error.status === 401) return undefined;
      throw error;
    }
  }

  app.get(
    '/api/v1/me/identities',
    {
      onRequest: guard.require('account'),
      schema: {
        summary: 'The single sign-on identities linked to your account',
        tags,
        security: [{ BearerAuth: [] }],
        response: { 200: IdentityList, 401: ProblemSchema, 403: ProblemSchema },
      },
    },
    async (request) => ({ identities: await deps.identities.list(currentUser(request).id) }),
  );

  app.post(
    '/api/v1/me/identities/:provider/link',
    {
      onRequest: guard.require('recent'),
      schema: {
        summary:
          "Start linking a provider to your account from the dashboard's web session (recent authentication, a confirmed address): sets this browser's sign-in cookie and answers the provider's address to open; the callback links the identity and returns to Settings > Security",
        tags,
        security: [{ BearerAuth: [] }],
        params: IdentityParams,
        response: {
          200: Type.Object({ authorization_url: Type.String({ description: 'Open it in this browser (a full page load)' }) }),
          401: ProblemSchema,
          403: ProblemSchema,
          404: ProblemSchema,
          409: ProblemSchema,
          429: ProblemSchema,
          503: ProblemSchema,
        },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const provider = providers.find(request.params.provider);
      if (provider === undefined) throw new AppError(404, OIDC_ERRORS.OIDC_PROVIDER_NOT_FOUND, 'No sign-in provider with this id is configured.');
      // An address nobody proved to hold may be a squatter's account: it gains no way in.
      assertEmailVerified(principal.user);
      if ((await deps.identities.list(principal.user.id)).some((identity) => identity.provider === provider.id)) {
        throw new AppError(409, OIDC_ERRORS.OIDC_IDENTITY_CONFLICT, 'An account at this provider is linked already; unlink it first to link another.');
      }
      await deps.limiter.reserve([[`oidc-start:ip:${request.ip}`, RATE_LIMITS.oidcStartsPerIp]]);
      const location = await authorizationLocation(request, reply, provider, LINK_DEFAULT_NEXT, principal.user.id);
      if (location === undefined) throw new AppError(503, OIDC_ERRORS.OIDC_PROVIDER_UNREACHABLE, `${provider.name} does not answer right now; try again in a few minutes.`);
      return reply.header('cache-control', 'no-store').send({ authorization_url: location });
    },
  );

  app.delete(
    '/api/v1/me/identities/:provider',
    {
      onRequest: guard.require('recent'),
      schema: {
        summary: 'Unlink the identity at a provider (recent authentication). 409 last_sign_in_method when it is the last way in: no password, passkey or other identity',
        tags,
        security: [{ BearerAuth: [] }],
        params: IdentityParams,
        response: { 204: Type.Null(), 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const removed = await deps.identities.unlink(user.id, request.params.provider);
      const name = providers.find(removed.provider)?.name ?? removed.provider;
      await securityEvents.record({ type: 'identity.unlinked', user, origin: requestOrigin(request), details: { provider: removed.provider, name } });
      return reply.code(204).send(null);
    },
  );
}
