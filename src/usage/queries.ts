import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/** One site's counts of one hour, as one app server adds them to what is stored. */
export interface UsageIncrement {
  siteId: string;
  /** The hour's start, ISO 8601. */
  hour: string;
  /** The start of the hour's UTC day, ISO 8601. */
  day: string;
  loads: number;
  notModified: number;
  streamsOpened: number;
  /** How much this server's most open streams in the hour grew since it last wrote it. */
  peakAdded: number;
  /** When this server last answered a configuration of the site in the hour; null when it did not since its last write. */
  lastLoadedAt: string | null;
  /** Loads per page origin. */
  origins: ReadonlyMap<string, number>;
  /** When the origins' loads were seen, at the latest. */
  seenAt: string;
}

export type UsageGranularity = 'hour' | 'day';

/** Rows in one statement: well below either database's bound on parameters. */
const ROWS_PER_STATEMENT = 200;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/** Of these site ids, those of sites that exist: counts of a site deleted since are dropped. */
export async function existingSiteIds(trx: Transaction<Database>, siteIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(siteIds, 500)) {
    const rows = await trx.selectFrom('sites').select('id').where('id', 'in', part).execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

// Times are ISO 8601 in UTC, which sort as text; one CASE for both databases (SQLite's max() is
// PostgreSQL's greatest()). A null on one side keeps the other.
function laterOf(table: 'usage_hourly' | 'usage_daily' | 'usage_origins_hourly' | 'usage_origins_daily', column: 'last_loaded_at' | 'last_seen') {
  return sql<string>`case when ${sql.ref(`${table}.${column}`)} is null or ${sql.ref(`excluded.${column}`)} > ${sql.ref(`${table}.${column}`)} then coalesce(${sql.ref(`excluded.${column}`)}, ${sql.ref(`${table}.${column}`)}) else ${sql.ref(`${table}.${column}`)} end`;
}

/**
 * Adds one server's counts to the hourly and daily rows, in the caller's transaction. Counts add
 * up; the most open streams of the hour add up over the servers (each adds how far its own grew),
 * and the day's is its busiest hour's.
 */
export async function addUsage(trx: Transaction<Database>, increments: readonly UsageIncrement[]): Promise<void> {
  const days = new Map<string, { siteId: string; day: string; loads: number; notModified: number; streamsOpened: number; lastLoadedAt: string | null }>();
  const hourOrigins: Array<{ site_id: string; at: string; origin: string; loads: number; last_seen: string }> = [];
  const dayOrigins = new Map<string, { site_id: string; at: string; origin: string; loads: number; last_seen: string }>();
  for (const increment of increments) {
    const key = `${increment.siteId} ${increment.day}`;
    const day = days.get(key) ?? { siteId: increment.siteId, day: increment.day, loads: 0, notModified: 0, streamsOpened: 0, lastLoadedAt: null };
    day.loads += increment.loads;
    day.notModified += increment.notModified;
    day.streamsOpened += increment.streamsOpened;
    if (increment.lastLoadedAt !== null && (day.lastLoadedAt === null || increment.lastLoadedAt > day.lastLoadedAt)) day.lastLoadedAt = increment.lastLoadedAt;
    days.set(key, day);
    for (const [origin, loads] of increment.origins) {
      hourOrigins.push({ site_id: increment.siteId, at: increment.hour, origin, loads, last_seen: increment.seenAt });
      const originKey = `${key} ${origin}`;
      const known = dayOrigins.get(originKey);
      if (known === undefined) dayOrigins.set(originKey, { site_id: increment.siteId, at: increment.day, origin, loads, last_seen: increment.seenAt });
      else {
        known.loads += loads;
        if (increment.seenAt > known.last_seen) known.last_seen = increment.seenAt;
      }
    }
  }

  for (const part of chunks(increments, ROWS_PER_STATEMENT)) {
    await trx
      .insertInto('usage_hourly')
      .values(
        part.map((row) => ({
          site_id: row.siteId,
          at: row.hour,
          loads: row.loads,
          not_modified: row.notModified,
          streams_opened: row.streamsOpened,
          peak_streams: row.peakAdded,
          last_loaded_at: row.lastLoadedAt,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['site_id', 'at']).doUpdateSet({
          loads: sql`usage_hourly.loads + excluded.loads`,
          not_modified: sql`usage_hourly.not_modified + excluded.not_modified`,
          streams_opened: sql`usage_hourly.streams_opened + excluded.streams_opened`,
          peak_streams: sql`usage_hourly.peak_streams + excluded.peak_streams`,
          last_loaded_at: laterOf('usage_hourly', 'last_loaded_at'),
        }),
      )
      .execute();
  }
  for (const part of chunks([...days.values()], ROWS_PER_STATEMENT)) {
    await trx
      .insertInto('usage_daily')
      .values(part.map((row) => ({ site_id: row.siteId, at: row.day, loads: row.loads, not_modified: row.notModified, streams_opened: row.streamsOpened, peak_streams: 0, last_loaded_at: row.lastLoadedAt })))
      .onConflict((conflict) =>
        conflict.columns(['site_id', 'at']).doUpdateSet({
          loads: sql`usage_daily.loads + excluded.loads`,
          not_modified: sql`usage_daily.not_modified + excluded.not_modified`,
          streams_opened: sql`usage_daily.streams_opened + excluded.streams_opened`,
          last_loaded_at: laterOf('usage_daily', 'last_loaded_at'),
        }),
      )
      .execute();
  }
  // The day's most open streams: its busiest hour's, once the hour has grown.
  for (const increment of increments) {
    if (increment.peakAdded <= 0) continue;
    await trx
      .updateTable('usage_daily')
      .set({
        peak_streams: (eb) =>
          eb
            .selectFrom('usage_hourly')
            .select((inner) => inner.fn.max<number>('usage_hourly.peak_streams').as('peak'))
            .where('usage_hourly.site_id', '=', increment.siteId)
            .where('usage_hourly.at', '>=', increment.day)
            .where('usage_hourly.at', '<', nextDay(increment.day)),
      })
      .where('site_id', '=', increment.siteId)
      .where('at', '=', increment.day)
      .execute();
  }
  for (const [table, rows] of [
    ['usage_origins_hourly', hourOrigins],
    ['usage_origins_daily', [...dayOrigins.values()]],
  ] as const) {
    for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
      await trx
        .insertInto(table)
        .values(part)
        .onConflict((conflict) =>
          conflict.columns(['site_id', 'at', 'origin']).doUpdateSet({
            loads: sql`${sql.ref(`${table}.loads`)} + excluded.loads`,
            last_seen: laterOf(table, 'last_seen'),
          }),
        )
        .execute();
    }
  }
}

function nextDay(day: string): string {
  return new Date(Date.parse(day) + 86_400_000).toISOString();
}

/** Deletes hourly rows older than `hourlyBefore` and daily rows older than `dailyBefore`, and live reports older than `liveBefore`. */
export async function pruneUsage(db: Kysely<Database>, bounds: { hourlyBefore: string; dailyBefore: string; liveBefore: string }): Promise<void> {
  await db.deleteFrom('usage_hourly').where('at', '<', bounds.hourlyBefore).execute();
  await db.deleteFrom('usage_origins_hourly').where('at', '<', bounds.hourlyBefore).execute();
  await db.deleteFrom('usage_daily').where('at', '<', bounds.dailyBefore).execute();
  await db.deleteFrom('usage_origins_daily').where('at', '<', bounds.dailyBefore).execute();
  await db.deleteFrom('usage_live_streams').where('reported_at', '<', bounds.liveBefore).execute();
}

/** Replaces one server's report of its open streams per site. */
export async function reportLiveStreams(db: Kysely<Database>, serverId: string, open: ReadonlyMap<string, number>, reportedAt: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('usage_live_streams').where('server_id', '=', serverId).execute();
    if (open.size === 0) return;
    // A site deleted since its streams opened has none to report.
    const existing = await existingSiteIds(trx, [...open.keys()]);
    const rows = [...open].filter(([siteId, count]) => count > 0 && existing.has(siteId)).map(([siteId, count]) => ({ server_id: serverId, site_id: siteId, open_streams: count, reported_at: reportedAt }));
    for (const part of chunks(rows, ROWS_PER_STATEMENT)) await trx.insertInto('usage_live_streams').values(part).execute();
  });
}

