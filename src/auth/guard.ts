import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Cache, CacheNamespace } from '../cache/cache.js';
import { accessTokenTag, membershipsTag, secondFactorTags, userTag, workspaceTag } from '../cache/change-feed.js';
import type { Database } from '../db/schema.js';
import { AppError, unauthorized } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { findUserById, type UserRow } from '../users/queries.js';
import { hasPassword } from '../users/service.js';
import type { WorkspaceRole } from '../memberships/contract.js';
import { assertTwoFactorMet } from '../memberships/permissions.js';
import { findWorkspaceAccess, findWorkspaceIdOfSite } from '../memberships/queries.js';
import { ID_PATTERN } from '../lib/id-shape.js';
import { InvalidJwtError, type JwtService, looksLikeJwt, type VerifiedJwt } from './jwt.js';
import { assertSameOrigin, isSafeMethod } from './csrf.js';
import type { RecentAuthentication } from './recent-authentication.js';
import type { LastUseRecorder } from './access-token-last-use.js';
import { currentPrincipal, type Principal } from './principal.js';
import { compactMemberships, OneMembership } from './one-membership.js';
import { findAccessTokenWithUser, hasSecondFactor } from './queries.js';
import type { SessionService } from './sessions.js';
import { ACCESS_TOKEN_SCOPES, type AccessTokenScope } from './scopes.js';
import { hashAccessToken, isWellFormedAccessToken, looksLikeAccessToken } from './tokens.js';
import { AUTH_ERRORS } from './errors.js';
import { assertEnabled } from './disabled.js';

// Defined apart from the guard, so what only needs a principal's shape does not import the guard.
export type { AuthMethod, Principal } from './principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * What a route needs: any valid credential, a scope on sites, "account", which only the owner's
 * own sign-in grants, "signed_in", any credential but an access token (workspaces and their
 * members), or "recent": "account" with a proof of the person within the re-authentication
 * window (recent-authentication.ts), for changes that could lock the owner out.
 * A personal access token is made for integrations; it cannot mint or list other tokens, nor
 * manage workspaces, so a leaked token cannot be turned into a persistent foothold.
 */
export type Requirement = AccessTokenScope | 'account' | 'recent' | 'signed_in' | 'authenticated';

/**
 * How a route of one workspace finds it: a path parameter that names the workspace, one that names
 * a site of it (live or in the trash; a change request's route names its site too), or a query
 * parameter that names the workspace (a list filtered to one). Every workspace-scoped route
 * declares one, and the guard then checks the workspace's requirement of two-factor
 * authentication with the credential (403 two_factor_required), before the body is read or
 * validated: a route cannot forget it, and the test that walks the OpenAPI document
 * (src/memberships/workspace-gate.test.ts) fails for a route that does not declare one.
 * Membership and role are checked where the route reads the workspace's rows (404 for a
 * non-member, 403 insufficient_role), in the same query or under the same lock.
 */
export type WorkspaceRouteOptions = { workspaceParam: string } | { siteParam: string } | { workspaceQuery: string };

/** An id the app could have made (the route schemas check the same shape, after this hook). */
const ID = new RegExp(ID_PATTERN);

const LAST_USED_RESOLUTION_MS = 60_000;

/** A personal access token's principal, with when its use was last recorded (last_used_at). */
interface CachedAccessToken {
  id: string;
  principal: Principal;
  /** Epoch milliseconds by the app's clock; use is recorded at most once a minute. */
  lastUsedMs: number;
}

/** What a remembered principal holds besides its memberships: a user row, its strings and objects (bench/cache-memory.ts). */
const PRINCIPAL_BYTES = 460;

/** Stands in a kept user row for a password's hash: there is one (hasPassword), held only by the database. */
const PASSWORD_NOT_KEPT = '(not kept)';

/**
 * The user row as a principal keeps it: without the password's hash, which nothing reads from a
 * principal (sign-in, the password change and re-authentication read the row afresh). The hash is
 * the row's longest string, and a process's memory then holds none.
 */
export function keptUser(user: UserRow): UserRow {
  return hasPassword(user) ? { ...user, password_hash: PASSWORD_NOT_KEPT } : user;
}

/** A membership's 36-character id and its role; a Map of several costs about two of them more. */
function membershipBytes(memberships: ReadonlyMap<string, WorkspaceRole>): number {
  return 100 * memberships.size + (memberships instanceof OneMembership ? 0 : 200);
}

/** What a kept principal costs the cache (StoreOptions.size). */
export function principalBytes(memberships: ReadonlyMap<string, WorkspaceRole>): number {
  return PRINCIPAL_BYTES + membershipBytes(memberships);
}

