import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SiteRow } from '../sites/queries.js';

/**
 * One page of every user's sites, in id order after `afterId`. The periodic re-check is the one
 * caller that acts for no particular user, so this is the one site query not scoped by owner; it
 * never answers a request.
 */
export function listAllSitesPage(db: Kysely<Database>, limit: number, afterId: string | undefined): Promise<SiteRow[]> {
  let query = db.selectFrom('sites').selectAll();
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(limit).execute();
}

/**
 * Claims the periodic re-check of one site for this process until `now + intervalMs`. Several app
 * servers run the same timer; the claim is one conditional upsert, so exactly one of them wins and
 * the partner is not called once per server. The row lives in rate_limits, the table for shared
 * time windows, under its own key prefix.
 */
export async function claimPeriodicCheck(db: Kysely<Database>, siteId: string, now: number, intervalMs: number): Promise<boolean> {
  const result = await db
    .insertInto('rate_limits')
    .values({ key: `partner-recheck:site:${siteId}`, window_start: now, count: 1 })
    .onConflict((conflict) =>
      conflict
        .column('key')
        .doUpdateSet({ window_start: now, count: 1 })
        .where('rate_limits.window_start', '<=', now - intervalMs),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}
