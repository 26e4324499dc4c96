import type { Kysely } from 'kysely';
import { EMAIL_CHANGE_PURPOSE, EMAIL_VERIFICATION_PURPOSE, insertOneTimeToken, MAGIC_LINK_PURPOSE, type OneTimeTokenRow } from '../auth/queries.js';
import type { Database } from '../db/schema.js';
import type { UserRow } from '../users/queries.js';

/** Sets the display name; the updated row, scoped by the owner. */
export function updateUserName(db: Kysely<Database>, userId: string, name: string, now: string): Promise<UserRow | undefined> {
  return db.updateTable('users').set({ name, updated_at: now }).where('id', '=', userId).returningAll().executeTakeFirst();
}

/** Whether another account already signs in with the address. */
export async function isEmailTakenByOther(db: Kysely<Database>, email: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('email', '=', email).where('id', '!=', userId).executeTakeFirst();
  return row !== undefined;
}

/**
 * Stores a new pending change and drops the older ones in one transaction: only the latest link
 * works, so a link mailed to a mistyped address dies with the corrected request.
 */
export function replacePendingChange(db: Kysely<Database>, row: OneTimeTokenRow): Promise<void> {
  return db.transaction().execute(async (trx) => {
    // Takes the user's row lock first (PostgreSQL; SQLite runs one writer at a time anyway), so
    // concurrent requests queue here and the last one leaves the only pending link.
    await trx.updateTable('users').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', row.user_id).execute();
    await cancelPendingChanges(trx, row.user_id);
    await insertOneTimeToken(trx, row);
  });
}

/** Withdraws every pending change of the account; resolves true when there was one. */
export async function cancelPendingChanges(db: Kysely<Database>, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('one_time_tokens').where('user_id', '=', userId).where('purpose', '=', EMAIL_CHANGE_PURPOSE).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The account's change still waiting for its link, if any. */
export function findPendingChange(db: Kysely<Database>, userId: string, now: string): Promise<{ new_email: string | null; expires_at: string } | undefined> {
  return db
    .selectFrom('one_time_tokens')
    .select(['new_email', 'expires_at'])
    .where('user_id', '=', userId)
    .where('purpose', '=', EMAIL_CHANGE_PURPOSE)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export type CompletedChange = { outcome: 'changed'; previous: UserRow; user: UserRow } | { outcome: 'taken'; newEmail: string };

/** Thrown inside the transaction to roll the redemption back: the link stays as it was. */
class AddressTaken extends Error {
  constructor(readonly newEmail: string) {
    super('address taken');
  }
}

/** A unique-constraint failure of SQLite or PostgreSQL: another account took the address first. */
function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = String(error.code);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Uses an address-change link and applies it, in one transaction: the conditional UPDATE of the
 * token lets one of concurrent attempts through; the account takes the new address, now proved
 * by its holder, and every link still waiting (sign-in links and confirmations mailed to the old
 * address, other pending changes) is voided with it. When another account holds the address by
 * now, nothing changes, the link included. Undefined when the link cannot be used.
 */
export async function completeEmailChange(db: Kysely<Database>, tokenHash: string, now: string): Promise<CompletedChange | undefined> {
  try {
    return await db.transaction().execute(async (trx) => {
      const token = await trx
        .updateTable('one_time_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', EMAIL_CHANGE_PURPOSE)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['user_id', 'new_email'])
        .executeTakeFirst();
      if (token === undefined || token.new_email === null) return undefined;
      const newEmail = token.new_email;
      const previous = await trx.selectFrom('users').selectAll().where('id', '=', token.user_id).executeTakeFirst();
      if (previous === undefined) return undefined;
      if (await isEmailTakenByOther(trx, newEmail, previous.id)) throw new AddressTaken(newEmail);
      let user: UserRow | undefined;
      try {
        user = await trx
          .updateTable('users')
          .set({ email: newEmail, email_verified_at: now, updated_at: now })
          .where('id', '=', previous.id)
          .returningAll()
          .executeTakeFirst();
      } catch (error) {
        if (isUniqueViolation(error)) throw new AddressTaken(newEmail);
        throw error;
      }
      if (user === undefined) return undefined;
      await trx
        .deleteFrom('one_time_tokens')
        .where('user_id', '=', user.id)
        .where('purpose', 'in', [MAGIC_LINK_PURPOSE, EMAIL_VERIFICATION_PURPOSE, EMAIL_CHANGE_PURPOSE])
        .where('used_at', 'is', null)
        .execute();
      return { outcome: 'changed' as const, previous, user };
    });
  } catch (error) {
    if (error instanceof AddressTaken) return { outcome: 'taken', newEmail: error.newEmail };
    throw error;
  }
}
