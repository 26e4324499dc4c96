import type { Kysely } from 'kysely';
import type { AccessTokenRow } from '../auth/queries.js';
import type { Database } from '../db/schema.js';

// The row type is defined where tokens are authenticated; management reads and writes the same rows.
export type { AccessTokenRow };

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
