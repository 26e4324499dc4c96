import type { Kysely, Selectable, Transaction } from 'kysely';
import { type DialectName, withRowLock } from '../db/connect.js';
import type { Database, OidcAuthorizationRequestsTable, OidcPendingLinksTable, UserIdentitiesTable } from '../db/schema.js';

export type IdentityRow = Selectable<UserIdentitiesTable>;
export type AuthorizationRequestRow = Selectable<OidcAuthorizationRequestsTable>;
export type PendingLinkRow = Selectable<OidcPendingLinksTable>;

/** The identity that signs in, found by who the provider says the person is. */
export function findIdentityBySubject(db: Kysely<Database>, provider: string, subject: string): Promise<IdentityRow | undefined> {
  return db.selectFrom('user_identities').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
}

/** The user's identity at the provider, if any. */
export function findIdentityOf(db: Kysely<Database>, userId: string, provider: string): Promise<IdentityRow | undefined> {
  return db.selectFrom('user_identities').selectAll().where('user_id', '=', userId).where('provider', '=', provider).executeTakeFirst();
}

export function listIdentities(db: Kysely<Database>, userId: string): Promise<IdentityRow[]> {
  return db.selectFrom('user_identities').selectAll().where('user_id', '=', userId).orderBy('linked_at').orderBy('id').execute();
}

/**
 * Links an identity; resolves false when the identity is linked already (to anyone) or the user
 * already has one at the provider: the unique constraints decide, so concurrent links cannot both land.
 */
export async function insertIdentity(db: Kysely<Database>, row: IdentityRow): Promise<boolean> {
  const result = await db
    .insertInto('user_identities')
    .values(row)
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** A sign-in with the identity: when, and the address the provider gives now. */
export function touchIdentity(db: Kysely<Database>, id: string, email: string | null, now: string): Promise<unknown> {
  return db.updateTable('user_identities').set({ email, last_used_at: now }).where('id', '=', id).execute();
}

/** Unlinks the user's identity at the provider; the row it was, or undefined when there was none. */
export function deleteIdentity(trx: Transaction<Database>, userId: string, provider: string): Promise<IdentityRow | undefined> {
  return trx.deleteFrom('user_identities').where('user_id', '=', userId).where('provider', '=', provider).returningAll().executeTakeFirst();
}

/**
 * The user's row, locked until the transaction ends: changes to the ways into one account then run
 * one after the other (SQLite runs one transaction at a time anyway).
 */
export function lockUser(trx: Transaction<Database>, dialect: DialectName, userId: string): Promise<{ password_hash: string } | undefined> {
  return withRowLock(dialect, trx.selectFrom('users').select('password_hash').where('id', '=', userId), 'no key update').executeTakeFirst();
}

/** How many passkeys and identities (other than at `exceptProvider`) sign in to the account. */
export async function countOtherWaysIn(trx: Transaction<Database>, userId: string, exceptProvider: string): Promise<{ passkeys: number; identities: number }> {
  const passkeys = await trx.selectFrom('passkeys').select((eb) => eb.fn.countAll<string | number>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  const identities = await trx
    .selectFrom('user_identities')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('user_id', '=', userId)
    .where('provider', '!=', exceptProvider)
    .executeTakeFirstOrThrow();
  return { passkeys: Number(passkeys.count), identities: Number(identities.count) };
}

export function insertAuthorizationRequest(db: Kysely<Database>, row: AuthorizationRequestRow): Promise<unknown> {
  return db.insertInto('oidc_authorization_requests').values(row).execute();
}

/**
 * Uses the authorization request in one conditional DELETE: only the browser that started it, for
 * its provider and before it expires, gets it, and of concurrent callbacks (a replay) only one.
 */
export function consumeAuthorizationRequest(
  db: Kysely<Database>,
  request: { provider: string; stateHash: string; browserHash: string; now: string },
): Promise<AuthorizationRequestRow | undefined> {
  return db
    .deleteFrom('oidc_authorization_requests')
    .where('state_hash', '=', request.stateHash)
    .where('provider', '=', request.provider)
    .where('browser_hash', '=', request.browserHash)
    .where('expires_at', '>', request.now)
    .returningAll()
    .executeTakeFirst();
}

/** Authorization requests nobody finished, once they have expired. */
export async function pruneAuthorizationRequests(db: Kysely<Database>, before: string): Promise<void> {
  await db.deleteFrom('oidc_authorization_requests').where('expires_at', '<', before).execute();
}

export function insertPendingLink(db: Kysely<Database>, row: PendingLinkRow): Promise<unknown> {
  return db.insertInto('oidc_pending_links').values(row).execute();
}

export function findPendingLink(db: Kysely<Database>, sessionId: string): Promise<PendingLinkRow | undefined> {
  return db.selectFrom('oidc_pending_links').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
}