/** Forgets a server's report: it is stopping. */
export async function deleteLiveStreams(db: Kysely<Database>, serverId: string): Promise<void> {
  await db.deleteFrom('usage_live_streams').where('server_id', '=', serverId).execute();
}

/** Open streams per site over every server whose report is at `since` or later. */
export async function liveStreams(db: Kysely<Database>, siteIds: readonly string[], since: string): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  for (const part of chunks(siteIds, 500)) {
    const rows = await db
      .selectFrom('usage_live_streams')
      .select((eb) => ['site_id', eb.fn.sum<number | string>('open_streams').as('open')])
      .where('site_id', 'in', part)
      .where('reported_at', '>=', since)
      .groupBy('site_id')
      .execute();
    for (const row of rows) result.set(row.site_id, Number(row.open));
  }
  return result;
}

export interface UsageSeriesRow {
  at: string;
  loads: number;
  not_modified: number;
  streams_opened: number;
  peak_streams: number;
}

/** The stored buckets of a site from `from` (a bucket start) to before `to`, oldest first. */
export async function usageSeries(db: Kysely<Database>, siteId: string, granularity: UsageGranularity, from: string, to: string): Promise<UsageSeriesRow[]> {
  return db
    .selectFrom(granularity === 'hour' ? 'usage_hourly' : 'usage_daily')
    .select(['at', 'loads', 'not_modified', 'streams_opened', 'peak_streams'])
    .where('site_id', '=', siteId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .orderBy('at')
    .execute();
}

/** A site's loads per origin over the buckets from `from` to before `to`, most loads first. */
export async function usageOrigins(
  db: Kysely<Database>,
  siteId: string,
  granularity: UsageGranularity,
  from: string,
  to: string,
  limit: number,
): Promise<Array<{ origin: string; loads: number; last_seen: string }>> {
  const table = granularity === 'hour' ? 'usage_origins_hourly' : 'usage_origins_daily';
  const rows = await db
    .selectFrom(table)
    .select((eb) => ['origin', eb.fn.sum<number | string>('loads').as('loads'), eb.fn.max<string>('last_seen').as('last_seen')])
    .where('site_id', '=', siteId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .groupBy('origin')
    .orderBy(sql`sum(loads)`, 'desc')
    .orderBy('origin')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ origin: row.origin, loads: Number(row.loads), last_seen: row.last_seen }));
}

