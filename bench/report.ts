import type { LoadResult } from './load.js';
import { MAX_RSS_MB, type Scenario, type ScenarioId, type Target } from './scenarios.js';

export type DatabaseKind = 'sqlite' | 'postgres';

/** Above this share of the machine used by other processes during a run, its pair is run again. */
export const DISTURBED_SHARE = 0.05;

/** A scenario run and the baseline run just before it, in the same round. */
export interface PairedRun {
  round: number;
  /** How many times the pair ran before other processes left it undisturbed (or tries ran out). */
  attempts: number;
  baseline: LoadResult;
  scenario: LoadResult;
  /** The app's VmRSS right after the scenario run, MiB. */
  rssMb: number;
}

export interface ScenarioOutcome {
  id: ScenarioId;
  label: string;
  unit: Scenario['unit'];
  target: Target;
  status: 'measured' | 'unavailable' | 'failed';
  /** The status the probe got and the scenario accepted (200, or e.g. 410 for an unknown magic link). */
  expectedStatus: number;
  /** Why it was not measured, or what went wrong. */
  reason: string | null;
  runs: PairedRun[];
}

export interface DatabaseOutcome {
  database: DatabaseKind;
  seedSeconds: number;
  /** The sites-list body, which the baseline sends too (checked byte for byte in length). */
  bodyBytes: number;
  baselineRssMb: number;
  appPeakRssMb: number;
  appLogBytes: number;
  scenarios: ScenarioOutcome[];
}

