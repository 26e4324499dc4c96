import type { Kysely, Selectable } from 'kysely';
import type { Database, PasskeysTable, WebauthnChallengesTable } from '../db/schema.js';
import { JOINED_USER_COLUMNS, type UserRow, userFromJoin } from '../users/queries.js';

export type PasskeyRow = Selectable<PasskeysTable>;
export type ChallengeRow = Selectable<WebauthnChallengesTable>;
/** registration: adding a passkey; authentication: signing in; reauthentication: a signed-in user confirming who they are. */
export type Ceremony = 'registration' | 'authentication' | 'reauthentication';

export function insertChallenge(db: Kysely<Database>, row: ChallengeRow): Promise<unknown> {
  return db.insertInto('webauthn_challenges').values(row).execute();
}

/**
 * Consumes a sign-in or re-authentication challenge by its id in one conditional UPDATE: of any
 * number of concurrent attempts (on any app server) exactly one sees it unused, unexpired, of this
 * ceremony and issued to `userId` (null for a sign-in, where nobody is known yet), and gets its hash
 * back; the rest get nothing.
 */
export async function consumeChallengeById(db: Kysely<Database>, id: string, ceremony: Ceremony, userId: string | null, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('webauthn_challenges')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('ceremony', '=', ceremony)
    .where('user_id', userId === null ? 'is' : '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('challenge_hash')
    .executeTakeFirst();
  return row?.challenge_hash;
}

/**
 * Consumes a registration challenge, found by the hash of the challenge the authenticator signed,
 * in one conditional UPDATE. It must have been issued to this user: a challenge obtained by one
 * account cannot register a passkey on another.
 */
export async function consumeRegistrationChallenge(db: Kysely<Database>, challengeHash: string, userId: string, now: string): Promise<boolean> {
  const row = await db
    .updateTable('webauthn_challenges')
    .set({ used_at: now })
    .where('challenge_hash', '=', challengeHash)
    .where('ceremony', '=', 'registration')
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Drops challenges that expired before `before`, used or not. */
export function pruneChallenges(db: Kysely<Database>, before: string): Promise<unknown> {
  return db.deleteFrom('webauthn_challenges').where('expires_at', '<', before).execute();
}

/** The user's passkeys, oldest first. */
export function listPasskeys(db: Kysely<Database>, userId: string): Promise<PasskeyRow[]> {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function countPasskeys(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Stores a new passkey; false when the credential is already registered (to anyone). */
export async function insertPasskey(db: Kysely<Database>, row: PasskeyRow): Promise<boolean> {
  const result = await db
    .insertInto('passkeys')
    .values(row)
    .onConflict((conflict) => conflict.column('credential_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The passkey with this credential id and its user, in one query. */
export async function findPasskeyWithUser(db: Kysely<Database>, credentialId: string): Promise<{ passkey: PasskeyRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('passkeys')
    .innerJoin('users', 'users.id', 'passkeys.user_id')
    .select([
      'passkeys.id',
      'passkeys.credential_id',
      'passkeys.public_key',
      'passkeys.counter',
      'passkeys.transports',
      'passkeys.device_type',
      'passkeys.backed_up',
      // users.name is selected too, under its own name.
      'passkeys.name as passkey_name',
      'passkeys.created_at',
      'passkeys.last_used_at',
      ...JOINED_USER_COLUMNS,
    ])
    .where('passkeys.credential_id', '=', credentialId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const passkey: PasskeyRow = {
    id: row.id,
    user_id: row.user_id,
    credential_id: row.credential_id,
    public_key: row.public_key,
    counter: Number(row.counter),
    transports: row.transports,
    device_type: row.device_type,
    backed_up: row.backed_up,
    name: row.passkey_name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
  return { passkey, user: userFromJoin(row) };
}

/**
 * Records a verified sign-in in one conditional UPDATE that also enforces the sign counter: it
 * lands only while the stored counter is below the new one (or both are 0, a synced passkey that
 * does not count). Two app servers receiving assertions with the same counter at the same moment
 * cannot both succeed.
 */
export async function recordPasskeyUse(
  db: Kysely<Database>,
  input: { id: string; counter: number; backedUp: boolean; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ counter: input.counter, backed_up: input.backedUp ? 1 : 0, last_used_at: input.now })
    .where('id', '=', input.id)
    // A counter of 0 is accepted only while the stored one is 0 too; any other must go up.
    .where('counter', input.counter === 0 ? '=' : '<', input.counter)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function renamePasskey(db: Kysely<Database>, userId: string, id: string, name: string): Promise<PasskeyRow | undefined> {
  return db.updateTable('passkeys').set({ name }).where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the user's passkey; answers its name, or undefined when the user has no such passkey. */
export async function deletePasskey(db: Kysely<Database>, userId: string, id: string): Promise<string | undefined> {
  const row = await db.deleteFrom('passkeys').where('user_id', '=', userId).where('id', '=', id).returning('name').executeTakeFirst();
  return row?.name;
}
