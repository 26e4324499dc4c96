import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../test/processes.js';

// Runs the real benchmark, briefly, and checks its output is a well-formed table. No timing is
// asserted: on a shared two-core machine any figure would make this test flaky, and the figures
// belong in docs/performance.md, not in a pass/fail.

const here = path.dirname(fileURLToPath(import.meta.url));
const RUNNER = path.join(here, 'run.js');
const POSTGRES_SCRIPT = path.join(here, '../../scripts/ci/postgres.sh');
const ROWS = [
  'baseline',
  'public-ceiling',
  'public-304-ceiling',
  'put-ceiling',
  'list-jwt',
  'list-pat',
  'get-site',
  'public-config',
  'public-304',
  'public-streams',
  'put-site',
  'healthz',
  'magic-page',
  'login',
  'mixed',
];
const COLUMNS = ['database', 'scenario', 'request', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'CPU µs/req', 'RSS MB', 'unexpected', 'target', 'verdict'];

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Every run is this short; the mixed load a second.
const SHORT = ['--quick', '--duration', '0.15', '--warmup', '0.05', '--mixed-duration', '1', '--users', '1000'];

function runBenchmark(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    // SIGTERM on timeout: the benchmark then stops its servers and removes its files itself.
    const child = spawn(process.execPath, ['--enable-source-maps', RUNNER, ...args], { env, timeout: timeoutMs, killSignal: 'SIGTERM' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The Markdown table's rows as records keyed by the header's column names. */
function parseTable(stdout: string): Array<Record<string, string>> {
  const lines = stdout.split('\n').filter((line) => line.startsWith('|'));
  const split = (line: string) => line.slice(1, -1).split('|').map((cell) => cell.trim());
  const [header, rule, ...rows] = lines;
  assert.ok(header !== undefined && rule !== undefined, `no table in:\n${stdout}`);
  assert.deepEqual(split(header), COLUMNS);
  assert.match(rule, /^\|(-{3}:?\|)+$/);
  return rows.map((row) => {
    const cells = split(row);
    assert.equal(cells.length, COLUMNS.length, row);
    return Object.fromEntries(COLUMNS.map((column, index) => [column, cells[index] ?? '']));
  });
}

function number(row: Record<string, string>, column: string): number {
  const text = row[column] ?? '';
  assert.match(text, /^\d+(\.\d+)?$/, `${row.scenario} ${column} is "${text}"`);
  return Number(text);
}

/** Checks one row's figures: they parse, hang together, and no answer was unexpected. */
function checkRow(row: Record<string, string>): void {
  if (row.scenario === 'magic-page' && row['req/s'] === 'not available yet') {
    assert.equal(row.verdict, 'not available yet');
    return;
  }
  // A login costs an argon2id hash: in a run this short, on a busy machine, none may finish,
  // and then it has no latency to report.
  if (row.scenario === 'login' && row['p50 ms'] === 'n/a') {
    assert.equal(number(row, 'req/s'), 0, 'login: no latency only when nothing finished');
    return;
  }
  const least = row.scenario === 'login' ? 0 : Number.MIN_VALUE;
  assert.ok(number(row, 'req/s') >= least, `${row.scenario} req/s`);
  const p50 = number(row, 'p50 ms');
  assert.ok(number(row, 'p99 ms') >= p50, `${row.scenario} p99 ≥ p50`);
  // The mixed load and the event streams have no ceiling, so no ratio.
  if (row.scenario === 'mixed' || row.scenario === 'public-streams') assert.equal(row.ratio, '–');
  else assert.ok(number(row, 'ratio') >= least, `${row.scenario} ratio`);
  // CPU time is counted in 10 ms ticks, so a run this short may count none; the streams have no answers to divide it by.
  // A login round in which no argon2id hash finished has no answers to divide by: its median can be n/a.
  if (row.scenario === 'public-streams') assert.equal(row['CPU µs/req'], '–');
  else if (row.scenario !== 'login' || row['CPU µs/req'] !== 'n/a') assert.ok(number(row, 'CPU µs/req') >= 0, `${row.scenario} CPU per answer`);
  // The streams' RSS column is their growth, which a collection during the opening can make negative.
  if (row.scenario === 'public-streams') assert.match(row['RSS MB'] ?? '', /^-?\d+\.\d$/);
  else assert.ok(number(row, 'RSS MB') > 0, `${row.scenario} RSS`);
  // A scenario answered with errors (a 401, say) would measure the wrong thing.
  assert.equal(number(row, 'unexpected'), 0, `${row.scenario} unexpected answers`);
  assert.match(row.verdict ?? '', /^(met|MISSED: .+|—)$/);
}

/** The pids of every server the benchmark started, from its progress lines. */
function startedPids(stderr: string): number[] {
  return [...stderr.matchAll(/started, pid (\d+)/g)].map((match) => Number(match[1]));
}

test('npm run bench -- --quick prints every scenario and both ceilings with figures that parse, then leaves no process or file behind', { timeout: 240_000 }, async () => {
  // The benchmark's temporary directories land here, so the test can prove they are removed.
  const scratch = mkdtempSync(path.join(tmpdir(), 'siteward-bench-test-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: scratch };
    // SQLite only here; PostgreSQL has the test below.
    delete env.DATABASE_URL;
    const finished = await runBenchmark(SHORT, env, 120_000);
    assert.equal(finished.code, 0, `exit ${finished.code}\n${finished.stdout}\n${finished.stderr}`);

    const rows = parseTable(finished.stdout);
    assert.deepEqual(rows.map((row) => row.scenario), ROWS);
    for (const row of rows) {
      assert.equal(row.database, 'sqlite');
      checkRow(row);
    }
    const put = rows.find((row) => row.scenario === 'put-site');
    assert.match(put?.target ?? '', /ratio ≥ 0\.40 of the PUT ceiling, p99 < 25 ms/);
    assert.match(finished.stdout, /sqlite: RSS of each app process after the mixed load \(\d+ s\): \d+\.\d MB, target < 200 MB: (met|MISSED)/);
    assert.match(finished.stdout, /sqlite: app peak RSS \(VmHWM\) \d+\.\d MB, target < 200 MB: (met|MISSED)/);

    const figure = String.raw`(\d+|n/a) µs \(ceiling (\d+|n/a) µs, ratio (\d+\.\d\d|n/a)\)`;
    assert.match(finished.stdout, new RegExp(`sqlite: server CPU time per answer, median over the rounds: list-jwt ${figure};.*public-304 ${figure}`));

    const streams = rows.find((row) => row.scenario === 'public-streams');
    assert.equal(number(streams ?? {}, 'req/s'), 200, 'every stream opened');
    assert.match(finished.stdout, /sqlite: 200 of 200 event streams open on streams app \(sqlite\) \(0 failed\): RSS [\d.]+ → [\d.]+ MB .*, 0 missed/);

    const pids = startedPids(finished.stderr);
    assert.equal(pids.length, 5, 'the app, the streams app, the baseline, the public and the PUT ceiling were started');
    for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `process ${pid} still runs`);
    assert.deepEqual(readdirSync(scratch), [], 'temporary files left behind');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

/** The newest installed PostgreSQL's binaries, where scripts/ci/postgres.sh looks for them. */
function postgresInstalled(): boolean {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((version) => existsSync(path.join(root, version, 'bin', 'initdb')));
}

/**
 * A PostgreSQL server to run against: TEST_DATABASE_URL's, or else a throw-away cluster of the
 * test's own when PostgreSQL is installed; undefined when neither.
 */
async function postgresServer(): Promise<{ url: string; stop: () => void } | undefined> {
  const given = process.env.TEST_DATABASE_URL ?? '';
  if (given !== '') return { url: given, stop: () => undefined };
  if (!postgresInstalled()) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'siteward-bench-pg-'));
  const url = execFileSync('bash', [POSTGRES_SCRIPT, 'start', dir, String(await freePort())], { encoding: 'utf8' }).trim();
  return {
    url,
    stop: () => {
      execFileSync('bash', [POSTGRES_SCRIPT, 'stop', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function benchDatabases(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ datname: string }>("select datname from pg_database where datname like 'siteward_bench_%'");
    return result.rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

test(
  'on PostgreSQL the benchmark runs two app processes on one database against both ceilings, then drops its database and stops every process',
  { timeout: 240_000, skip: (process.env.TEST_DATABASE_URL ?? '') === '' && !postgresInstalled() ? 'no TEST_DATABASE_URL and PostgreSQL is not installed' : false },
  async () => {
    const server = await postgresServer();
    assert.ok(server !== undefined);
    const scratch = mkdtempSync(path.join(tmpdir(), 'siteward-bench-test-'));
    try {
      const before = await benchDatabases(server.url);
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: scratch, DATABASE_URL: server.url };
      // One GET scenario, the PUT and the mixed load: each kind of ceiling, and both processes under
      // load. One round, long enough that PUTs finish in it even while other tests load the machine,
      // with a warm-up in which the connection pools fill.
      const args = [...SHORT, '--duration', '2', '--warmup', '0.5', '--rounds', '1', '--no-sqlite', '--scenarios', 'list-jwt,put-site,mixed'];
      const finished = await runBenchmark(args, env, 120_000);
      assert.equal(finished.code, 0, `exit ${finished.code}\n${finished.stdout}\n${finished.stderr}`);

      const rows = parseTable(finished.stdout);
      assert.deepEqual(rows.map((row) => row.scenario), ['baseline', 'put-ceiling', 'list-jwt', 'put-site', 'mixed']);
      for (const row of rows) {
        assert.equal(row.database, 'postgres (2 apps)');
        checkRow(row);
      }
      assert.match(finished.stdout, /postgres \(2 apps\): RSS of each app process after the mixed load \(\d+ s\): \d+\.\d and \d+\.\d MB, target < 200 MB: (met|MISSED)/);
      assert.equal([...finished.stderr.matchAll(/app \d \(postgres\) started/g)].length, 2);
      // Both processes took load (summed over the runs: on a busy machine one short run may see
      // a process answer nothing in time).
      const shares = [...finished.stderr.matchAll(/answers per app (\d+)\/(\d+)/g)];
      assert.equal(shares.length, 3, `per-app answers of each run in:\n${finished.stderr}`);
      for (const app of [1, 2]) assert.ok(shares.reduce((sum, share) => sum + Number(share[app]), 0) > 0, `app ${app} answered nothing`);

      const pids = startedPids(finished.stderr);
      assert.equal(pids.length, 4, 'two apps, the baseline and the PUT ceiling were started');
      for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `process ${pid} still runs`);
      assert.deepEqual(readdirSync(scratch), [], 'temporary files left behind');
      assert.deepEqual(await benchDatabases(server.url), before, 'the benchmark database was dropped');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      server.stop();
    }
  },
);
