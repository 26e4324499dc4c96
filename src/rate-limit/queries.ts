import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Counts one attempt against the key in one atomic statement, opening a new window when the old
 * one opened at or before `windowOpenedBefore`; the count and window after this attempt.
 */
export async function countAttempt(db: Kysely<Database>, key: string, now: number, windowOpenedBefore: number): Promise<{ count: number; windowStart: number }> {
  const row = await db
    .insertInto('rate_limits')
    .values({ key, window_start: now, count: 1 })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet({
        count: sql<number>`case when rate_limits.window_start <= ${windowOpenedBefore} then 1 else rate_limits.count + 1 end`,
        window_start: sql<number>`case when rate_limits.window_start <= ${windowOpenedBefore} then ${now} else rate_limits.window_start end`,
      }),
    )
    .returning(['count', 'window_start'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), windowStart: Number(row.window_start) };
}

/** Gives back one counted attempt, in the window it was counted in (never a later one). */
export async function uncountAttempt(db: Kysely<Database>, key: string, windowStart: number): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('key', '=', key)
    .where('window_start', '=', windowStart)
    .where('count', '>', 0)
    .execute();
}

export async function deleteWindowsBefore(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
}
