import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { BackgroundJob } from '../background/jobs.js';
import type { Database } from '../db/schema.js';
import { pageOrigin } from '../delivery/origins.js';
import type { Clock } from '../lib/clock.js';
import { addUsage, deleteLiveStreams, existingSiteIds, pruneUsage, reportLiveStreams, type UsageIncrement } from './queries.js';

export interface UsageOptions {
  /** How often the counts are written. What a server killed without warning counted since its last write is lost. */
  flushIntervalMs: number;
  /** How often each server reports its open streams; a report is read for LIVE_REPORT_MAX_AGE_MS. */
  liveReportIntervalMs: number;
  /** Days the daily rows are kept (USAGE_RETENTION_DAYS). */
  retentionDays: number;
}

export const DEFAULT_USAGE_OPTIONS: UsageOptions = { flushIntervalMs: 30_000, liveReportIntervalMs: 5000, retentionDays: 400 };

/** A server's report of its open streams older than this is not read: the server stopped, or cannot write. */
export const LIVE_REPORT_MAX_AGE_MS = 15_000;
/** Days the hourly rows are kept. */
export const HOURLY_RETENTION_DAYS = 14;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** Distinct origins held between two writes; loads from more are counted without their origin (a flood of made-up Origin headers). */
const PENDING_ORIGINS_LIMIT = 10_000;

/** What the hot path counts for a site in one hour: plain numbers, and its origins once it has any. */
interface SiteCounts {
  loads: number;
  notModified: number;
  streamsOpened: number;
  /** Whether a configuration was answered: its time is the write's, not read per request. */
  loaded: boolean;
  origins: Map<string, number> | undefined;
}

/** One hour's counts not yet written, and the most streams open at once in it on this server. */
interface HourCounts {
  readonly start: number;
  sites: Map<string, SiteCounts>;
  /** Site id → most streams open at once in the hour on this server. */
  readonly peaks: Map<string, number>;
  /** Site id → the most already added to the stored row. */
  readonly peaksWritten: Map<string, number>;
}

/** Process-wide totals since start, for Prometheus: no site in them. */
export interface UsageTotals {
  loads: number;
  notModified: number;
  streamsOpened: number;
}

/**
 * What reaches the public path, per site and hour (docs/deployment.md, "Usage"). Counted in
 * memory as answers are sent: a Map lookup and an increment, nothing written per request. Every
 * `flushIntervalMs`, and when the server closes, the counts are added to the stored rows in one
 * transaction, so servers sharing a database add up. Every `liveReportIntervalMs` the server
 * replaces its report of its open streams per site; on close it deletes it.
 *
 * A server killed without warning loses what it counted since its last write (at most
 * `flushIntervalMs`); its last report of open streams is not read once 15 s old.
 */