/** What an access token's kept principal holds besides a JWT's: the token's id and name, and the record around them. */
const ACCESS_TOKEN_BYTES = 250;

/** What a kept access token costs the cache (StoreOptions.size). */
export function accessTokenBytes(memberships: ReadonlyMap<string, WorkspaceRole>): number {
  return principalBytes(memberships) + ACCESS_TOKEN_BYTES;
}

/** What a user reaches of workspaces, as a principal carries it. */
interface WorkspaceReach {
  memberships: ReadonlyMap<string, WorkspaceRole>;
  twoFactorMissingIn: ReadonlySet<string>;
  /**
   * The rows it was read from: the user's memberships, each workspace's own row (its requirement
   * of two-factor authentication) and the user's TOTP and passkeys.
   */
  tags: string[];
}

const NONE: ReadonlySet<string> = new Set();

/** What a token limited to one workspace reaches of its user's: that one, if still theirs. */
function tokenReach(reach: WorkspaceReach, workspaceId: string | null): WorkspaceReach {
  if (workspaceId === null) return reach;
  const role = reach.memberships.get(workspaceId);
  return {
    memberships: role === undefined ? new Map() : new OneMembership(workspaceId, role),
    twoFactorMissingIn: reach.twoFactorMissingIn.has(workspaceId) ? new Set([workspaceId]) : NONE,
    tags: reach.tags,
  };
}

/**
 * The rows a user's reach is read from: their memberships and each workspace's row, and their TOTP
 * and passkeys only when a workspace of theirs requires a second factor, since only then does the
 * reach depend on them (a workspace that starts to require one changes its row). Every tag adds to
 * what the entry holds (bench/cache-memory.ts), and nearly every user has no such workspace.
 */
export function reachTags(userId: string, workspaceIds: Iterable<string>, requiresSecondFactor: boolean): string[] {
  const tags = [membershipsTag(userId), ...[...workspaceIds].map(workspaceTag)];
  return requiresSecondFactor ? [...tags, ...secondFactorTags(userId)] : tags;
}

/** The rows a JWT's kept principal depends on: the user's row, and what their reach depends on. */
export function jwtPrincipalTags(userId: string, reachTags: readonly string[]): string[] {
  return [userTag(userId), ...reachTags];
}

const INVALID_CREDENTIALS_DETAIL = 'The credential is invalid, expired or revoked.';

/**
 * Authenticates requests. What a JWT's user or a personal access token resolved to (the user row,
 * and for a token its id and scopes) is kept in the cache (src/cache/cache.ts), so that an
 * authenticated request does not read the users table every time. Each entry depends on the user's
 * row, and a token's on its own row too: a revocation drops them on this process as soon as it has
 * committed (`forgetUser`, `forgetAccessToken`), and on every other process when the change feed
 * announces it. Access tokens are kept under their SHA-256, as the database keys them: a dump of
 * the process's memory yields no more usable tokens than a dump of the database.
 *
 * Web sessions are not cached: a session cookie is checked against the database on every request,
 * so signing out ends a session everywhere at once.
 */
