import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { Database } from '../db/schema.js';
import { AppError, type FieldError, validationError } from '../errors.js';
import { checkPasswordPolicy, type PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { findUserByEmail, insertUser, listUsers, type UserRow } from './queries.js';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, type UserSchema } from './schema.js';

export type PublicUser = Static<typeof UserSchema>;

/** The user as every response shows it: never the password hash or token state. */
export function userToJson(user: UserRow): PublicUser {
  return { id: user.id, email: user.email, name: user.name, created_at: user.created_at };
}

/** E-mail addresses compare case-insensitively and without surrounding blanks. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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

  /** Creates a user after checking the e-mail and the password policy; 409 when the e-mail is taken. */
  async createUser(input: NewUser): Promise<UserRow> {
    const email = normalizeEmail(input.email);
    const name = (input.name ?? '').trim();
    const errors: FieldError[] = [];
    if (!EMAIL_PATTERN.test(email) || email.length > EMAIL_MAX_LENGTH) errors.push({ path: '/email', message: 'must be an e-mail address' });
    if ([...name].length > NAME_MAX_LENGTH) errors.push({ path: '/name', message: `must be at most ${NAME_MAX_LENGTH} characters` });
    errors.push(...checkPasswordPolicy(input.password));
    if (errors.length > 0) throw validationError(errors);

    const now = this.clock.now();
    const user: UserRow = {
      id: newId(now),
      email,
      name,
      password_hash: await this.hasher.hash(input.password),
      jwt_generation: 0,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    if (!(await insertUser(this.db, user))) {
      throw new AppError(409, 'email_taken', 'An account with this e-mail address already exists.');
    }
    return user;
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return findUserByEmail(this.db, normalizeEmail(email));
  }

  list(): Promise<UserRow[]> {
    return listUsers(this.db);
  }
}
