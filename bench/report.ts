import type { LoadResult } from './load.js';
import { MAX_RSS_MB, type Scenario, type ScenarioId, type Target } from './scenarios.js';

export type DatabaseKind = 'sqlite' | 'postgres';

/** Above this share of the machine used by other processes during a run, its pair is run again. */
export const DISTURBED_SHARE = 0.05;

/** A scenario run and the ceiling run just before it, in the same round. */
export interface PairedRun {
  round: number;
  /** How many times the pair ran before other processes left it undisturbed (or tries ran out). */
  attempts: number;
  /** The ceiling's run (the GET or the PUT ceiling); null for the mixed load, which has none. */
  baseline: LoadResult | null;
  scenario: LoadResult;
  /** Each app process's VmRSS right after the scenario run, MiB. */
  appRssMb: number[];
  /**
   * The mixed load only: each app's VmRSS once it has finished what was still running when the load
   * stopped (sign-ins queued for argon2id, 19 MiB each while they run). The target is judged on
   * appRssMb, read at once.
   */
  settledRssMb?: number[];
}

/** What the event-stream scenario saw, for the lines under the table. */
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

export interface ScenarioOutcome {
  id: ScenarioId;
  label: string;
  unit: Scenario['unit'];
  target: Target;
  ceiling: Scenario['ceiling'];
  status: 'measured' | 'unavailable' | 'failed';
  /** The statuses the probes got and the scenario accepted (200, or e.g. 410 for an unknown magic link). */
  expectedStatuses: number[];
  /** Why it was not measured, or what went wrong. */
  reason: string | null;
  runs: PairedRun[];
  /** Set for the event streams. */
  streams?: StreamsFigures;
}

export interface DatabaseOutcome {
  database: DatabaseKind;
  /** App processes sharing the database, the load spread evenly over them. */
  appServers: number;
  seedSeconds: number;
  /** The sites-list body, which the baseline sends too (checked byte for byte in length). */
  bodyBytes: number;
  baselineRssMb: number;
  putCeilingRssMb: number;
  publicCeilingRssMb: number;
  /** The public configuration's body, which the public ceiling sends too, with the app's headers. */
  publicBodyBytes: number;
  /** Each app process's peak (VmHWM), MiB. */
  appPeakRssMb: number[];
  appLogBytes: number;
  /** Whether the PUT ceiling also wrote a history row per PUT. */
  putCeilingHistory: boolean;
  scenarios: ScenarioOutcome[];
}