export class Guard {
  readonly #jwtUsers: CacheNamespace<Principal>;
  readonly #accessTokens: CacheNamespace<CachedAccessToken>;
  /** A web session's user's reach of workspaces (a JWT's and a token's are kept in their principal). */
  readonly #reaches: CacheNamespace<WorkspaceReach>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly jwt: JwtService,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
    private readonly publicOrigin: string,
    private readonly cache: Cache,
    /** Writes access tokens' last-use times. */
    private readonly lastUses: LastUseRecorder,
    private readonly recentAuthentication: RecentAuthentication,
  ) {
    this.#jwtUsers = cache.namespace('jwt-user');
    this.#accessTokens = cache.namespace('access-token');
    this.#reaches = cache.namespace('workspace-reach');
    // Sign out everywhere and a password change refuse the user's JWTs from now on: this process
    // must not answer the next request from what it read before.
    sessions.onCredentialsRevoked((userId) => this.forgetUser(userId));
  }

  /**
   * The user's row or sign-in methods changed (revoked credentials, a verified address, TOTP or a
   * passkey added or removed): read afresh next time.
   */
  forgetUser(userId: string): void {
    this.cache.invalidate([userTag(userId), ...secondFactorTags(userId)]);
  }

  /** A revoked access token is refused by this process's next request. */
  forgetAccessToken(accessTokenId: string): void {
    this.cache.invalidate([accessTokenTag(accessTokenId)]);
  }

  /**
   * An onRequest hook that authenticates the caller and checks the requirement, and for a route of
   * one workspace (`options`) that workspace's requirement of two-factor authentication. The
   * principal is set on the request before the rules are checked: a request they refuse is still
   * known by its credential, in its log line and its `request.refused` security event.
   */
  require(requirement: Requirement, options?: WorkspaceRouteOptions): (request: FastifyRequest) => Promise<void> {
    return async (request) => {
      const principal = await this.authenticate(request);
      request.principal = principal;
      // A cookie rides along with any request a browser makes, also one another site starts: a write must come from our pages.
      if (principal.method === 'session' && !isSafeMethod(request.method)) assertSameOrigin(request.headers, this.publicOrigin);
      const forAccount = requirement === 'account' || requirement === 'recent';
      if (forAccount && principal.method === 'access_token') {
        throw new AppError(403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED, 'Personal access tokens cannot manage account settings or other tokens; sign in instead.');
      }
      if (requirement === 'signed_in' && principal.method === 'access_token') {
        throw new AppError(403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED, 'Personal access tokens reach sites only; managing workspaces and their members needs a signed-in user.');
      }
      if (requirement === 'recent') this.recentAuthentication.assert(principal);
      if (!forAccount && requirement !== 'authenticated' && requirement !== 'signed_in' && !principal.scopes.includes(requirement)) {
        throw new AppError(403, AUTH_ERRORS.INSUFFICIENT_SCOPE, `This access token lacks the "${requirement}" scope.`);
      }
      if (options !== undefined) await this.#assertTwoFactorMetIn(request, principal, options);
    };
  }

  /**
   * The workspace's requirement of two-factor authentication, for the workspace the route names.
   * Only a member of such a workspace who lacks a second factor can be refused, so everyone else
   * costs nothing here; a site's workspace is read for them alone. A workspace the caller is not in
   * is never in their list: they are refused later, as a non-member, learning nothing here.
   */
  async #assertTwoFactorMetIn(request: FastifyRequest, principal: Principal, options: WorkspaceRouteOptions): Promise<void> {
    if (principal.twoFactorMissingIn.size === 0) return;
    let workspaceId: string | undefined;
    if ('workspaceParam' in options) workspaceId = stringIn(request.params, options.workspaceParam);
    else if ('workspaceQuery' in options) workspaceId = stringIn(request.query, options.workspaceQuery);
    else {
      const siteId = stringIn(request.params, options.siteParam);
      // The route's schema has not checked the id yet: one no site can have is left to it (400 or 404).
      if (siteId !== undefined && ID.test(siteId)) workspaceId = await findWorkspaceIdOfSite(this.db, siteId);
    }
    if (workspaceId !== undefined) assertTwoFactorMet(principal.twoFactorMissingIn, workspaceId);
  }

  /**
   * Whether the caller proved who they are within the recent-authentication window: for a rule
   * that needs it only sometimes (raising a member to admin, moving a webhook's URL), which the
   * route passes to its service. A route that always needs it says so with require('recent').
   */
  isRecent(request: FastifyRequest): boolean {
    return this.recentAuthentication.isRecent(currentPrincipal(request));
  }

  /** Throws 403 reauthentication_required unless isRecent(request): require('recent') inside a handler. */
  assertRecent(request: FastifyRequest): void {
    this.recentAuthentication.assert(currentPrincipal(request));
  }

  /**
   * The Authorization header, when present, decides; otherwise the web session cookie. Tokens are
   * never read from cookies; a cookie-authenticated write must then pass the same-origin check
   * (`require`).
   */
  async authenticate(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    const cookie = request.cookies[this.sessions.cookieName];
    if (header === undefined && cookie !== undefined && cookie !== '') return this.#authenticateSession(cookie);
    if (header === undefined || header.trim() === '') {
      throw unauthorized(AUTH_ERRORS.UNAUTHENTICATED, 'Sign in, or send Authorization: Bearer <JWT> or Authorization: Token <personal access token>.');
    }
    const { scheme, credential } = parseAuthorization(header);
    if (scheme === 'bearer') {
      if (looksLikeAccessToken(credential)) {
        throw unauthorized(AUTH_ERRORS.WRONG_SCHEME, 'This is a personal access token: send it as Authorization: Token <token>.');
      }
      return this.#authenticateJwt(credential);
    }
    if (scheme === 'token') {
      if (looksLikeJwt(credential)) {
        throw unauthorized(AUTH_ERRORS.WRONG_SCHEME, 'This is a JWT: send it as Authorization: Bearer <JWT>.');
      }
      return this.#authenticateAccessToken(credential);
    }
    throw unauthorized(AUTH_ERRORS.UNSUPPORTED_SCHEME, 'Use the Bearer scheme with a JWT or the Token scheme with a personal access token.');
  }

  /** The principal of a web session cookie: the same check for an API request as for a page (`isSignedInPage`). */
  async #authenticateSession(cookie: string): Promise<Principal> {
    const found = await this.sessions.authenticate(cookie);
    if (found === undefined) throw unauthorized(AUTH_ERRORS.SESSION_EXPIRED, 'Your session has ended; sign in again.');
    // A session of the first factor alone (password or magic link, TOTP on) opens nothing: the
    // second step (POST /auth/2fa) replaces it with a real session, or logout ends it.
    // A magic-link sign-in to an unverified account with credentials opens nothing either until
    // the mailbox holder has kept or reset them (POST /auth/claim).
    if (found.session.claim_pending === 1) {
      throw unauthorized(AUTH_ERRORS.CLAIM_REQUIRED, 'Finish signing in: choose whether to keep or reset this account at /auth/claim.');
    }
    if (found.session.second_factor_pending === 1) {
      throw unauthorized(AUTH_ERRORS.SECOND_FACTOR_REQUIRED, 'Finish signing in: enter the code from your authenticator app (or a recovery code) at /auth/2fa.');
    }
    assertEnabled(found.user);
    const reach = await this.#sessionReach(found.user.id);
    return {
      user: found.user,
      method: 'session',
      scopes: ACCESS_TOKEN_SCOPES,
      accessToken: null,
      sessionId: found.session.id,
      authenticatedAt: Date.parse(found.session.authenticated_at),
      memberships: reach.memberships,
      workspaceId: null,
      twoFactorMissingIn: reach.twoFactorMissingIn,
    };
  }

  /**
   * Whether a page request's web session cookie signs it in, by the check every API request makes
   * (GET /api/v1/me answers 200 exactly then), for the pages that differ for someone signed out
   * (src/web/static.ts). A cookie that names no session any more (unknown, expired, idle) is
   * cleared in the same answer; one that opens nothing yet (a sign-in waiting for its second step
   * or for the claim) is kept, as that step needs it.
   */
  async isSignedInPage(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const cookie = request.cookies[this.sessions.cookieName];
    if (cookie === undefined || cookie === '') return false;
    try {
      await this.#authenticateSession(cookie);
      return true;
    } catch (error) {
      if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 403)) throw error;
      if (error.code === AUTH_ERRORS.SESSION_EXPIRED) this.sessions.clearCookie(reply);
      return false;
    }
  }

  async #authenticateJwt(token: string): Promise<Principal> {
    let claims;
    try {
      claims = this.jwt.verify(token);
    } catch (error) {
      if (error instanceof InvalidJwtError) throw unauthorized(AUTH_ERRORS.INVALID_TOKEN, INVALID_CREDENTIALS_DETAIL);
      throw error;
    }
    const cached = this.#heldJwtPrincipal(claims);
    if (cached !== undefined) return cached;

    const epoch = this.cache.epoch;
    const user = await findUserById(this.db, claims.sub);
    // A deleted user, or a token issued before "sign out everywhere", is no longer honoured.
    if (user === undefined || claims.gen !== user.jwt_generation) {
      throw unauthorized(AUTH_ERRORS.INVALID_TOKEN, INVALID_CREDENTIALS_DETAIL);
    }
    // Disabling moves the generation on too; this holds for a JWT issued in a race with it.
    assertEnabled(user);
    const reach = await this.#readReach(user.id);
    const principal: Principal = {
      user: keptUser(user),
      method: 'jwt',
      scopes: ACCESS_TOKEN_SCOPES,
      accessToken: null,
      sessionId: null,
      authenticatedAt: claims.auth_time * 1000,
      memberships: reach.memberships,
      workspaceId: null,
      twoFactorMissingIn: reach.twoFactorMissingIn,
    };
    this.#jwtUsers.set(user.id, principal, { tags: jwtPrincipalTags(user.id, reach.tags), size: principalBytes(reach.memberships), epoch });
    return principal;
  }

  async #authenticateAccessToken(token: string): Promise<Principal> {
    const tokenHash = hashAccessToken(token);
    let found = this.#accessTokens.get(tokenHash);
    if (found === undefined) {
      // The checksum turns away typos and guesses without touching the database.
      if (!isWellFormedAccessToken(token)) throw unauthorized(AUTH_ERRORS.INVALID_TOKEN, INVALID_CREDENTIALS_DETAIL);
      const epoch = this.cache.epoch;
      const row = await findAccessTokenWithUser(this.db, tokenHash);
      if (row === undefined) throw unauthorized(AUTH_ERRORS.INVALID_TOKEN, INVALID_CREDENTIALS_DETAIL);
      const granted = row.token.scopes.split(' ').filter((scope): scope is AccessTokenScope =>
        (ACCESS_TOKEN_SCOPES as readonly string[]).includes(scope),
      );
      // Most tokens have every scope: they share the one list rather than keep a copy each.
      const scopes = ACCESS_TOKEN_SCOPES.every((scope) => granted.includes(scope)) ? ACCESS_TOKEN_SCOPES : granted;
      const workspaceId = row.token.workspace_id;
      const reach = tokenReach(await this.#readReach(row.user.id), workspaceId);
      found = {
        id: row.token.id,
        principal: {
          user: keptUser(row.user),
          method: 'access_token',
          scopes,
          accessToken: { id: row.token.id, name: row.token.name },
          sessionId: null,
          authenticatedAt: null,
          memberships: reach.memberships,
          workspaceId,
          twoFactorMissingIn: reach.twoFactorMissingIn,
        },
        lastUsedMs: row.token.last_used_at === null ? 0 : Date.parse(row.token.last_used_at),
      };
      const tags = [accessTokenTag(row.token.id), userTag(row.user.id), ...reach.tags];
      this.#accessTokens.set(tokenHash, found, { tags, size: accessTokenBytes(reach.memberships), epoch });
    }

    // A disabled account's tokens are kept (they work again once it is enabled) but refused meanwhile.
    assertEnabled(found.principal.user);
    await this.#recordUse(found);
    return found.principal;
  }

  /** The reach of a web session's user: sessions are read every time, their memberships need not be. */
  async #sessionReach(userId: string): Promise<WorkspaceReach> {
    const held = this.#reaches.get(userId);
    if (held !== undefined) return held;
    const epoch = this.cache.epoch;
    const reach = await this.#readReach(userId);
    this.#reaches.set(userId, reach, { tags: reach.tags, size: membershipBytes(reach.memberships), epoch });
    return reach;
  }

  /**
   * The user's memberships from the database, and the workspaces among them that require a second
   * factor the user lacks. Whether they have one is read only when a workspace of theirs requires
   * it, which costs the usual principal nothing.
   */
  async #readReach(userId: string): Promise<WorkspaceReach> {
    const { memberships, requiringTwoFactor } = await findWorkspaceAccess(this.db, userId);
    const missing = requiringTwoFactor.length > 0 && !(await hasSecondFactor(this.db, userId));
    return { memberships: compactMemberships(memberships), twoFactorMissingIn: missing ? new Set(requiringTwoFactor) : NONE, tags: reachTags(userId, memberships.keys(), requiringTwoFactor.length > 0) };
  }

  /** Records the token's use when its last record is a minute old; settles once it is written. */
  #recordUse(found: CachedAccessToken): Promise<void> | undefined {
    const now = this.clock.now();
    if (now.getTime() - found.lastUsedMs < LAST_USED_RESOLUTION_MS) return undefined;
    // Set before the write, so concurrent requests with the token do not all record it.
    found.lastUsedMs = now.getTime();
    return this.lastUses.record(found.id, now.toISOString());
  }

  /**
   * A remembered principal for the JWT's claims. A generation that differs from the remembered one
   * is read afresh: the token may be newer than what this process remembers (signed out
   * everywhere and in again on another process). The user is remembered, not the token: another
   * of the user's JWTs gets a copy that carries its own auth_time.
   */
  #heldJwtPrincipal(claims: VerifiedJwt): Principal | undefined {
    const cached = this.#jwtUsers.get(claims.sub);
    if (cached === undefined || cached.user.jwt_generation !== claims.gen) return undefined;
    const authenticatedAt = claims.auth_time * 1000;
    return cached.authenticatedAt === authenticatedAt ? cached : { ...cached, authenticatedAt };
  }
}

/** A request's path or query parameter when it is one string (a repeated query parameter is not). */
function stringIn(values: unknown, name: string): string | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  const value = (values as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** "Scheme credential", the scheme in lower case; a header of any other shape gives neither. */
function parseAuthorization(header: string): { scheme: string | undefined; credential: string } {
  const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
  return { scheme: match?.[1]?.toLowerCase(), credential: match?.[2] ?? '' };
}
