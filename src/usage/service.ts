import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { SiteCaller } from '../sites/queries.js';
import type { SiteService } from '../sites/service.js';
import { HOURLY_RETENTION_DAYS, LIVE_REPORT_MAX_AGE_MS } from './counter.js';
import { seriesToJson, workspaceUsageToJson } from './presenter.js';
import { liveStreams, siteIdsOfWorkspaces, siteUsageTotals, type UsageGranularity, usageOrigins, usageSeries } from './queries.js';
import type { SiteUsageJson, WorkspaceUsageJson } from './schema.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const UNIT_MS: Record<UsageGranularity, number> = { hour: HOUR_MS, day: DAY_MS };
/** How far back a span may reach, and how long it may be: what is kept of each grain. */
const MAX_SPAN_DAYS: Record<UsageGranularity, number> = { hour: HOURLY_RETENTION_DAYS, day: 400 };
/** Buckets shown when `from` is left out: the last 24 hours, or 30 days, the current one included. */
const DEFAULT_BUCKETS: Record<UsageGranularity, number> = { hour: 24, day: 30 };
const ORIGINS_SHOWN = 20;
/** The days of `loads_by_day`: the sites list's sparkline, today's included. */
const WEEK_DAYS = 7;

export interface SiteUsageQuery {
  from?: string;
  to?: string;
  granularity?: UsageGranularity;
}

/** What reached the public path: one site's buckets over a span, and the sites of workspaces at a glance. */
export class UsageService {
  constructor(private readonly deps: { db: Kysely<Database>; clock: Clock; sites: SiteService }) {}

  /** A site the caller may read (viewer and above; another workspace's site is 404): its buckets, origins and visitors now. */
  async siteUsage(caller: SiteCaller, siteId: string, query: SiteUsageQuery): Promise<SiteUsageJson> {
    await this.deps.sites.getFor(caller, siteId, 'site.read');
    const granularity = query.granularity ?? 'hour';
    const unit = UNIT_MS[granularity];
    const now = this.deps.clock.now().getTime();
    const to = query.to === undefined ? now : parseTime(query.to, '/to');
    const from = query.from === undefined ? to - (to % unit) - (DEFAULT_BUCKETS[granularity] - 1) * unit : parseTime(query.from, '/from');
    if (from > to) throw validationError([{ path: '/from', message: 'must not be after to' }]);
    if (to - from > MAX_SPAN_DAYS[granularity] * DAY_MS) {
      throw validationError([{ path: '/from', message: `the span must be at most ${MAX_SPAN_DAYS[granularity]} days by ${granularity}` }]);
    }
    const first = from - (from % unit);
    const count = (to - (to % unit) - first) / unit + 1;
    const firstIso = new Date(first).toISOString();
    const endIso = new Date(first + count * unit).toISOString();
    // One snapshot: a server writes its loads and their origins in one transaction, and read in
    // statements of their own on PostgreSQL, the series could show a write whose origins it misses.
    return this.deps.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const rows = await usageSeries(trx, siteId, granularity, firstIso, endIso);
        const origins = await usageOrigins(trx, siteId, granularity, firstIso, endIso, ORIGINS_SHOWN);
        const live = await liveStreams(trx, [siteId], new Date(now - LIVE_REPORT_MAX_AGE_MS).toISOString());
        return { series: seriesToJson(rows, first, count, unit), origins, live_streams: live.get(siteId) ?? 0 };
      });
  }

  /** Every live site of these workspaces (their membership checked by the caller): loads of the last day and week, by day too, last load, visitors now. */
  async workspaceUsage(workspaceIds: readonly string[]): Promise<WorkspaceUsageJson> {
    const siteIds = await siteIdsOfWorkspaces(this.deps.db, workspaceIds);
    const now = this.deps.clock.now().getTime();
    const hour = now - (now % HOUR_MS);
    const firstDay = now - (now % DAY_MS) - (WEEK_DAYS - 1) * DAY_MS;
    const [totals, live] = await Promise.all([
      siteUsageTotals(this.deps.db, siteIds, new Date(hour - 23 * HOUR_MS).toISOString(), new Date(hour - (7 * 24 - 1) * HOUR_MS).toISOString(), new Date(firstDay).toISOString()),
      liveStreams(this.deps.db, siteIds, new Date(now - LIVE_REPORT_MAX_AGE_MS).toISOString()),
    ]);
    return workspaceUsageToJson(siteIds, totals, live, firstDay, WEEK_DAYS);
  }
}

/** A date, or a date and time with an optional offset: what toISOString writes and what people type. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

function parseTime(value: string, path: string): number {
  const time = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw validationError([{ path, message: 'must be an ISO 8601 date-time' }]);
  return time;
}
