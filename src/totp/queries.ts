import type { Kysely, Selectable } from 'kysely';
import type { Database, RecoveryCodesTable, UserTotpTable } from '../db/schema.js';

export type UserTotpRow = Selectable<UserTotpTable>;
export type RecoveryCodeRow = Selectable<RecoveryCodesTable>;

export function findUserTotp(db: Kysely<Database>, userId: string): Promise<UserTotpRow | undefined> {
  return db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Stores a new pending secret, replacing an earlier unconfirmed one; never touches an enabled row. */
export function savePendingSecret(db: Kysely<Database>, userId: string, encryptedSecret: string, now: string): Promise<unknown> {
  return db
    .insertInto('user_totp')
    .values({ user_id: userId, secret: null, pending_secret: encryptedSecret, enabled_at: null, last_used_step: null, updated_at: now })
    .onConflict((conflict) =>
      conflict
        .column('user_id')
        .doUpdateSet({ pending_secret: encryptedSecret, updated_at: now })
        .where('user_totp.enabled_at', 'is', null),
    )
    .execute();
}

/**
 * Turns TOTP on with the pending secret the caller checked the code against, recording that code's
 * step as used, and stores the first recovery codes, all in one transaction. The conditional
 * UPDATE makes concurrent enables (or an enable racing a new setup) land at most once.
 */
export function enableTotp(
  db: Kysely<Database>,
  input: { userId: string; pendingSecret: string; step: number; now: string; recoveryCodes: RecoveryCodeRow[] },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('user_totp')
      .set({ secret: input.pendingSecret, pending_secret: null, enabled_at: input.now, last_used_step: input.step, updated_at: input.now })
      .where('user_id', '=', input.userId)
      .where('enabled_at', 'is', null)
      .where('pending_secret', '=', input.pendingSecret)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx.deleteFrom('recovery_codes').where('user_id', '=', input.userId).execute();
    await trx.insertInto('recovery_codes').values(input.recoveryCodes).execute();
    return true;
  });
}

/**
 * Accepts a time step at most once, in one conditional UPDATE: it succeeds only while the step is
 * later than every step accepted before, so a code cannot be replayed, not even by two app servers
 * receiving it at the same moment. `secret` pins the secret the code was checked against.
 */
export async function acceptTimeStep(db: Kysely<Database>, userId: string, secret: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('user_totp')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is not', null)
    .where('secret', '=', secret)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Uses a recovery code at most once: of concurrent attempts, one sees it unused. `codeHashes` are
 * the code's possible stored forms (keyed, and the legacy one an older server may still write).
 */
export async function useRecoveryCode(db: Kysely<Database>, userId: string, codeHashes: string[], now: string): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', 'in', codeHashes)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) >= 1;
}

const UPGRADE_PAGE_SIZE = 500;

/**
 * Rewrites every recovery code digest stored as a plain SHA-256 into its keyed form. Run at
 * start-up, where the key is known (a migration sees only the database). Each row is rewritten by
 * a conditional UPDATE on its old value, so servers starting together convert each row once, and
 * a row already converted is not selected again. Returns the number of rows converted here.
 */
export async function upgradeLegacyRecoveryCodes(db: Kysely<Database>, keyed: (sha256Hex: string) => string, keyedPrefix: string): Promise<number> {
  let converted = 0;
  let afterId = '';
  for (;;) {
    const page = await db
      .selectFrom('recovery_codes')
      .select(['id', 'code_hash'])
      .where('code_hash', 'not like', `${keyedPrefix}%`)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(UPGRADE_PAGE_SIZE)
      .execute();
    for (const row of page) {
      try {
        const result = await db.updateTable('recovery_codes').set({ code_hash: keyed(row.code_hash) }).where('id', '=', row.id).where('code_hash', '=', row.code_hash).executeTakeFirst();
        converted += Number(result.numUpdatedRows);
      } catch {
        // Only a row whose keyed form the user already has (a hand-edited table) fails here, on
        // the unique index. It stays as it is, redeemable through its legacy form: no server
        // should fail to start over one recovery code.
      }
    }
    const last = page.at(-1);
    if (page.length < UPGRADE_PAGE_SIZE || last === undefined) return converted;
    afterId = last.id;
  }
}

export async function countUnusedRecoveryCodes(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('remaining'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.remaining);
}

/** A new set of recovery codes; every earlier code, used or not, stops working in the same step. */
export function replaceRecoveryCodes(db: Kysely<Database>, userId: string, codes: RecoveryCodeRow[]): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await trx.insertInto('recovery_codes').values(codes).execute();
  });
}

/**
 * Turns TOTP off: the secret, the recovery codes, and any sign-in still waiting for a second
 * factor (it could never finish now) go together.
 */
export function disableTotp(db: Kysely<Database>, userId: string): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await trx.deleteFrom('sessions').where('user_id', '=', userId).where('second_factor_pending', '=', 1).execute();
  });
}
