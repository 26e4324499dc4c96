import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, PartnerChecksTable } from '../db/schema.js';
import type { SiteRow } from '../sites/queries.js';
import type { PartnerCheckJson } from './schema.js';

/**
 * One page of every workspace's sites, in id order after `afterId`. The periodic re-check is the
 * one caller that acts for no particular user, so this is the one site query not scoped by a
 * membership; it never answers a request.
 */
export function listAllSitesPage(db: Kysely<Database>, limit: number, afterId: string | undefined): Promise<SiteRow[]> {
  // Sites in the trash are not checked: nobody is using them.
  let query = db.selectFrom('sites').selectAll().where('deleted_at', 'is', null);
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

export type PartnerCheckRow = Selectable<PartnerChecksTable>;

/**
 * Records one check of a site and deletes the ones past the newest `keep`, in the transaction
 * that holds the site's row lock (recordPartnerCheck in check-recording.ts): checks of one site are thus
 * recorded one at a time, so the next seq is read and written without a race.
 */
export async function insertPartnerCheck(trx: Transaction<Database>, siteId: string, check: PartnerCheckJson, keep: number): Promise<void> {
  const last = await trx.selectFrom('partner_checks').select((eb) => eb.fn.max('seq').as('seq')).where('site_id', '=', siteId).executeTakeFirst();
  const seq = Number(last?.seq ?? 0) + 1;
  await trx
    .insertInto('partner_checks')
    .values({
      site_id: siteId,
      seq,
      checked_at: check.at,
      status: check.status,
      category: check.category,
      message: check.message,
      duration_ms: check.duration_ms,
      protocol_version: check.protocol_version,
      server_name: check.server?.name ?? null,
      server_version: check.server?.version ?? null,
      tool_count: check.tool_count,
      tools: JSON.stringify(check.tools),
    })
    .execute();
  await trx.deleteFrom('partner_checks').where('site_id', '=', siteId).where('seq', '<=', seq - keep).execute();
}

/**
 * A site's recorded checks, newest first. The caller's membership of the workspace the site was
 * read in is in the WHERE: a site of another workspace, or one moved since, has none.
 */
export function listPartnerChecks(db: Kysely<Database>, userId: string, workspaceId: string, siteId: string, limit: number): Promise<PartnerCheckRow[]> {
  return db
    .selectFrom('partner_checks')
    .innerJoin('sites', 'sites.id', 'partner_checks.site_id')
    .innerJoin('workspace_members as member', (join) => join.onRef('member.workspace_id', '=', 'sites.workspace_id').on('member.user_id', '=', userId))
    .where('sites.workspace_id', '=', workspaceId)
    .where('sites.deleted_at', 'is', null)
    .selectAll('partner_checks')
    .where('partner_checks.site_id', '=', siteId)
    .orderBy('partner_checks.seq', 'desc')
    .limit(limit)
    .execute();
}
