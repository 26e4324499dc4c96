import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError, type FieldError, validationError } from '../errors.js';
import { checkPasswordPolicy, NO_PASSWORD, type PasswordHasher } from '../passwords/passwords.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { findUserByEmail, insertUser, listUsers, type UserRow } from './queries.js';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from './schema.js';
import { USER_ERRORS } from './errors.js';
import { insertPersonalWorkspace } from '../memberships/queries.js';

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

/** A new account's row: no administrator, not disabled, its address verified now when someone vouches for it. */
function newUserRow(now: Date, fields: { email: string; name: string; passwordHash: string; emailVerified: boolean }): UserRow {
  return {
    id: newId(now),
    email: fields.email,
    name: fields.name,
    password_hash: fields.passwordHash,
    jwt_generation: 0,
    email_verified_at: fields.emailVerified ? now.toISOString() : null,
    instance_admin: 0,
    disabled_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
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
    const user = newUserRow(now, { email, name, passwordHash: await this.hasher.hash(input.password), emailVerified: options.emailVerified === true });
    await this.db.transaction().execute(async (trx) => {
      if (!(await insertUser(trx, user))) throw emailTaken();
      await insertPersonalWorkspace(trx, user.id, now);
    });
    return user;
  }

  /**
   * Creates a user without a password whose address a provider the operator trusts has verified
   * (single sign-on). `alongside` runs in the same transaction as the user and their personal
   * workspace (the identity that signs in), so neither lands without the other. Resolves undefined
   * when the address was taken meanwhile.
   */
  async createWithoutPassword(input: { email: string; name: string }, alongside: (trx: Transaction<Database>, user: UserRow) => Promise<void>): Promise<UserRow | undefined> {
    const email = normalizeEmail(input.email);
    const name = input.name.trim();
    const errors = [...checkEmail(email), ...checkName(name)];
    if (errors.length > 0) throw validationError(errors);
    const now = this.clock.now();
    const user = newUserRow(now, { email, name, passwordHash: NO_PASSWORD, emailVerified: true });
    return this.db.transaction().execute(async (trx) => {
      if (!(await insertUser(trx, user))) return undefined;
      await insertPersonalWorkspace(trx, user.id, now);
      await alongside(trx, user);
      return user;
    });
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return findUserByEmail(this.db, normalizeEmail(email));
  }

  list(): Promise<UserRow[]> {
    return listUsers(this.db);
  }
}