export interface TableRow {
  database: string;
  scenario: ScenarioId | 'baseline' | 'put-ceiling' | 'public-ceiling' | 'public-304-ceiling';
  request: string;
  requestsPerSecond: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  ratio: number | null;
  /** The server processes' CPU time per answer, µs (median over the runs): the ceiling's over the scenario's is the CPU ratio. */
  cpuMicros: number | null;
  rssMb: number | null;
  /** Answers with another status than the accepted ones, plus connection errors and timeouts. */
  unexpected: number | null;
  target: string;
  verdict: string;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The median latency of the runs that had any answer: a run with none has no latency to count. */
function medianLatency(values: readonly number[]): number {
  return median(values.filter((value) => !Number.isNaN(value)));
}

/** How the table names a database pass: with the number of app servers when there are several. */
export function databaseLabel(outcome: Pick<DatabaseOutcome, 'database' | 'appServers'>): string {
  return outcome.appServers > 1 ? `${outcome.database} (${outcome.appServers} apps)` : outcome.database;
}

function describeTarget(target: Target, ceiling: Scenario['ceiling'], id?: ScenarioId): string {
  if (id === 'public-streams') return `every stream told within ${target.maxP99Ms ?? '–'} ms, RSS growth < ${target.maxRssMb ?? '–'} MB`;
  const parts: string[] = [];
  if (target.minRatio !== null) parts.push(`ratio ≥ ${target.minRatio.toFixed(2)}${ceiling === 'put' ? ' of the PUT ceiling' : ''}`);
  if (target.maxP99Ms !== null) parts.push(`p99 < ${target.maxP99Ms} ms`);
  if (target.maxRssMb !== null) parts.push(`RSS < ${target.maxRssMb} MB`);
  return parts.length === 0 ? '—' : parts.join(', ');
}

/** Answers other than the accepted statuses, and requests that got no answer at all. */
export function unexpectedAnswers(result: LoadResult, expectedStatuses: readonly number[]): number {
  const expected = expectedStatuses.reduce((sum, status) => sum + (result.statusCodes[String(status)] ?? 0), 0);
  return result.responses - expected + result.errors;
}

function judge(target: Target, row: Pick<TableRow, 'ratio' | 'p99Ms' | 'rssMb' | 'unexpected'>): string {
  const misses: string[] = [];
  if ((row.unexpected ?? 0) > 0) misses.push('unexpected answers');
  if (target.minRatio === null && target.maxP99Ms === null && target.maxRssMb === null) return misses.length > 0 ? `CHECK: ${misses.join(', ')}` : '—';
  if (target.minRatio !== null && (row.ratio ?? 0) < target.minRatio) misses.push('ratio');
  if (target.maxP99Ms !== null && !((row.p99Ms ?? Infinity) < target.maxP99Ms)) misses.push('p99');
  if (target.maxRssMb !== null && (row.rssMb ?? Infinity) >= target.maxRssMb) misses.push('RSS');
  return misses.length === 0 ? 'met' : `MISSED: ${misses.join(', ')}`;
}

function ceilingRow(
  database: string,
  scenario: 'baseline' | 'put-ceiling' | 'public-ceiling' | 'public-304-ceiling',
  request: string,
  runs: LoadResult[],
  ratio: number | null,
  rssMb: number,
  expectedStatus = 200,
): TableRow {
  return {
    database,
    scenario,
    request,
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50Ms: medianLatency(runs.map((run) => run.p50Ms)),
    p99Ms: medianLatency(runs.map((run) => run.p99Ms)),
    ratio,
    cpuMicros: median(runs.map((run) => run.serverCpuMicrosPerAnswer)),
    rssMb,
    unexpected: runs.reduce((sum, run) => sum + unexpectedAnswers(run, [expectedStatus]), 0),
    target: '—',
    verdict: '—',
  };
}

export function tableRows(outcome: DatabaseOutcome): TableRow[] {
  const database = databaseLabel(outcome);
  const ceilingRuns = (ceiling: 'get' | 'put', only?: ScenarioId) =>
    outcome.scenarios
      .filter((scenario) => scenario.ceiling === ceiling && (only === undefined || scenario.id === only))
      .flatMap((scenario) => scenario.runs.flatMap((run) => (run.baseline === null ? [] : [run.baseline])));
  const publicRuns = (id: ScenarioId) => outcome.scenarios.filter((scenario) => scenario.id === id).flatMap((scenario) => scenario.runs.flatMap((run) => (run.baseline === null ? [] : [run.baseline])));
  const getRuns = ceilingRuns('get');
  const putRuns = ceilingRuns('put');
  // Without a GET scenario (--scenarios put-site, say) the GET ceiling never ran.
  const rows: TableRow[] = getRuns.length === 0 ? [] : [ceilingRow(database, 'baseline', `bare node:http, same ${outcome.bodyBytes}-byte JSON`, getRuns, 1, outcome.baselineRssMb)];
  // The public ceiling answers both public scenarios: a row for its 200s and one for its 304s.
  const publicOk = publicRuns('public-config');
  if (publicOk.length > 0) rows.push(ceilingRow(database, 'public-ceiling', `bare node:http, each key's own 200 as the app sent it (median ${outcome.publicBodyBytes}-byte JSON)`, publicOk, 1, outcome.publicCeilingRssMb));
  const publicNotModified = publicRuns('public-304');
  if (publicNotModified.length > 0) rows.push(ceilingRow(database, 'public-304-ceiling', "bare node:http, each key's own 304 as the app sent it", publicNotModified, 1, outcome.publicCeilingRssMb, 304));
  if (putRuns.length > 0) {
    const statement = outcome.putCeilingHistory ? 'UPDATE … RETURNING + history row' : 'UPDATE … RETURNING';
    // Not paired with the GET ceiling: the ratio of the two medians, to read against DESIGN.md's reference.
    const ratio = median(putRuns.map((run) => run.requestsPerSecond)) / median(getRuns.map((run) => run.requestsPerSecond));
    rows.push(ceilingRow(database, 'put-ceiling', `bare node:http + JSON.parse + ${statement}, one transaction`, putRuns, getRuns.length > 0 ? ratio : null, outcome.putCeilingRssMb));
  }
  for (const scenario of outcome.scenarios) {
    if (scenario.status !== 'measured') {
      rows.push({
        database,
        scenario: scenario.id,
        request: scenario.label,
        requestsPerSecond: null,
        p50Ms: null,
        p99Ms: null,
        ratio: null,
        cpuMicros: null,
        rssMb: null,
        unexpected: null,
        target: describeTarget(scenario.target, scenario.ceiling, scenario.id),
        verdict: scenario.status === 'unavailable' ? 'not available yet' : `FAILED: ${scenario.reason ?? ''}`,
      });
      continue;
    }
    const runs = scenario.runs;
    const ratios = runs.flatMap((run) => (run.baseline === null ? [] : [run.scenario.requestsPerSecond / run.baseline.requestsPerSecond]));
    const row = {
      requestsPerSecond: median(runs.map((run) => run.scenario.requestsPerSecond)),
      p50Ms: medianLatency(runs.map((run) => run.scenario.p50Ms)),
      p99Ms: medianLatency(runs.map((run) => run.scenario.p99Ms)),
      ratio: ratios.length === 0 ? null : median(ratios),
      cpuMicros: scenario.streams === undefined ? median(runs.map((run) => run.scenario.serverCpuMicrosPerAnswer)) : null,
      rssMb: Math.max(...runs.flatMap((run) => run.appRssMb)),
      unexpected: runs.reduce((sum, run) => sum + unexpectedAnswers(run.scenario, scenario.expectedStatuses), 0),
    };
    rows.push({
      database,
      scenario: scenario.id,
      request: scenario.unit === 'logins/s' ? `${scenario.label}, logins/s` : scenario.label,
      ...row,
      target: describeTarget(scenario.target, scenario.ceiling, scenario.id),
      verdict: judge(scenario.target, row),
    });
  }
  return rows;
}

const HEADER = ['database', 'scenario', 'request', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'CPU µs/req', 'RSS MB', 'unexpected', 'target', 'verdict'];

function cell(value: number | null, digits: number, unavailable: string): string {
  if (value === null) return unavailable;
  if (Number.isNaN(value)) return 'n/a';
  return digits === 0 ? Math.round(value).toString() : value.toFixed(digits);
}

/** A Markdown table, so a run pastes straight into docs/performance.md. */
export function formatTable(rows: readonly TableRow[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, i) => (i < 3 || i >= HEADER.length - 2 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) {
    const missing = row.verdict === 'not available yet' ? 'not available yet' : '–';
    lines.push(
      `| ${[
        row.database,
        row.scenario,
        row.request,
        cell(row.requestsPerSecond, 0, missing),
        cell(row.p50Ms, 2, '–'),
        cell(row.p99Ms, 2, '–'),
        // Two significant digits for small ratios (logins), so they read as more than zero.
        row.ratio !== null && row.ratio > 0 && row.ratio < 0.1 ? row.ratio.toPrecision(2) : cell(row.ratio, 2, '–'),
        cell(row.cpuMicros, 1, '–'),
        cell(row.rssMb, 1, '–'),
        cell(row.unexpected, 0, '–'),
        row.target,
        row.verdict,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const megabytes = (values: readonly number[]) => values.map((value) => value.toFixed(1)).join(' and ');

/** The lines under the table: memory against its target, disturbance, body sizes, log volume. */
export function formatSummary(outcome: DatabaseOutcome, logLevel: string): string[] {
  const label = databaseLabel(outcome);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const pairs = outcome.scenarios.flatMap((scenario) => scenario.runs);
  const shares = pairs.flatMap((pair) => [...(pair.baseline === null ? [] : [pair.baseline.otherCpuShare]), pair.scenario.otherCpuShare]);
  const repeated = pairs.filter((pair) => pair.attempts > 1).length;
  const disturbed = pairs.filter((pair) => Math.max(pair.baseline?.otherCpuShare ?? 0, pair.scenario.otherCpuShare) > DISTURBED_SHARE).length;
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  const mixed = outcome.scenarios.find((scenario) => scenario.id === 'mixed' && scenario.status === 'measured')?.runs[0];
  const under = (values: readonly number[]) => (values.every((value) => value < MAX_RSS_MB) ? 'met' : 'MISSED');
  const streams = outcome.scenarios.find((scenario) => scenario.id === 'public-streams')?.streams;
  // A run too short to count a 10 ms tick on both sides has no figure: n/a rather than NaN.
  const micros = (values: readonly number[]) => median(values.filter(Number.isFinite));
  const shown = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
  const cpuLines = outcome.scenarios.flatMap((scenario) => {
    const paired = scenario.runs.flatMap((run) => (run.baseline === null ? [] : [{ ceiling: run.baseline.serverCpuMicrosPerAnswer, app: run.scenario.serverCpuMicrosPerAnswer }]));
    if (paired.length === 0) return [];
    const ratio = micros(paired.map((run) => run.ceiling / run.app));
    return [`${scenario.id} ${shown(micros(paired.map((run) => run.app)), 0)} µs (ceiling ${shown(micros(paired.map((run) => run.ceiling)), 0)} µs, ratio ${shown(ratio, 2)})`];
  });
  return [
    ...(streams === undefined
      ? []
      : [
          `${label}: ${streams.opened} of ${streams.requested} event streams open on ${streams.holder} (${streams.failed} failed): RSS ${streams.rssBeforeMb.toFixed(1)} → ${streams.rssOpenMb.toFixed(1)} MB ` +
            `(+${(streams.rssOpenMb - streams.rssBeforeMb).toFixed(1)} MB, ${(((streams.rssOpenMb - streams.rssBeforeMb) * 1024) / Math.max(1, streams.opened)).toFixed(1)} KB a stream); ` +
            `a change made through ${streams.changer} reached every stream within ${streams.slowestDeliveryMs.toFixed(1)} ms of its answer (median ${streams.medianDeliveryMs.toFixed(1)} ms), ${streams.missed} missed`,
        ]),
    ...(mixed === undefined
      ? []
      : [
          `${label}: RSS of each app process after the mixed load (${mixed.scenario.durationSeconds.toFixed(0)} s): ${megabytes(mixed.appRssMb)} MB, target < ${MAX_RSS_MB} MB: ${under(mixed.appRssMb)}` +
            (mixed.settledRssMb === undefined ? '' : ` (${megabytes(mixed.settledRssMb)} MB once the requests in flight were answered)`) +
            `; ` +
            `answers ${JSON.stringify(mixed.scenario.statusCodes)}`,
        ]),
    ...(cpuLines.length === 0 ? [] : [`${label}: server CPU time per answer, median over the rounds: ${cpuLines.join('; ')}`]),
    `${label}: app peak RSS (VmHWM) ${megabytes(outcome.appPeakRssMb)} MB, target < ${MAX_RSS_MB} MB: ${under(outcome.appPeakRssMb)}`,
    `${label}: other processes used a median ${pct(median(shares))} (max ${pct(Math.max(0, ...shares))}) of the CPU during measured runs; ` +
      `${repeated} of ${pairs.length} runs were repeated for it, ${disturbed} kept although disturbed (over ${pct(DISTURBED_SHARE)})`,
    `${label}: seeded in ${outcome.seedSeconds.toFixed(1)} s; sites list and baseline body ${outcome.bodyBytes} bytes each; the apps wrote ${mb(outcome.appLogBytes)} MB of logs at LOG_LEVEL=${logLevel}`,
  ];
}
