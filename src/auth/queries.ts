import type { Insertable, Kysely, Selectable } from 'kysely';
import { PreparedQuery } from '../db/prepared-query.js';
import type { AccessTokensTable, Database, OneTimeTokensTable, SessionsTable } from '../db/schema.js';
import { JOINED_USER_COLUMNS, type UserRow, userFromJoin } from '../users/queries.js';

export type SessionRow = Selectable<SessionsTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type OneTimeTokenRow = Selectable<OneTimeTokensTable>;

export function insertSession(db: Kysely<Database>, row: SessionRow): Promise<unknown> {
  return db.insertInto('sessions').values(row).execute();
}

// Run for every cookie-authenticated request: prepared once (db/prepared-query.ts).
const sessionWithUserByHash = new PreparedQuery((db, p: { tokenHash: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id',
      'sessions.token_hash',
      'sessions.created_at',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'sessions.user_agent',
      'sessions.ip',
      'sessions.second_factor_pending',
      'sessions.claim_pending',
      'sessions.authenticated_at',
      ...JOINED_USER_COLUMNS,
    ])
    .where('sessions.token_hash', '=', p.tokenHash),
);

/** The session and its user in one query, found by the hash of the cookie value. */
export async function findSessionWithUser(db: Kysely<Database>, tokenHash: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await sessionWithUserByHash.executeTakeFirst(db, { tokenHash });
  if (row === undefined) return undefined;
  const session: SessionRow = {
    id: row.id,
    user_id: row.user_id,
    token_hash: row.token_hash,
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    expires_at: row.expires_at,
    user_agent: row.user_agent,
    ip: row.ip,
    second_factor_pending: row.second_factor_pending,
    claim_pending: row.claim_pending,
    authenticated_at: row.authenticated_at,
  };
  return { session, user: userFromJoin(row) };
}

/** A re-authentication: the session's proof of its person is from `at`. Scoped by the owner. */
/** Moves a full session's sign-in time and gives it a new cookie digest; the updated row, if it still exists. */
export function markSessionAuthenticated(db: Kysely<Database>, userId: string, id: string, tokenHash: string, at: string): Promise<SessionRow | undefined> {
  return db
    .updateTable('sessions')
    .set({ authenticated_at: at, token_hash: tokenHash })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function touchSession(db: Kysely<Database>, id: string, seenAt: string): Promise<unknown> {
  return db.updateTable('sessions').set({ last_seen_at: seenAt }).where('id', '=', id).execute();
}

/** The user's sessions that have not ended, newest first. */
export function listActiveSessions(db: Kysely<Database>, userId: string, now: string): Promise<SessionRow[]> {
  return db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('expires_at', '>', now).orderBy('id', 'desc').execute();
}

export async function deleteSession(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Ends a session that is waiting for the second factor, in one conditional DELETE: of concurrent
 * attempts to finish the same sign-in, only one gets the user id back.
 */
export async function endPendingSession(db: Kysely<Database>, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .deleteFrom('sessions')
    .where('token_hash', '=', tokenHash)
    .where('second_factor_pending', '=', 1)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

/**
 * Ends a session that waits for the claim (keep or reset), in one conditional DELETE: of
 * concurrent answers, only one sees the row and is applied. Run inside the answer's transaction.
 */
export async function endPendingClaim(db: Kysely<Database>, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .deleteFrom('sessions')
    .where('token_hash', '=', tokenHash)
    .where('claim_pending', '=', 1)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

export function deleteSessionByHash(db: Kysely<Database>, tokenHash: string): Promise<unknown> {
  return db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/**
 * "Sign out everywhere": every session, unused sign-in link and pending change of address goes and
 * the JWT generation moves on, in one transaction, so no request can slip between them.
 */
export function revokeAllCredentials(db: Kysely<Database>, userId: string, now: string): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
    await voidPendingLinks(trx, userId);
    await trx
      .updateTable('users')
      .set((eb) => ({ jwt_generation: eb('jwt_generation', '+', 1), updated_at: now }))
      .where('id', '=', userId)
      .execute();
  });
}

/**
 * "Sign out everywhere else", for a change of credentials (a new password, a claim's reset): every
 * session but `keepSessionId`, every unused sign-in link and a pending change of address go and the
 * JWT generation moves on, in one transaction with `alongside` (the change itself), so the new
 * password and the revocation land together or not at all.
 */
export function revokeOtherCredentials(
  db: Kysely<Database>,
  userId: string,
  keepSessionId: string | null,
  now: string,
  alongside: (trx: Kysely<Database>) => Promise<unknown>,
): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await alongside(trx);
    let others = trx.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepSessionId !== null) others = others.where('id', '!=', keepSessionId);
    await others.execute();
    await voidPendingLinks(trx, userId);
    await trx
      .updateTable('users')
      .set((eb) => ({ jwt_generation: eb('jwt_generation', '+', 1), updated_at: now }))
      .where('id', '=', userId)
      .execute();
  });
}

