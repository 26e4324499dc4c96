import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError, unauthorized } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { findUserById, type UserRow } from '../users/queries.js';
import { assertEnabled } from './disabled.js';
import {
  deleteSession,
  deleteSessionByHash,
  endPendingSession,
  findSessionWithUser,
  insertSession,
  listActiveSessions,
  markSessionAuthenticated,
  revokeAllCredentials,
  revokeOtherCredentials,
  type SessionRow,
  touchSession,
} from './queries.js';
import { AUTH_ERRORS } from './errors.js';

export interface SessionSettings {
  idleMs: number;
  lifetimeMs: number;
  /** PUBLIC_URL is https: the cookie is Secure and takes the __Host- prefix. */
  secure: boolean;
}

export interface CookieSettings {
  httpOnly: true;
  sameSite: 'lax';
  path: '/';
  secure: boolean;
  maxAge: number;
}

const LAST_SEEN_RESOLUTION_MS = 60_000;
/** A sign-in waiting for its second factor is short-lived: long enough to open an authenticator app. */
export const SECOND_FACTOR_WINDOW_MS = 10 * 60 * 1000;
const USER_AGENT_MAX_LENGTH = 300;

/**
 * Web sessions: server-side rows behind an HttpOnly cookie. The cookie holds 256 random bits;
 * the database holds only their SHA-256, so a read of the database yields no usable session.
 */
