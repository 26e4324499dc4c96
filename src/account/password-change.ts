import type { Kysely } from 'kysely';
import type { SessionService } from '../auth/sessions.js';
import { reauthenticationRequired } from '../auth/recent-authentication.js';
import type { Database } from '../db/schema.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { AuthMethod } from '../lib/auth-method.js';
import { AppError, unauthorized, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { checkPasswordPolicy, type PasswordHasher } from '../passwords/passwords.js';
import { failedPasswordKey, RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import { USER_ERRORS } from '../users/errors.js';
import { findUserById, updatePasswordHash } from '../users/queries.js';
import { hasPassword } from '../users/service.js';

export interface PasswordChange {
  /**
   * Checked whenever given to an account that has a password; may be left out only by a caller who
   * authenticated recently, the one way an account without a password (after a reset) sets one.
   */
  currentPassword: string | undefined;
  newPassword: string;
  recentlyAuthenticated: boolean;
}

/**
 * The account was deleted while its password was being changed (another tab, a script): its
 * credentials ended with it, so the change answers as the next request with the same credential
 * would (401), and changes nothing.
 */
const credentialEnded = (credential: AuthMethod) =>
  credential === 'session'
    ? unauthorized(AUTH_ERRORS.SESSION_EXPIRED, 'Your session has ended: this account no longer exists.')
    : unauthorized(AUTH_ERRORS.INVALID_TOKEN, 'The credential is invalid: this account no longer exists.');

/** Thrown inside the change's transaction when the account is gone: it rolls the revocation back. */
class AccountGone extends Error {}

/** Settings: the current password was wrong. 403, not 401: the caller is still signed in. */
const currentPasswordInvalid = () =>
  new AppError(403, USER_ERRORS.CURRENT_PASSWORD_INVALID, 'The current password is wrong.', { errors: [{ path: '/current_password', message: 'is wrong' }] });

/**
 * A signed-in user's password change. The current password, or a recent authentication, is asked
 * for so that a borrowed session (an unlocked laptop, a stolen cookie) cannot lock the owner out;
 * a recent one is enough so that someone who forgot it can sign in by e-mail link and set a new
 * one. Wrong guesses count against the same per-account limit as sign-in, so the form is no side
 * door for guessing.
 */
export class PasswordChangeService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly hasher: PasswordHasher,
    private readonly limiter: RateLimiter,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks the current password, stores the new one (argon2id) and, in the same transaction, ends
   * every other web session and refuses every JWT issued so far. `keepSessionId` is the web
   * session making the change, which stays signed in (null for a JWT caller: its JWT is revoked
   * too). An account deleted before or while this runs is 401: its credentials ended with it.
   */
  async changePassword(userId: string, change: PasswordChange, caller: { credential: AuthMethod; keepSessionId: string | null }): Promise<void> {
    // Read afresh, not from the request's principal, which may have been cached.
    const user = await findUserById(this.db, userId);
    if (user === undefined) throw credentialEnded(caller.credential);
    const policy = checkPasswordPolicy(change.newPassword, { email: user.email, name: user.name }, '/new_password');
    if (policy.length > 0) throw validationError(policy);
    if (change.currentPassword !== undefined && hasPassword(user)) {
      // Sign-in and this form share the account's 10 failures. Counted before the check, so
      // concurrent guesses cannot all pass under the limit; refunded when right.
      const reservation = await this.limiter.reserve([[failedPasswordKey(user.email), RATE_LIMITS.loginFailuresPerAccount]]);
      if (!(await this.hasher.verify(user.password_hash, change.currentPassword))) throw currentPasswordInvalid();
      await reservation.refund();
    } else if (!change.recentlyAuthenticated) {
      // Without a current password to check, only a recent sign-in proves the person: a stolen
      // old session must not set a password of its own.
      throw reauthenticationRequired();
    }

    const passwordHash = await this.hasher.hash(change.newPassword);
    const now = this.clock.now().toISOString();
    try {
      await this.sessions.revokeEverythingElse(userId, caller.keepSessionId, async (trx) => {
        // The account may have been deleted during the hashing above.
        if (!(await updatePasswordHash(trx, userId, passwordHash, now))) throw new AccountGone();
      });
    } catch (error) {
      if (error instanceof AccountGone) throw credentialEnded(caller.credential);
      throw error;
    }
  }
}