/**
 * Whether the user has a second factor: TOTP turned on, or a passkey (which proves possession and
 * the person's PIN or biometric at once). Read when a workspace of theirs requires one.
 */
export async function hasSecondFactor(db: Kysely<Database>, userId: string): Promise<boolean> {
  const [totp, passkey] = await Promise.all([
    db.selectFrom('user_totp').select('user_id').where('user_id', '=', userId).where('enabled_at', 'is not', null).executeTakeFirst(),
    db.selectFrom('passkeys').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst(),
  ]);
  return totp !== undefined || passkey !== undefined;
}

/** What a one-time token is for: each is redeemed only for its own purpose. */
export const MAGIC_LINK_PURPOSE = 'magic_link';
export const EMAIL_VERIFICATION_PURPOSE = 'email_verification';
export const EMAIL_CHANGE_PURPOSE = 'email_change';

/**
 * Links not yet used go with the credentials they could replace. A sign-in link mailed before a
 * password change or "sign out everywhere" (to a mailbox read by an intruder, or still lying in
 * one) must not open a session afterwards; and a change of address asked for by a thief holding a
 * fresh session must not complete once the owner has ended that session's hold, or the thief
 * confirms it from their own mailbox and owns the account.
 */
export function voidPendingLinks(trx: Kysely<Database>, userId: string): Promise<unknown> {
  return trx
    .deleteFrom('one_time_tokens')
    .where('user_id', '=', userId)
    .where('purpose', 'in', [MAGIC_LINK_PURPOSE, EMAIL_CHANGE_PURPOSE])
    .where('used_at', 'is', null)
    .execute();
}

export function insertOneTimeToken(db: Kysely<Database>, row: Insertable<OneTimeTokensTable>): Promise<unknown> {
  return db.insertInto('one_time_tokens').values(row).execute();
}

/** The token with this hash in whatever state (used, expired), for saying why it was refused. */
export function findOneTimeToken(db: Kysely<Database>, tokenHash: string): Promise<Pick<OneTimeTokenRow, 'user_id' | 'purpose' | 'used_at' | 'expires_at'> | undefined> {
  return db.selectFrom('one_time_tokens').select(['user_id', 'purpose', 'used_at', 'expires_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** A token that can still be redeemed for the purpose, without redeeming it. */
export function findRedeemableToken(db: Kysely<Database>, purpose: string, tokenHash: string, now: string): Promise<OneTimeTokenRow | undefined> {
  return db
    .selectFrom('one_time_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Redeems in one conditional UPDATE: of any number of concurrent attempts, exactly one sees the
 * row still unused and gets the user id back; the rest get nothing.
 */
export async function redeemToken(db: Kysely<Database>, purpose: string, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

/** Drops tokens and sessions that ended more than a day ago. */
export async function pruneExpired(db: Kysely<Database>, before: string): Promise<void> {
  await db.deleteFrom('one_time_tokens').where('expires_at', '<', before).execute();
  await db.deleteFrom('sessions').where('expires_at', '<', before).execute();
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
      'access_tokens.workspace_id',
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
    workspace_id: row.workspace_id,
  };
  return { token, user: userFromJoin(row) };
}

const lastUseOfToken = new PreparedQuery((db, p: { id: string; usedAt: string }) =>
  db.updateTable('access_tokens').set({ last_used_at: p.usedAt }).where('id', '=', p.id),
);

/** Records use (access-token-last-use.ts writes it, at most once a minute per token). */
export function touchAccessToken(db: Kysely<Database>, id: string, usedAt: string): Promise<unknown> {
  return lastUseOfToken.execute(db, { id, usedAt });
}
