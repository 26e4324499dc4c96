import type {} from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { findUserById, type UserRow } from '../users/queries.js';
import { findAccessTokenWithUser, touchAccessToken } from '../access-tokens/queries.js';
import { InvalidJwtError, type JwtService, looksLikeJwt } from './jwt.js';
import { assertSameOrigin, isSafeMethod } from './csrf.js';
import type { SessionService } from './sessions.js';
import { ACCESS_TOKEN_SCOPES, type AccessTokenScope, hashAccessToken, isWellFormedAccessToken, looksLikeAccessToken } from './tokens.js';

export type AuthMethod = 'jwt' | 'access_token' | 'session';

/** Who is calling, and with which credential. */
export interface Principal {
  user: UserRow;
  method: AuthMethod;
  scopes: readonly AccessTokenScope[];
  accessTokenId: string | null;
  sessionId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * What a route needs: any valid credential, a scope on sites, or "account", which only the owner's
 * own sign-in grants.
 * A personal access token is made for integrations; it cannot mint or list other tokens, so a
 * leaked token cannot be turned into a persistent foothold.
 */
export type Requirement = AccessTokenScope | 'account' | 'authenticated';

const LAST_USED_RESOLUTION_MS = 60_000;

export const WWW_AUTHENTICATE = 'Bearer realm="siteward", Token realm="siteward"';

export function unauthorized(code: string, detail: string): AppError {
  return new AppError(401, code, detail, { headers: { 'www-authenticate': WWW_AUTHENTICATE } });
}

const INVALID_CREDENTIALS_DETAIL = 'The credential is invalid, expired or revoked.';

export class Guard {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly jwt: JwtService,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
    private readonly publicOrigin: string,
  ) {}

  /** An onRequest hook that authenticates the caller and checks the requirement. */
  require(requirement: Requirement): (request: FastifyRequest) => Promise<void> {
    return async (request) => {
      const principal = await this.authenticate(request);
      if (requirement === 'account' && principal.method === 'access_token') {
        throw new AppError(403, 'access_token_not_allowed', 'Personal access tokens cannot manage account settings or other tokens; sign in instead.');
      }
      if (requirement !== 'account' && requirement !== 'authenticated' && !principal.scopes.includes(requirement)) {
        throw new AppError(403, 'insufficient_scope', `This access token lacks the "${requirement}" scope.`);
      }
      request.principal = principal;
    };
  }

  /**
   * The Authorization header, when present, decides; otherwise the web session cookie. Tokens are
   * never read from cookies, and a cookie-authenticated write must pass the same-origin check.
   */
  async authenticate(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    const cookie = request.cookies[this.sessions.cookieName];
    if (header === undefined && cookie !== undefined && cookie !== '') {
      const found = await this.sessions.authenticate(cookie);
      if (found === undefined) throw unauthorized('session_expired', 'Your session has ended; sign in again.');
      // A session of the first factor alone (password or magic link, TOTP on) opens nothing: the
      // second step (POST /auth/2fa) replaces it with a real session, or logout ends it.
      if (found.session.second_factor_pending === 1) {
        throw unauthorized('second_factor_required', 'Finish signing in: enter the code from your authenticator app (or a recovery code) at /auth/2fa.');
      }
      if (!isSafeMethod(request.method)) assertSameOrigin(request.headers, this.publicOrigin);
      return { user: found.user, method: 'session', scopes: ACCESS_TOKEN_SCOPES, accessTokenId: null, sessionId: found.session.id };
    }
    if (header === undefined || header.trim() === '') {
      throw unauthorized('unauthenticated', 'Sign in, or send Authorization: Bearer <JWT> or Authorization: Token <personal access token>.');
    }
    const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
    const scheme = match?.[1]?.toLowerCase();
    const credential = match?.[2] ?? '';
    if (scheme === 'bearer') {
      if (looksLikeAccessToken(credential)) {
        throw unauthorized('wrong_scheme', 'This is a personal access token: send it as Authorization: Token <token>.');
      }
      return this.#authenticateJwt(credential);
    }
    if (scheme === 'token') {
      if (looksLikeJwt(credential)) {
        throw unauthorized('wrong_scheme', 'This is a JWT: send it as Authorization: Bearer <JWT>.');
      }
      return this.#authenticateAccessToken(credential);
    }
    throw unauthorized('unsupported_scheme', 'Use the Bearer scheme with a JWT or the Token scheme with a personal access token.');
  }

  async #authenticateJwt(token: string): Promise<Principal> {
    let claims;
    try {
      claims = this.jwt.verify(token);
    } catch (error) {
      if (error instanceof InvalidJwtError) throw unauthorized('invalid_token', INVALID_CREDENTIALS_DETAIL);
      throw error;
    }
    const user = await findUserById(this.db, claims.sub);
    // A deleted user, or a token issued before "sign out everywhere", is no longer honoured.
    if (user === undefined || claims.gen !== user.jwt_generation) {
      throw unauthorized('invalid_token', INVALID_CREDENTIALS_DETAIL);
    }
    return { user, method: 'jwt', scopes: ACCESS_TOKEN_SCOPES, accessTokenId: null, sessionId: null };
  }

  async #authenticateAccessToken(token: string): Promise<Principal> {
    // The checksum turns away typos and guesses without touching the database.
    if (!isWellFormedAccessToken(token)) throw unauthorized('invalid_token', INVALID_CREDENTIALS_DETAIL);
    const found = await findAccessTokenWithUser(this.db, hashAccessToken(token));
    if (found === undefined) throw unauthorized('invalid_token', INVALID_CREDENTIALS_DETAIL);

    const now = this.clock.now();
    const lastUsed = found.token.last_used_at === null ? 0 : Date.parse(found.token.last_used_at);
    if (now.getTime() - lastUsed >= LAST_USED_RESOLUTION_MS) {
      await touchAccessToken(this.db, found.token.id, now.toISOString());
    }
    const scopes = found.token.scopes.split(' ').filter((scope): scope is AccessTokenScope =>
      (ACCESS_TOKEN_SCOPES as readonly string[]).includes(scope),
    );
    return { user: found.user, method: 'access_token', scopes, accessTokenId: found.token.id, sessionId: null };
  }
}