export class SessionService {
  readonly cookieName: string;
  /** Told the user id after a revocation of all the user's JWTs has committed (the guard's cache). */
  readonly #revocationListeners: Array<(userId: string) => void> = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly settings: SessionSettings,
  ) {
    // __Host- makes the browser refuse the cookie unless Secure, host-only and Path=/.
    this.cookieName = settings.secure ? '__Host-siteward_session' : 'siteward_session';
  }

  get cookieSettings(): CookieSettings {
    return { httpOnly: true, sameSite: 'lax', path: '/', secure: this.settings.secure, maxAge: Math.floor(this.settings.lifetimeMs / 1000) };
  }

  /** Tells the browser to drop the session cookie (set with the same attributes, so it matches). */
  clearCookie(reply: FastifyReply): void {
    reply.clearCookie(this.cookieName, { path: '/', secure: this.settings.secure, httpOnly: true, sameSite: 'lax' });
  }

  /** The cookie for a session: it lives no longer than the session row does. */
  cookieSettingsFor(session: SessionRow): CookieSettings {
    const lifetimeMs = Date.parse(session.expires_at) - Date.parse(session.created_at);
    return { ...this.cookieSettings, maxAge: Math.floor(lifetimeMs / 1000) };
  }

  /**
   * A fresh session (and so a fresh id) at every sign-in: a planted cookie is never promoted.
   * `secondFactorPending` makes the session of a first factor only: it expires within minutes and
   * the guard refuses it everywhere; only finishing the second step (which replaces it) helps.
   */
  async create(
    userId: string,
    client: { userAgent: string | undefined; ip: string },
    options: { secondFactorPending?: boolean; claimPending?: boolean } = {},
  ): Promise<{ cookieValue: string; session: SessionRow }> {
    // Every way of signing in to the web ends here: a disabled account gets no session, whichever it was.
    const user = await findUserById(this.db, userId);
    if (user !== undefined) assertEnabled(user);
    const cookieValue = randomToken(32);
    const now = this.clock.now();
    const claimPending = options.claimPending === true;
    // The claim comes first: the second step is asked for only once the choice is made.
    const secondFactorPending = options.secondFactorPending === true && !claimPending;
    const pending = claimPending || secondFactorPending;
    const session: SessionRow = {
      id: newId(now),
      user_id: userId,
      token_hash: sha256(cookieValue),
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + (pending ? SECOND_FACTOR_WINDOW_MS : this.settings.lifetimeMs)).toISOString(),
      user_agent: (client.userAgent ?? '').slice(0, USER_AGENT_MAX_LENGTH),
      ip: client.ip,
      second_factor_pending: secondFactorPending ? 1 : 0,
      claim_pending: claimPending ? 1 : 0,
      // A sign-in (a finished second step makes a new session) is a proof of the person, now.
      authenticated_at: now.toISOString(),
    };
    await insertSession(this.db, session);
    return { cookieValue, session };
  }

  /** The live session behind a cookie value, or undefined when it is unknown, idle too long or over. */
  async authenticate(cookieValue: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    const found = await findSessionWithUser(this.db, sha256(cookieValue));
    if (found === undefined) return undefined;
    const now = this.clock.now().getTime();
    const lastSeen = Date.parse(found.session.last_seen_at);
    if (Date.parse(found.session.expires_at) <= now || lastSeen + this.settings.idleMs <= now) {
      await deleteSessionByHash(this.db, found.session.token_hash);
      return undefined;
    }
    if (now - lastSeen >= LAST_SEEN_RESOLUTION_MS) {
      const seenAt = new Date(now).toISOString();
      await touchSession(this.db, found.session.id, seenAt);
      found.session.last_seen_at = seenAt;
    }
    return found;
  }

  /** The session behind a cookie if it is waiting for the second factor, with its user. */
  async findPendingSecondFactor(cookieValue: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    const found = await this.authenticate(cookieValue);
    return found?.session.second_factor_pending === 1 ? found : undefined;
  }

  /** The session behind a cookie if it is waiting for the choice about an unverified account, with its user. */
  async findPendingClaim(cookieValue: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    const found = await this.authenticate(cookieValue);
    return found?.session.claim_pending === 1 ? found : undefined;
  }

  /**
   * The second factor was passed: the pending session is deleted and a fresh full one, with a new
   * cookie value, takes its place, so whoever saw the pending cookie holds nothing of use.
   * Undefined when the cookie names no pending session (expired, cancelled, or already finished).
   */
  async completeSecondFactor(cookieValue: string, client: { userAgent: string | undefined; ip: string }): Promise<{ cookieValue: string; session: SessionRow } | undefined> {
    const userId = await endPendingSession(this.db, sha256(cookieValue), this.clock.now().toISOString());
    return userId === undefined ? undefined : this.create(userId, client);
  }

  /** The person behind the session proved who they are again (POST /api/v1/me/reauthenticate). */
  /**
   * A re-authentication on a web session: its sign-in time moves and its cookie value is replaced,
   * as at any sign-in, so a copy of the cookie taken before the proof does not hold the renewed
   * session.
   */
  async markAuthenticated(userId: string, sessionId: string, at: Date): Promise<{ cookieValue: string; session: SessionRow }> {
    const cookieValue = randomToken(32);
    const session = await markSessionAuthenticated(this.db, userId, sessionId, sha256(cookieValue), at.toISOString());
    if (session === undefined) throw unauthorized(AUTH_ERRORS.SESSION_EXPIRED, 'Your session has ended; sign in again.');
    return { cookieValue, session };
  }

  async destroy(cookieValue: string): Promise<void> {
    await deleteSessionByHash(this.db, sha256(cookieValue));
  }

  list(userId: string): Promise<SessionRow[]> {
    return listActiveSessions(this.db, userId, this.clock.now().toISOString());
  }

  async revoke(userId: string, id: string): Promise<void> {
    if (!(await deleteSession(this.db, userId, id))) throw new AppError(404, AUTH_ERRORS.SESSION_NOT_FOUND, 'No session with this id.');
  }

  /**
   * Called with the user id whenever revokeEverything or revokeEverythingElse has committed, so an
   * in-process cache of credentials (the guard's) forgets the user before the next request.
   */
  onCredentialsRevoked(listener: (userId: string) => void): void {
    this.#revocationListeners.push(listener);
  }

  /** Ends every session of the user and refuses every JWT issued so far. */
  async revokeEverything(userId: string): Promise<void> {
    await revokeAllCredentials(this.db, userId, this.clock.now().toISOString());
    this.#credentialsRevoked(userId);
  }

  /**
   * Like revokeEverything, but the session that asked (`keepSessionId`; null for a JWT caller)
   * stays signed in. `alongside` runs in the same transaction: used by a password change, so a
   * thief's session cannot outlive the password it was opened with.
   */
  async revokeEverythingElse(userId: string, keepSessionId: string | null, alongside: (trx: Kysely<Database>) => Promise<unknown>): Promise<void> {
    await revokeOtherCredentials(this.db, userId, keepSessionId, this.clock.now().toISOString(), alongside);
    this.#credentialsRevoked(userId);
  }

  /**
   * For a change made elsewhere that has ended every credential of the user (the account's
   * deletion): the listeners forget the user, as after revokeEverything.
   */
  credentialsEnded(userId: string): void {
    this.#credentialsRevoked(userId);
  }

  /** Tells the listeners (the guard's cache) that what they hold about the user is out of date. */
  #credentialsRevoked(userId: string): void {
    for (const listener of this.#revocationListeners) listener(userId);
  }
}

/** The client a session is made for, as the session list shows it. */
export function sessionClient(request: FastifyRequest): { userAgent: string | undefined; ip: string } {
  return { userAgent: request.headers['user-agent'], ip: request.ip };
}

/**
 * Every web sign-in ends here: a fresh session row and its cookie. Used by the password, magic-link
 * and passkey sign-ins alike, so the cookie is set the same way whichever way someone signs in.
 */
export async function startWebSession(
  sessions: SessionService,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  options: { secondFactorPending: boolean; claimPending?: boolean },
): Promise<void> {
  const { cookieValue, session } = await sessions.create(userId, sessionClient(request), options);
  reply.setCookie(sessions.cookieName, cookieValue, sessions.cookieSettingsFor(session));
}
