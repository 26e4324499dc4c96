import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError, type FieldError } from '../errors.js';
import { validationError } from '../http/validation-error.js';
import { checkPasswordPolicy, NO_PASSWORD, type PasswordHasher } from '../auth/passwords.js';
import { failedPasswordKey, RATE_LIMITS, type RateLimiter } from '../auth/rate-limit.js';
import { reauthenticationRequired } from '../auth/recent-authentication.js';
import type { SessionService } from '../auth/sessions.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { findUserByEmail, findUserById, insertUser, listUsers, updatePasswordHash, type UserRow } from './queries.js';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, type UserJson } from './schema.js';
import { USER_ERRORS } from './errors.js';
import { insertPersonalWorkspace } from '../workspaces/queries.js';


/** The user as every response shows it: never the password hash or token state. */
export function userToJson(user: UserRow): UserJson {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    email_verified: isEmailVerified(user),
    has_password: hasPassword(user),
    created_at: user.created_at,
  };
}

export function hasPassword(user: UserRow): boolean {
  return user.password_hash !== NO_PASSWORD;
}

export function isEmailVerified(user: UserRow): boolean {
  return user.email_verified_at !== null;
}

/** E-mail addresses compare case-insensitively and without surrounding blanks. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const emailTaken = () => new AppError(409, USER_ERRORS.EMAIL_TAKEN, 'An account with this e-mail address already exists.');

/** What is wrong with a normalised address, if anything: the rule of sign-up and of an address change alike. */
export function checkEmail(email: string): FieldError[] {
  return !EMAIL_PATTERN.test(email) || email.length > EMAIL_MAX_LENGTH ? [{ path: '/email', message: 'must be an e-mail address' }] : [];
}

/** What is wrong with a trimmed display name, if anything: the rule of sign-up and of the profile alike. */
export function checkName(name: string): FieldError[] {
  return [...name].length > NAME_MAX_LENGTH ? [{ path: '/name', message: `must be at most ${NAME_MAX_LENGTH} characters` }] : [];
}

export interface NewUser {
  email: string;
  password: string;
  name?: string | undefined;
}

export class UserService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a user after checking the e-mail and the password policy; 409 when the e-mail is taken.
   * The user's personal workspace is made in the same transaction: no account is ever without one.
   * `emailVerified`: the creator vouches for the address (the CLI, run by the server's operator);
   * a sign-up over HTTP does not, and the address stays unverified until its link is used.
   */
  async createUser(input: NewUser, options: { emailVerified?: boolean } = {}): Promise<UserRow> {
    const email = normalizeEmail(input.email);
    const name = (input.name ?? '').trim();
    const errors: FieldError[] = [];
    errors.push(...checkEmail(email), ...checkName(name), ...checkPasswordPolicy(input.password, { email, name }));
    if (errors.length > 0) throw validationError(errors);

    const now = this.clock.now();
    const user: UserRow = {
      id: newId(now),
      email,
      name,
      password_hash: await this.hasher.hash(input.password),
      jwt_generation: 0,
      email_verified_at: options.emailVerified === true ? now.toISOString() : null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.db.transaction().execute(async (trx) => {
      if (!(await insertUser(trx, user))) throw emailTaken();
      await insertPersonalWorkspace(trx, user.id, now);
    });
    return user;
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return findUserByEmail(this.db, normalizeEmail(email));
  }

  list(): Promise<UserRow[]> {
    return listUsers(this.db);
  }
}

export interface PasswordChange {
  /**
   * Checked whenever given to an account that has a password; may be left out only by a caller who
   * authenticated recently, the one way an account without a password (after a reset) sets one.
   */
  currentPassword: string | undefined;
  newPassword: string;
  recentlyAuthenticated: boolean;
}

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
   * session making the change, which stays signed in (null for a JWT caller: its JWT is revoked too).
   */
  async changePassword(userId: string, change: PasswordChange, keepSessionId: string | null): Promise<void> {
    // Read afresh, not from the request's principal, which may have been cached.
    const user = await findUserById(this.db, userId);
    if (user === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');
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
    await this.sessions.revokeEverythingElse(userId, keepSessionId, (trx) => updatePasswordHash(trx, userId, passwordHash, now));
  }
}
