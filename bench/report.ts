import type { LoadResult } from './load.js';
import { MAX_RSS_MB, type Scenario, type ScenarioId, type Target } from './scenarios.js';

export type DatabaseKind = 'sqlite' | 'postgres';

/** DESIGN: filling the cache grows RSS by at most this many times CACHE_MB. */
export const CACHE_GROWTH_FACTOR = 1.25;
/** On PostgreSQL the apps "hold" the PUT rate when they answer at least this share of it. */
export const HELD_SHARE = 0.95;

/** One alternated pair at the scenario's paced rate: the ceiling's half, then the scenario's. */
export interface PairedRun {
  pair: number;
  ceiling: LoadResult;
  scenario: LoadResult;
  /** Each app process's VmRSS right after the scenario's half, MiB. */
  appRssMb: number[];
  /** The share of the cache lookups during the scenario's half that the cache answered (0–1); NaN when it made none. */
  cacheHitShare: number;
  /** What the app processes' caches lost during the scenario's half: why the hits fell short. */
  cacheLosses: CacheLosses;
}

/** Entries pushed out by the bound, stores refused by an invalidation during their read, whole-cache drops. */
export interface CacheLosses {
  evictions: number;
  refusedStores: number;
  clears: number;
}

/** An app process's cache counters (its metrics' siteward_cache_*_total). */
export interface CacheCounts extends CacheLosses {
  hits: number;
  misses: number;
}

/** What the event-stream scenario saw. */
export interface StreamsFigures {
  /** The app that held the streams, and the one the change went through. */
  holder: string;
  changer: string;
  requested: number;
  opened: number;
  failed: number;
  /** Streams the change had not reached when the wait ended. */
  missed: number;
  rssBeforeMb: number;
  rssOpenMb: number;
  medianDeliveryMs: number;
  slowestDeliveryMs: number;
}

/** The mixed load: one saturated run over every app, for the RSS at its end. */
export interface MixedFigures {
  run: LoadResult;
  /** Each app's VmRSS as the load stopped, MiB: the figure judged. */
  appRssMb: number[];
  /** Each app's VmRSS once what was still running had finished (sign-ins queued for argon2id). */
  settledRssMb: number[];
}

/** An app process of its own whose cache is filled: its RSS before and after. */
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;

export interface CacheFillFigures {
  cacheMb: number;
  /** Distinct answers read to fill it: the bodies' total, MiB (more than CACHE_MB fills it). */
  answeredMb: number;
  requests: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** The V8 heap and the memory outside it that V8 knows of (buffers), before and after, MiB. */
  partsBefore: MemoryParts;
  partsAfter: MemoryParts;
  /** The RSS growth of the same reads on an app without a cache (CACHE_MB=0). */
  uncachedGrowthMb: number;
}

export interface MemoryParts {
  heapTotalMb: number;
  heapUsedMb: number;
  externalMb: number;
}

/** The public ceiling without, then with, the app's usage counter, alternated at the public rate. */
export interface UsageCountingFigures {
  pairs: Array<{ without: LoadResult; with: LoadResult }>;
  rate: number;
  /** The app's CPU per public 200 (median of its pairs), µs, to set the counting's cost against. */
  appMicros: number;
}

export interface ScenarioOutcome {
  id: ScenarioId;
  label: string;
  target: Target;
  ceiling: Scenario['ceiling'];
  rate: number;
  status: 'measured' | 'unavailable' | 'failed';
  /** The statuses the probes got and the scenario accepted (200, or e.g. 410 for an unknown magic link). */
  expectedStatuses: number[];
  /** Why it was not measured, or what went wrong. */
  reason: string | null;
  pairs: PairedRun[];
  /** One saturated run of the ceiling and one of the scenario: printed, not judged. */
  saturated?: { ceiling: LoadResult; scenario: LoadResult };
  mixed?: MixedFigures;
  streams?: StreamsFigures;
}