export interface TableRow {
  database: DatabaseKind;
  scenario: ScenarioId | 'baseline';
  request: string;
  requestsPerSecond: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  ratio: number | null;
  rssMb: number | null;
  /** Answers with another status than the accepted one, plus connection errors and timeouts. */
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

function describeTarget(target: Target): string {
  const parts: string[] = [];
  if (target.minRatio !== null) parts.push(`ratio ≥ ${target.minRatio.toFixed(2)}`);
  if (target.maxP99Ms !== null) parts.push(`p99 < ${target.maxP99Ms} ms`);
  if (parts.length > 0) parts.push(`RSS < ${MAX_RSS_MB} MB`);
  return parts.length === 0 ? '—' : parts.join(', ');
}

/** Answers other than the accepted status, and requests that got no answer at all. */
export function unexpectedAnswers(result: LoadResult, expectedStatus: number): number {
  return result.responses - (result.statusCodes[String(expectedStatus)] ?? 0) + result.errors;
}

function judge(target: Target, row: Pick<TableRow, 'ratio' | 'p99Ms' | 'rssMb' | 'unexpected'>): string {
  const misses: string[] = [];
  if ((row.unexpected ?? 0) > 0) misses.push('unexpected answers');
  if (target.minRatio === null && target.maxP99Ms === null) return misses.length > 0 ? `CHECK: ${misses.join(', ')}` : '—';
  if (target.minRatio !== null && (row.ratio ?? 0) < target.minRatio) misses.push('ratio');
  if (target.maxP99Ms !== null && !((row.p99Ms ?? Infinity) < target.maxP99Ms)) misses.push('p99');
  if ((row.rssMb ?? Infinity) >= MAX_RSS_MB) misses.push('RSS');
  return misses.length === 0 ? 'met' : `MISSED: ${misses.join(', ')}`;
}

export function tableRows(outcome: DatabaseOutcome): TableRow[] {
  const baselineRuns = outcome.scenarios.flatMap((scenario) => scenario.runs.map((run) => run.baseline));
  const rows: TableRow[] = [
    {
      database: outcome.database,
      scenario: 'baseline',
      request: `bare node:http, same ${outcome.bodyBytes}-byte JSON`,
      requestsPerSecond: median(baselineRuns.map((run) => run.requestsPerSecond)),
      p50Ms: median(baselineRuns.map((run) => run.p50Ms)),
      p99Ms: median(baselineRuns.map((run) => run.p99Ms)),
      ratio: 1,
      rssMb: outcome.baselineRssMb,
      unexpected: baselineRuns.reduce((sum, run) => sum + unexpectedAnswers(run, 200), 0),
      target: '—',
      verdict: '—',
    },
  ];
  for (const scenario of outcome.scenarios) {
    if (scenario.status !== 'measured') {
      rows.push({
        database: outcome.database,
        scenario: scenario.id,
        request: scenario.label,
        requestsPerSecond: null,
        p50Ms: null,
        p99Ms: null,
        ratio: null,
        rssMb: null,
        unexpected: null,
        target: describeTarget(scenario.target),
        verdict: scenario.status === 'unavailable' ? 'not available yet' : `FAILED: ${scenario.reason ?? ''}`,
      });
      continue;
    }
    const runs = scenario.runs;
    const row = {
      requestsPerSecond: median(runs.map((run) => run.scenario.requestsPerSecond)),
      p50Ms: median(runs.map((run) => run.scenario.p50Ms)),
      p99Ms: median(runs.map((run) => run.scenario.p99Ms)),
      ratio: median(runs.map((run) => run.scenario.requestsPerSecond / run.baseline.requestsPerSecond)),
      rssMb: Math.max(...runs.map((run) => run.rssMb)),
      unexpected: runs.reduce((sum, run) => sum + unexpectedAnswers(run.scenario, scenario.expectedStatus), 0),
    };
    rows.push({
      database: outcome.database,
      scenario: scenario.id,
      request: scenario.unit === 'logins/s' ? `${scenario.label}, logins/s` : scenario.label,
      ...row,
      target: describeTarget(scenario.target),
      verdict: judge(scenario.target, row),
    });
  }
  return rows;
}

const HEADER = ['database', 'scenario', 'request', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'RSS MB', 'unexpected', 'target', 'verdict'];

function cell(value: number | null, digits: number, unavailable: string): string {
  if (value === null) return unavailable;
  if (Number.isNaN(value)) return 'n/a';
  return digits === 0 ? Math.round(value).toString() : value.toFixed(digits);
}

/** A Markdown table, so a run pastes straight into docs/performance.md. */
export function formatTable(rows: readonly TableRow[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, i) => (i < 3 || i >= 9 ? '---' : '---:')).join('|')}|`];
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
        cell(row.rssMb, 1, '–'),
        cell(row.unexpected, 0, '–'),
        row.target,
        row.verdict,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** The lines under the table: memory peak against its target, body sizes, log volume. */
export function formatSummary(outcome: DatabaseOutcome, logLevel: string): string[] {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const pairs = outcome.scenarios.flatMap((scenario) => scenario.runs);
  const shares = pairs.flatMap((pair) => [pair.baseline.otherCpuShare, pair.scenario.otherCpuShare]);
  const repeated = pairs.filter((pair) => pair.attempts > 1).length;
  const disturbed = pairs.filter((pair) => Math.max(pair.baseline.otherCpuShare, pair.scenario.otherCpuShare) > DISTURBED_SHARE).length;
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  return [
    `${outcome.database}: app peak RSS (VmHWM) ${outcome.appPeakRssMb.toFixed(1)} MB, target < ${MAX_RSS_MB} MB: ${outcome.appPeakRssMb < MAX_RSS_MB ? 'met' : 'MISSED'}`,
    `${outcome.database}: other processes used a median ${pct(median(shares))} (max ${pct(Math.max(0, ...shares))}) of the CPU during measured runs; ` +
      `${repeated} of ${pairs.length} pairs were repeated for it, ${disturbed} kept although disturbed (over ${pct(DISTURBED_SHARE)})`,
    `${outcome.database}: seeded in ${outcome.seedSeconds.toFixed(1)} s; sites list and baseline body ${outcome.bodyBytes} bytes each; the app wrote ${mb(outcome.appLogBytes)} MB of logs at LOG_LEVEL=${logLevel}`,
  ];
}
