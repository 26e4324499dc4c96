import type { Kysely } from 'kysely';
import { NO_PASSWORD } from '../passwords/passwords.js';
import { EMAIL_VERIFICATION_PURPOSE, redeemToken } from '../auth/queries.js';
import type { Database } from '../db/schema.js';

/** Marks the address verified; resolves true when it was not before (the first proof counts). */
export async function markEmailVerified(db: Kysely<Database>, userId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ email_verified_at: now, updated_at: now })
    .where('id', '=', userId)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Redeems a verification link and marks the address verified in one transaction: the conditional
 * UPDATE of the token lets exactly one of concurrent attempts through.
 */
export function redeemVerificationToken(db: Kysely<Database>, tokenHash: string, now: string): Promise<{ userId: string; newlyVerified: boolean } | undefined> {
  return db.transaction().execute(async (trx) => {
    const userId = await redeemToken(trx, EMAIL_VERIFICATION_PURPOSE, tokenHash, now);
    if (userId === undefined) return undefined;
    return { userId, newlyVerified: await markEmailVerified(trx, userId, now) };
  });
}

/** Whether the account holds a sign-in credential besides its password: passkeys, TOTP, access tokens or linked identities. */
export async function hasOtherCredentials(db: Kysely<Database>, userId: string): Promise<boolean> {
  const [passkey, totp, accessToken, identity] = await Promise.all([
    db.selectFrom('passkeys').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst(),
    db.selectFrom('user_totp').select('user_id').where('user_id', '=', userId).where('enabled_at', 'is not', null).executeTakeFirst(),
    db.selectFrom('access_tokens').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst(),
    db.selectFrom('user_identities').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst(),
  ]);
  return passkey !== undefined || totp !== undefined || accessToken !== undefined || identity !== undefined;
}

/**
 * The reset of a claimed account, inside the transaction that also ends its sessions, JWTs and
 * sign-in links (revokeOtherCredentials): the password no longer signs in, and every credential
 * anyone set up before the mailbox holder came is gone, identities at sign-in providers included.
 */
export async function resetAccountCredentials(trx: Kysely<Database>, userId: string, now: string): Promise<void> {
  await trx.updateTable('users').set({ password_hash: NO_PASSWORD, email_verified_at: now, updated_at: now }).where('id', '=', userId).execute();
  await trx.deleteFrom('access_tokens').where('user_id', '=', userId).execute();
  await trx.deleteFrom('passkeys').where('user_id', '=', userId).execute();
  await trx.deleteFrom('webauthn_challenges').where('user_id', '=', userId).execute();
  await trx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await trx.deleteFrom('user_identities').where('user_id', '=', userId).execute();
  await trx.deleteFrom('one_time_tokens').where('user_id', '=', userId).where('used_at', 'is', null).execute();
}