export class UsageCounter implements BackgroundJob {
  /** This process's name in the reports of open streams. */
  readonly serverId = randomUUID();
  readonly totals: UsageTotals = { loads: 0, notModified: 0, streamsOpened: 0 };
  #current: HourCounts;
  /** Hours ended whose counts are not written yet (a write failed, or is under way). */
  #ended: HourCounts[] = [];
  #pendingOrigins = 0;
  #writing: Promise<void> = Promise.resolve();
  #reporting: Promise<void> = Promise.resolve();
  #lastPrunedHour = -1;
  #flushTimer: NodeJS.Timeout | undefined;
  #reportTimer: NodeJS.Timeout | undefined;
  #hourTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      /** Open event streams per site in this process now (src/delivery/streams.ts). */
      openStreams: () => ReadonlyMap<string, number>;
      onError: (error: unknown) => void;
    },
    private readonly options: UsageOptions,
  ) {
    this.#current = this.#hourCounts(this.#hourStart());
  }

  start(): void {
    this.#flushTimer = setInterval(() => void this.flush().catch(this.deps.onError), this.options.flushIntervalMs).unref();
    this.#reportTimer = setInterval(() => void this.reportLive().catch(this.deps.onError), this.options.liveReportIntervalMs).unref();
    this.#scheduleHourEnd();
  }

  /** Stops the timers, writes what is left and withdraws this server's open streams; for shutdown, before the database closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#flushTimer);
    clearInterval(this.#reportTimer);
    clearTimeout(this.#hourTimer);
    await this.flush().catch(this.deps.onError);
    // After the report under way, which would otherwise put the rows back.
    await this.#reporting;
    await deleteLiveStreams(this.deps.db, this.serverId).catch(this.deps.onError);
  }

  /** A configuration was answered (200) or revalidated (304) for a page of this Origin or Referer. */
  answered(siteId: string, status: number, origin: string | undefined, referer: string | undefined): void {
    const counts = this.#siteCounts(siteId);
    counts.loaded = true;
    if (status === 304) {
      counts.notModified++;
      this.totals.notModified++;
      return;
    }
    if (status !== 200) return;
    counts.loads++;
    this.totals.loads++;
    if (origin === undefined && referer === undefined) return;
    const page = pageOrigin(origin, referer);
    if (page === undefined) return;
    let origins = counts.origins;
    if (origins === undefined) origins = counts.origins = new Map();
    const seen = origins.get(page);
    if (seen !== undefined) origins.set(page, seen + 1);
    else if (this.#pendingOrigins < PENDING_ORIGINS_LIMIT) {
      origins.set(page, 1);
      this.#pendingOrigins++;
    }
  }

  /** An event stream of the site opened; `openNow` are open on this server with it. */
  streamOpened(siteId: string, openNow: number): void {
    this.#siteCounts(siteId).streamsOpened++;
    this.totals.streamsOpened++;
    const peaks = this.#current.peaks;
    if (openNow > (peaks.get(siteId) ?? 0)) peaks.set(siteId, openNow);
  }

  #siteCounts(siteId: string): SiteCounts {
    const sites = this.#current.sites;
    let counts = sites.get(siteId);
    if (counts === undefined) {
      counts = { loads: 0, notModified: 0, streamsOpened: 0, loaded: false, origins: undefined };
      sites.set(siteId, counts);
    }
    return counts;
  }

  /** Writes what was counted since the last write, in one transaction; one write at a time. */
  flush(): Promise<void> {
    const writing = this.#writing.then(() => this.#write());
    // A failed write does not stop the next one.
    this.#writing = writing.catch(() => undefined);
    return writing;
  }

  /** Replaces this server's report of its open streams per site. */
  reportLive(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#rollHour();
    const open = this.deps.openStreams();
    this.#notePeaks(open);
    const reporting = this.#reporting.then(() => reportLiveStreams(this.deps.db, this.serverId, open, this.deps.clock.now().toISOString()));
    this.#reporting = reporting.catch(() => undefined);
    return reporting;
  }

  #hourStart(): number {
    const now = this.deps.clock.now().getTime();
    return now - (now % HOUR_MS);
  }

  #hourCounts(start: number): HourCounts {
    return { start, sites: new Map(), peaks: new Map(), peaksWritten: new Map() };
  }

  /** Ends the hour when the clock has left it: what follows is counted in the next. */
  #rollHour(): void {
    const start = this.#hourStart();
    if (start === this.#current.start) return;
    this.#ended.push(this.#current);
    this.#current = this.#hourCounts(start);
    // Streams open across the hour's start are open in the new hour too.
    this.#notePeaks(this.deps.openStreams());
  }

  #scheduleHourEnd(): void {
    if (this.#closed) return;
    const now = this.deps.clock.now().getTime();
    this.#hourTimer = setTimeout(
      () => {
        this.#rollHour();
        this.#scheduleHourEnd();
      },
      HOUR_MS - (now % HOUR_MS) + 10,
    ).unref();
  }

  #notePeaks(open: ReadonlyMap<string, number>): void {
    const peaks = this.#current.peaks;
    for (const [siteId, count] of open) if (count > (peaks.get(siteId) ?? 0)) peaks.set(siteId, count);
  }

  async #write(): Promise<void> {
    this.#rollHour();
    this.#notePeaks(this.deps.openStreams());
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const hours = [...this.#ended, this.#current];
    // What this write carries: taken from the hours now, so counting goes on into fresh maps.
    const taken = hours.map((hour) => {
      const sites = hour.sites;
      hour.sites = new Map();
      return { hour, sites };
    });
    this.#pendingOrigins = 0;
    const increments: UsageIncrement[] = [];
    const peaksAdded: Array<{ hour: HourCounts; siteId: string; peak: number }> = [];
    for (const { hour, sites } of taken) {
      const hourIso = new Date(hour.start).toISOString();
      const dayIso = new Date(hour.start - (hour.start % DAY_MS)).toISOString();
      // The origins of an hour ended were last seen in it at the latest.
      const seenAt = hour.start + HOUR_MS <= now.getTime() ? new Date(hour.start + HOUR_MS - 1).toISOString() : nowIso;
      const siteIds = new Set([...sites.keys(), ...hour.peaks.keys()]);
      for (const siteId of siteIds) {
        const counts = sites.get(siteId);
        const peak = hour.peaks.get(siteId) ?? 0;
        const peakAdded = peak - (hour.peaksWritten.get(siteId) ?? 0);
        if (counts === undefined && peakAdded <= 0) continue;
        if (peakAdded > 0) peaksAdded.push({ hour, siteId, peak });
        increments.push({
          siteId,
          hour: hourIso,
          day: dayIso,
          loads: counts?.loads ?? 0,
          notModified: counts?.notModified ?? 0,
          streamsOpened: counts?.streamsOpened ?? 0,
          peakAdded: Math.max(peakAdded, 0),
          lastLoadedAt: counts?.loaded === true ? seenAt : null,
          origins: counts?.origins ?? new Map(),
          seenAt,
        });
      }
    }
    if (increments.length > 0) {
      try {
        await this.deps.db.transaction().execute(async (trx) => {
          // Counts of a site deleted since are dropped: its rows went with it.
          const existing = await existingSiteIds(trx, [...new Set(increments.map((increment) => increment.siteId))]);
          await addUsage(
            trx,
            increments.filter((increment) => existing.has(increment.siteId)),
          );
        });
      } catch (error) {
        // Kept for the next write.
        for (const { hour, sites } of taken) this.#restore(hour, sites);
        throw error;
      }
      for (const { hour, siteId, peak } of peaksAdded) hour.peaksWritten.set(siteId, peak);
    }
    // Hours ended are done once written, unless counted into while the write was under way.
    this.#ended = this.#ended.filter((hour) => hour.sites.size > 0 || [...hour.peaks].some(([siteId, peak]) => peak > (hour.peaksWritten.get(siteId) ?? 0)));
    await this.#pruneHourly(now);
  }

  /** Puts counts a failed write carried back with what was counted since. */
  #restore(hour: HourCounts, sites: Map<string, SiteCounts>): void {
    if (!this.#ended.includes(hour) && hour !== this.#current) this.#ended.push(hour);
    for (const [siteId, counts] of sites) {
      const now = hour.sites.get(siteId);
      if (now === undefined) {
        hour.sites.set(siteId, counts);
        this.#pendingOrigins += counts.origins?.size ?? 0;
        continue;
      }
      now.loads += counts.loads;
      now.notModified += counts.notModified;
      now.streamsOpened += counts.streamsOpened;
      now.loaded ||= counts.loaded;
      for (const [origin, loads] of counts.origins ?? []) {
        now.origins ??= new Map();
        now.origins.set(origin, (now.origins.get(origin) ?? 0) + loads);
      }
    }
  }

  /** Deletes what is past its retention, once an hour per server. */
  async #pruneHourly(now: Date): Promise<void> {
    const hour = now.getTime() - (now.getTime() % HOUR_MS);
    if (hour === this.#lastPrunedHour) return;
    this.#lastPrunedHour = hour;
    const today = now.getTime() - (now.getTime() % DAY_MS);
    await pruneUsage(this.deps.db, {
      hourlyBefore: new Date(hour - HOURLY_RETENTION_DAYS * DAY_MS).toISOString(),
      dailyBefore: new Date(today - this.options.retentionDays * DAY_MS).toISOString(),
      liveBefore: new Date(now.getTime() - HOUR_MS).toISOString(),
    });
  }
}
