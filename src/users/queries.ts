import type { Kysely, Selectable } from 'kysely';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database, UsersTable } from '../db/schema.js';

export type UserRow = Selectable<UsersTable>;

export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

// Read for a JWT whose user the guard does not remember: prepared once (db/prepared-query.ts).
const userById = new PreparedQuery((db, p: { id: string }) => db.selectFrom('users').selectAll().where('id', '=', p.id));

export function findUserById(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return userById.executeTakeFirst(db, { id });
}

/** Inserts the user; resolves false when the e-mail is already taken. */
export async function insertUser(db: Kysely<Database>, user: UserRow): Promise<boolean> {
  const result = await db
    .insertInto('users')
    .values(user)
    .onConflict((conflict) => conflict.column('email').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Stores a new password hash; the caller revokes the old credentials in the same transaction. */
/** Sets the password's hash; resolves false when the account no longer exists. */
export async function updatePasswordHash(db: Kysely<Database>, userId: string, passwordHash: string, now: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function listUsers(db: Kysely<Database>): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute();
}

/**
 * The users columns for a query that joins users to the row that authenticates a request
 * (a session, an access token), aliased where they would clash with the joined table's.
 */
export const JOINED_USER_COLUMNS = [
  'users.id as user_id',
  'users.email',
  'users.name',
  'users.password_hash',
  'users.jwt_generation',
  'users.email_verified_at',
  'users.instance_admin',
  'users.disabled_at',
  'users.created_at as user_created_at',
  'users.updated_at as user_updated_at',
] as const;

export interface JoinedUserColumns {
  user_id: string;
  email: string;
  name: string;
  password_hash: string;
  jwt_generation: number;
  email_verified_at: string | null;
  instance_admin: number;
  disabled_at: string | null;
  user_created_at: string;
  user_updated_at: string;
}

export function userFromJoin(row: JoinedUserColumns): UserRow {
  return {
    id: row.user_id,
    email: row.email,
    name: row.name,
    password_hash: row.password_hash,
    jwt_generation: row.jwt_generation,
    email_verified_at: row.email_verified_at,
    instance_admin: row.instance_admin,
    disabled_at: row.disabled_at,
    created_at: row.user_created_at,
    updated_at: row.user_updated_at,
  };
}

/**
 * Deletes the account; its sessions, access tokens, passkeys, TOTP, recovery codes, one-time tokens
 * and memberships go with it by cascade, and the sites it created keep their workspace (creator set
 * to null). Resolves false when it was gone already.
 */
export async function deleteUser(db: Kysely<Database>, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