/** The live sites of these workspaces. */
export async function siteIdsOfWorkspaces(db: Kysely<Database>, workspaceIds: readonly string[]): Promise<string[]> {
  if (workspaceIds.length === 0) return [];
  const rows = await db.selectFrom('sites').select('id').where('workspace_id', 'in', workspaceIds).where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map((row) => row.id);
}

export interface SiteUsageTotals {
  loads24h: number;
  loads7d: number;
  lastLoadedAt: string | null;
  /** Loads of each UTC day from `sinceDay` on, by the day's start (ISO 8601); days with none are absent. */
  loadsByDay: Map<string, number>;
}

/**
 * Per site: loads in the hours from `since24h` and from `since7d`, loads of each UTC day from
 * `sinceDay`, and the last load of any kept day.
 */
export async function siteUsageTotals(db: Kysely<Database>, siteIds: readonly string[], since24h: string, since7d: string, sinceDay: string): Promise<Map<string, SiteUsageTotals>> {
  const result = new Map<string, SiteUsageTotals>();
  const totalsOf = (siteId: string): SiteUsageTotals => {
    let totals = result.get(siteId);
    if (totals === undefined) {
      totals = { loads24h: 0, loads7d: 0, lastLoadedAt: null, loadsByDay: new Map() };
      result.set(siteId, totals);
    }
    return totals;
  };
  for (const part of chunks(siteIds, 500)) {
    const hourly = await db
      .selectFrom('usage_hourly')
      .select((eb) => [
        'site_id',
        eb.fn.sum<number | string>(eb.case().when('at', '>=', since24h).then(eb.ref('loads')).else(0).end()).as('loads_24h'),
        eb.fn.sum<number | string>('loads').as('loads_7d'),
      ])
      .where('site_id', 'in', part)
      .where('at', '>=', since7d)
      .groupBy('site_id')
      .execute();
    for (const row of hourly) {
      const totals = totalsOf(row.site_id);
      totals.loads24h = Number(row.loads_24h);
      totals.loads7d = Number(row.loads_7d);
    }
    const last = await db
      .selectFrom('usage_daily')
      .select((eb) => ['site_id', eb.fn.max<string | null>('last_loaded_at').as('last_loaded_at')])
      .where('site_id', 'in', part)
      .groupBy('site_id')
      .execute();
    for (const row of last) totalsOf(row.site_id).lastLoadedAt = row.last_loaded_at;
    const days = await db.selectFrom('usage_daily').select(['site_id', 'at', 'loads']).where('site_id', 'in', part).where('at', '>=', sinceDay).execute();
    for (const row of days) totalsOf(row.site_id).loadsByDay.set(new Date(row.at).toISOString(), Number(row.loads));
  }
  return result;
}