export interface DatabaseOutcome {
  database: DatabaseKind;
  /** App processes sharing the database, the load spread evenly over them. */
  appServers: number;
  seedSeconds: number;
  /** The sites-list body, which the baseline sends too (checked byte for byte in length). */
  bodyBytes: number;
  /** The public configuration's body, which the public ceiling sends too, with the app's headers. */
  publicBodyBytes: number;
  /** Each app process's peak (VmHWM), MiB. */
  appPeakRssMb: number[];
  appLogBytes: number;
  /** Whether the PUT ceiling also wrote a history row per PUT. */
  putCeilingHistory: boolean;
  scenarios: ScenarioOutcome[];
  cacheFill?: CacheFillFigures;
  usageCounting?: UsageCountingFigures;
}

export interface TableRow {
  scenario: ScenarioId | 'cache-fill' | 'usage-counting';
  database: string;
  /** The ceiling's CPU per request over the app's: median of the pairs, and their least and greatest. */
  cpuRatio: number | null;
  cpuMin: number | null;
  cpuMax: number | null;
  appMicros: number | null;
  ceilingMicros: number | null;
  p99Ms: number | null;
  ceilingP99Ms: number | null;
  /** The median of the pairs' p99 over their ceiling's p99. */
  p99Multiple: number | null;
  achievedRate: number | null;
  offeredRate: number | null;
  saturated: number | null;
  ceilingSaturated: number | null;
  rssMb: number | null;
  /** The cache's hit share in the scenario's halves, median of the pairs (0–1): a thrashing cache shows here. */
  cacheHitShare: number | null;
  /** Answers with another status than the accepted ones, plus connection errors and timeouts. */
  unexpected: number | null;
  verdict: string;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** How the table names a database pass: with the number of app servers when there are several. */
export function databaseLabel(outcome: Pick<DatabaseOutcome, 'database' | 'appServers'>): string {
  return outcome.appServers > 1 ? `${outcome.database} (${outcome.appServers} apps)` : outcome.database;
}

/** Answers other than the accepted statuses, and requests that got no answer at all. */
export function unexpectedAnswers(result: LoadResult, expectedStatuses: readonly number[]): number {
  const expected = expectedStatuses.reduce((sum, status) => sum + (result.statusCodes[String(status)] ?? 0), 0);
  return result.responses - expected + result.errors;
}

/** A run too short to count a 10 ms tick has no CPU figure, and its ratio is not a number. */
const finite = (values: readonly number[]) => values.filter(Number.isFinite);

function emptyRow(scenario: TableRow['scenario'], database: string, verdict: string): TableRow {
  return {
    scenario,
    database,
    cpuRatio: null,
    cpuMin: null,
    cpuMax: null,
    appMicros: null,
    ceilingMicros: null,
    p99Ms: null,
    ceilingP99Ms: null,
    p99Multiple: null,
    achievedRate: null,
    offeredRate: null,
    saturated: null,
    ceilingSaturated: null,
    rssMb: null,
    cacheHitShare: null,
    unexpected: null,
    verdict,
  };
}

/** Each target the scenario has, met or missed. */
function judge(target: Target, kind: DatabaseKind, row: TableRow): string {
  const verdicts: string[] = [];
  const mark = (name: string, met: boolean) => verdicts.push(`${name} ${met ? 'met' : 'MISSED'}`);
  if (target.minCpuRatio !== null && (kind === 'sqlite' || target.cpuOnPostgres)) mark(`CPU ≥ ${target.minCpuRatio.toFixed(2)}`, (row.cpuRatio ?? 0) >= target.minCpuRatio);
  if (target.maxP99Multiple !== null) mark(`p99 ≤ ${target.maxP99Multiple}×`, (row.p99Multiple ?? Infinity) <= target.maxP99Multiple);
  if (target.holdRateOnPostgres && kind === 'postgres') mark(`holds ${row.offeredRate ?? 0}/s`, (row.achievedRate ?? 0) >= HELD_SHARE * (row.offeredRate ?? Infinity));
  if (target.maxRssMb !== null) mark(`RSS < ${target.maxRssMb} MB`, (row.rssMb ?? Infinity) < target.maxRssMb);
  if ((row.unexpected ?? 0) > 0) verdicts.push('CHECK: unexpected answers');
  return verdicts.length === 0 ? '—' : verdicts.join(', ');
}

function pairedRow(database: string, kind: DatabaseKind, scenario: ScenarioOutcome): TableRow {
  const pairs = scenario.pairs;
  const ratios = finite(pairs.map((pair) => pair.ceiling.serverCpuMicrosPerAnswer / pair.scenario.serverCpuMicrosPerAnswer));
  const multiples = finite(pairs.map((pair) => pair.scenario.p99Ms / pair.ceiling.p99Ms));
  // The GET ceiling answers 200 to every path; the others send the scenario's own answers.
  const ceilingStatuses = scenario.ceiling === 'get' ? [200] : scenario.expectedStatuses;
  const row: TableRow = {
    scenario: scenario.id,
    database,
    cpuRatio: median(ratios),
    cpuMin: ratios.length === 0 ? Number.NaN : Math.min(...ratios),
    cpuMax: ratios.length === 0 ? Number.NaN : Math.max(...ratios),
    appMicros: median(finite(pairs.map((pair) => pair.scenario.serverCpuMicrosPerAnswer))),
    ceilingMicros: median(finite(pairs.map((pair) => pair.ceiling.serverCpuMicrosPerAnswer))),
    p99Ms: median(pairs.map((pair) => pair.scenario.p99Ms)),
    ceilingP99Ms: median(pairs.map((pair) => pair.ceiling.p99Ms)),
    p99Multiple: median(multiples),
    achievedRate: median(pairs.map((pair) => pair.scenario.requestsPerSecond)),
    offeredRate: scenario.rate,
    saturated: scenario.saturated?.scenario.requestsPerSecond ?? null,
    ceilingSaturated: scenario.saturated?.ceiling.requestsPerSecond ?? null,
    rssMb: Math.max(...pairs.flatMap((pair) => pair.appRssMb)),
    cacheHitShare: median(pairs.map((pair) => pair.cacheHitShare)),
    unexpected:
      pairs.reduce((sum, pair) => sum + unexpectedAnswers(pair.scenario, scenario.expectedStatuses) + unexpectedAnswers(pair.ceiling, ceilingStatuses), 0) +
      (scenario.saturated === undefined ? 0 : unexpectedAnswers(scenario.saturated.scenario, scenario.expectedStatuses)),
    verdict: '',
  };
  return { ...row, verdict: judge(scenario.target, kind, row) };
}

export function tableRows(outcome: DatabaseOutcome): TableRow[] {
  const database = databaseLabel(outcome);
  const rows: TableRow[] = [];
  for (const scenario of outcome.scenarios) {
    if (scenario.status !== 'measured') {
      rows.push(emptyRow(scenario.id, database, scenario.status === 'unavailable' ? 'not available yet' : `FAILED: ${scenario.reason ?? ''}`));
    } else if (scenario.streams !== undefined) {
      const streams = scenario.streams;
      const row = { ...emptyRow(scenario.id, database, ''), p99Ms: streams.slowestDeliveryMs, achievedRate: streams.opened, offeredRate: streams.requested, rssMb: streams.rssOpenMb - streams.rssBeforeMb, unexpected: streams.failed + streams.missed };
      const target = scenario.target;
      const delivered = streams.missed === 0 && streams.slowestDeliveryMs <= (target.maxDeliveryMs ?? Infinity);
      row.verdict = `told within ${target.maxDeliveryMs ?? '–'} ms ${delivered ? 'met' : 'MISSED'}, RSS growth < ${target.maxRssMb ?? '–'} MB ${row.rssMb < (target.maxRssMb ?? Infinity) ? 'met' : 'MISSED'}`;
      rows.push(row);
    } else if (scenario.mixed !== undefined) {
      const mixed = scenario.mixed;
      const row = { ...emptyRow(scenario.id, database, ''), saturated: mixed.run.requestsPerSecond, rssMb: Math.max(...mixed.appRssMb), unexpected: unexpectedAnswers(mixed.run, scenario.expectedStatuses) };
      rows.push({ ...row, verdict: judge(scenario.target, outcome.database, row) });
    } else {
      rows.push(pairedRow(database, outcome.database, scenario));
    }
  }
  const fill = outcome.cacheFill;
  if (fill !== undefined) {
    const growth = fill.rssAfterMb - fill.rssBeforeMb;
    const bound = CACHE_GROWTH_FACTOR * fill.cacheMb;
    const full = fill.answeredMb > fill.cacheMb;
    rows.push({
      ...emptyRow('cache-fill', database, full ? `RSS growth ≤ ${bound.toFixed(1)} MB ${growth <= bound ? 'met' : 'MISSED'}` : `not full: ${fill.answeredMb.toFixed(1)} MB read`),
      rssMb: growth,
    });
  }
  const usage = outcome.usageCounting;
  if (usage !== undefined) {
    const ratios = finite(usage.pairs.map((pair) => pair.without.serverCpuMicrosPerAnswer / pair.with.serverCpuMicrosPerAnswer));
    rows.push({
      ...emptyRow('usage-counting', database, '—'),
      cpuRatio: median(ratios),
      cpuMin: ratios.length === 0 ? Number.NaN : Math.min(...ratios),
      cpuMax: ratios.length === 0 ? Number.NaN : Math.max(...ratios),
      appMicros: median(finite(usage.pairs.map((pair) => pair.with.serverCpuMicrosPerAnswer))),
      ceilingMicros: median(finite(usage.pairs.map((pair) => pair.without.serverCpuMicrosPerAnswer))),
      achievedRate: median(usage.pairs.map((pair) => pair.with.requestsPerSecond)),
      offeredRate: usage.rate,
      unexpected: usage.pairs.reduce((sum, pair) => sum + unexpectedAnswers(pair.with, [200]) + unexpectedAnswers(pair.without, [200]), 0),
    });
  }
  return rows;
}

export const HEADER = ['scenario', 'database', 'CPU ratio', 'spread', 'µs/req (ceiling)', 'p99 ms (ceiling)', 'p99 ×', 'rate/s (offered)', 'saturated req/s (ceiling)', 'RSS MB', 'cache hits %', 'unexpected', 'verdict'];

function cell(value: number | null, digits: number): string {
  if (value === null) return '–';
  if (!Number.isFinite(value)) return 'n/a';
  return value.toFixed(digits);
}

function withCeiling(value: number | null, ceiling: number | null, digits: number): string {
  if (value === null) return '–';
  return ceiling === null ? cell(value, digits) : `${cell(value, digits)} (${cell(ceiling, digits)})`;
}

/** A Markdown table, so a run pastes straight into docs/performance.md. */
export function formatTable(rows: readonly TableRow[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, i) => (i < 2 || i === HEADER.length - 1 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) {
    lines.push(
      `| ${[
        row.scenario,
        row.database,
        cell(row.cpuRatio, 2),
        row.cpuMin === null ? '–' : `${cell(row.cpuMin, 2)}–${cell(row.cpuMax, 2)}`,
        withCeiling(row.appMicros, row.ceilingMicros, 0),
        withCeiling(row.p99Ms, row.ceilingP99Ms, 2),
        cell(row.p99Multiple, 2),
        withCeiling(row.achievedRate, row.offeredRate, 0),
        withCeiling(row.saturated, row.ceilingSaturated, 0),
        cell(row.rssMb, 1),
        cell(row.cacheHitShare === null ? null : row.cacheHitShare * 100, 1),
        cell(row.unexpected, 0),
        row.verdict,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const megabytes = (values: readonly number[]) => values.map((value) => value.toFixed(1)).join(' and ');
const shown = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** The lines under the table: what the table's memory, stream and counting rows stand for, disturbance, sizes, logs. */
export function formatSummary(outcome: DatabaseOutcome, logLevel: string): string[] {
  const label = databaseLabel(outcome);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const runs = outcome.scenarios.flatMap((scenario) => scenario.pairs.flatMap((pair) => [pair.ceiling, pair.scenario]));
  const shares = runs.map((run) => run.otherCpuShare);
  const pct = (share: number) => `${(share * 100).toFixed(0)}%`;
  const mixed = outcome.scenarios.find((scenario) => scenario.mixed !== undefined)?.mixed;
  const streams = outcome.scenarios.find((scenario) => scenario.streams !== undefined)?.streams;
  const fill = outcome.cacheFill;
  const usage = outcome.usageCounting;
  const lines: string[] = [];
  if (streams !== undefined) {
    lines.push(
      `${label}: ${streams.opened} of ${streams.requested} event streams open on ${streams.holder} (${streams.failed} failed): RSS ${streams.rssBeforeMb.toFixed(1)} → ${streams.rssOpenMb.toFixed(1)} MB ` +
        `(+${(streams.rssOpenMb - streams.rssBeforeMb).toFixed(1)} MB, ${(((streams.rssOpenMb - streams.rssBeforeMb) * 1024) / Math.max(1, streams.opened)).toFixed(1)} KB a stream); ` +
        `a change made through ${streams.changer} reached every stream within ${streams.slowestDeliveryMs.toFixed(1)} ms of its answer (median ${streams.medianDeliveryMs.toFixed(1)} ms), ${streams.missed} missed`,
    );
  }
  if (fill !== undefined) {
    lines.push(
      `${label}: cache fill: CACHE_MB=${fill.cacheMb}, ${fill.requests} distinct reads answering ${fill.answeredMb.toFixed(1)} MB; RSS ${fill.rssBeforeMb.toFixed(1)} → ${fill.rssAfterMb.toFixed(1)} MB, ` +
        `growth ${(fill.rssAfterMb - fill.rssBeforeMb).toFixed(1)} MB, target ≤ ${(CACHE_GROWTH_FACTOR * fill.cacheMb).toFixed(1)} MB (${CACHE_GROWTH_FACTOR} × CACHE_MB)`,
    );
    const grew = (part: keyof MemoryParts) => fill.partsAfter[part] - fill.partsBefore[part];
    const heapTaken = grew('heapTotalMb');
    const growth = fill.rssAfterMb - fill.rssBeforeMb;
    lines.push(
      `${label}: cache fill, where the growth is: V8 heap taken ${signed(heapTaken)} MB (used ${signed(grew('heapUsedMb'))}), buffers and other external memory ${signed(grew('externalMb'))} MB, ` +
        `the rest (SQLite's page caches, malloc's slack, code) ${signed(growth - heapTaken - grew('externalMb'))} MB`,
      `${label}: cache fill, the same reads on an app without a cache (CACHE_MB=0): RSS ${signed(fill.uncachedGrowthMb)} MB, what reading them costs with or without a cache; ` +
        `the cache's own part ${signed(growth - fill.uncachedGrowthMb)} MB = ${((growth - fill.uncachedGrowthMb) / fill.cacheMb).toFixed(2)} × CACHE_MB`,
    );
  }
  if (mixed !== undefined) {
    lines.push(
      `${label}: RSS of each app process after the mixed load (${mixed.run.durationSeconds.toFixed(0)} s, default cache): ${megabytes(mixed.appRssMb)} MB, target < ${MAX_RSS_MB} MB: ` +
        `${mixed.appRssMb.every((value) => value < MAX_RSS_MB) ? 'met' : 'MISSED'} (${megabytes(mixed.settledRssMb)} MB once the requests in flight were answered); answers ${JSON.stringify(mixed.run.statusCodes)}`,
    );
  }
  if (usage !== undefined) {
    const without = median(finite(usage.pairs.map((pair) => pair.without.serverCpuMicrosPerAnswer)));
    const counted = median(finite(usage.pairs.map((pair) => pair.with.serverCpuMicrosPerAnswer)));
    const cost = counted - without;
    lines.push(
      `${label}: usage counting: the public ceiling takes ${shown(without, 1)} µs a request without the app's usage counter and ${shown(counted, 1)} µs with it (median of ${usage.pairs.length} alternated pairs): ` +
        `counting costs ${shown(cost, 1)} µs a public request; the app takes ${shown(usage.appMicros, 1)} µs with counting, so about ${shown(usage.appMicros - cost, 1)} µs without`,
    );
  }
  lines.push(
    `${label}: app peak RSS (VmHWM) ${megabytes(outcome.appPeakRssMb)} MB`,
    `${label}: other processes used a median ${pct(median(shares))} (max ${pct(Math.max(0, ...shares))}) of the machine's CPU during the paced runs`,
    `${label}: seeded in ${outcome.seedSeconds.toFixed(1)} s; sites list and baseline body ${outcome.bodyBytes} bytes${Number.isFinite(outcome.publicBodyBytes) ? `, public configuration ${outcome.publicBodyBytes} bytes (median)` : ''}; the apps wrote ${mb(outcome.appLogBytes)} MB of logs at LOG_LEVEL=${logLevel}`,
  );
  return lines;
}
