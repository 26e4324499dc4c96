import type { Kysely, Selectable } from 'kysely';
import { PreparedQuery } from '../db/prepared-query.js';
import type { AccessTokensTable, Database } from '../db/schema.js';
import { JOINED_USER_COLUMNS, type UserRow, userFromJoin } from '../users/queries.js';

export type AccessTokenRow = Selectable<AccessTokensTable>;

export function insertAccessToken(db: Kysely<Database>, row: AccessTokenRow): Promise<unknown> {
  return db.insertInto('access_tokens').values(row).execute();
}

export function listAccessTokens(db: Kysely<Database>, userId: string): Promise<AccessTokenRow[]> {
  return db.selectFrom('access_tokens').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').execute();
}

export function countAccessTokens(db: Kysely<Database>, userId: string): Promise<number> {
  return db
    .selectFrom('access_tokens')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.count));
}

/** Resolves true when the owner's token existed and is now gone. */
/** Deletes the user's token; answers its name, or undefined when the user has no such token. */
export async function deleteAccessToken(db: Kysely<Database>, userId: string, id: string): Promise<string | undefined> {
  const row = await db.deleteFrom('access_tokens').where('user_id', '=', userId).where('id', '=', id).returning('name').executeTakeFirst();
  return row?.name;
}

// Run for every request with a token the guard does not remember: prepared once, since building
// this join took longer than running it (db/prepared-query.ts).
const accessTokenWithUserByHash = new PreparedQuery((db, p: { tokenHash: string }) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('users', 'users.id', 'access_tokens.user_id')
    .select([
      'access_tokens.id',
      'access_tokens.name as token_name',
      'access_tokens.token_hash',
      'access_tokens.last_four',
      'access_tokens.scopes',
      'access_tokens.created_at',
      'access_tokens.last_used_at',
      ...JOINED_USER_COLUMNS,
    ])
    .where('access_tokens.token_hash', '=', p.tokenHash),
);

/** The token and its owner in one query, looked up by the token's hash. */
export async function findAccessTokenWithUser(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<{ token: AccessTokenRow; user: UserRow } | undefined> {
  const row = await accessTokenWithUserByHash.executeTakeFirst(db, { tokenHash });
  if (row === undefined) return undefined;
  const token: AccessTokenRow = {
    id: row.id,
    user_id: row.user_id,
    name: row.token_name,
    token_hash: row.token_hash,
    last_four: row.last_four,
    scopes: row.scopes,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
  return { token, user: userFromJoin(row) };
}

const lastUseOfToken = new PreparedQuery((db, p: { id: string; usedAt: string }) =>
  db.updateTable('access_tokens').set({ last_used_at: p.usedAt }).where('id', '=', p.id),
);

/** Records use (last-use.ts writes it, at most once a minute per token). */
export function touchAccessToken(db: Kysely<Database>, id: string, usedAt: string): Promise<unknown> {
  return lastUseOfToken.execute(db, { id, usedAt });
}
