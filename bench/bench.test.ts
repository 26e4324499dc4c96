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
  'cache-fill',
  'usage-counting',
];
const COLUMNS = ['scenario', 'database', 'CPU ratio', 'spread', 'µs/req (ceiling)', 'p99 ms (ceiling)', 'p99 ×', 'rate/s (offered)', 'saturated req/s (ceiling)', 'RSS MB', 'cache hits %', 'unexpected', 'verdict'];
/** The rows measured in alternated pairs against a ceiling. */
const PAIRED = new Set(['list-jwt', 'list-pat', 'get-site', 'public-config', 'public-304', 'put-site', 'healthz', 'magic-page', 'login']);

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

// --quick's tiny counts: every measure once; a thousand users seed quickly.
const SHORT = ['--quick', '--users', '1000'];

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

// A figure, or n/a where a run too short to count a 10 ms tick of CPU time has none.
const FIGURE = String.raw`(\d+(\.\d+)?|n/a)`;

function number(row: Record<string, string>, column: string): number {
  const text = row[column] ?? '';
  assert.match(text, /^-?\d+(\.\d+)?$/, `${row.scenario} ${column} is "${text}"`);
  return Number(text);
}

/** "x (y)": the app's figure and its ceiling's. */
function pairedCell(row: Record<string, string>, column: string): void {
  assert.match(row[column] ?? '', new RegExp(`^${FIGURE} \\(${FIGURE}\\)$`), `${row.scenario} ${column}`);
}

/** Checks one row's structure: every measure present and parsed, no answer unexpected. No figure is judged. */
function checkRow(row: Record<string, string>): void {
  if (row.scenario === 'magic-page' && row.verdict === 'not available yet') return;
  if (PAIRED.has(row.scenario ?? '')) {
    assert.match(row['CPU ratio'] ?? '', new RegExp(`^${FIGURE}$`), `${row.scenario} CPU ratio`);
    assert.match(row.spread ?? '', new RegExp(`^${FIGURE}–${FIGURE}$`), `${row.scenario} spread`);
    for (const column of ['µs/req (ceiling)', 'p99 ms (ceiling)', 'rate/s (offered)', 'saturated req/s (ceiling)']) pairedCell(row, column);
    assert.match(row['p99 ×'] ?? '', new RegExp(`^${FIGURE}$`), `${row.scenario} p99 multiple`);
    // The offered rate is DESIGN's for the kind of request.
    const offered = /\((\d+)\)$/.exec(row['rate/s (offered)'] ?? '')?.[1];
    const expected = row.scenario?.startsWith('public') ? '5000' : row.scenario === 'put-site' || row.scenario === 'magic-page' ? '500' : row.scenario === 'login' ? '5' : '2000';
    assert.equal(offered, expected, `${row.scenario} offered rate`);
    assert.ok(number(row, 'RSS MB') > 0, `${row.scenario} RSS`);
    // Read from the apps' metrics around each half: n/a where the requests look nothing up (the
    // health check, sign-in); the authenticated reads look up their principal and their answer.
    if (['list-jwt', 'list-pat', 'get-site'].includes(row.scenario ?? '')) {
      const hits = number(row, 'cache hits %');
      assert.ok(hits >= 0 && hits <= 100, `${row.scenario} cache hits`);
    } else assert.match(row['cache hits %'] ?? '', new RegExp(`^${FIGURE}$`), `${row.scenario} cache hits`);
    assert.match(row.verdict ?? '', /^(—|(CPU ≥ \d\.\d\d|p99 ≤ [\d.]+×|holds \d+\/s|RSS < \d+ MB) (met|MISSED)(, (CPU ≥ \d\.\d\d|p99 ≤ [\d.]+×|holds \d+\/s|RSS < \d+ MB) (met|MISSED))*)$/, `${row.scenario} verdict`);
  } else if (row.scenario === 'public-streams') {
    number(row, 'p99 ms (ceiling)');
    assert.equal(row['rate/s (offered)'], '200 (200)', 'every stream opened');
    // The growth, which a collection during the opening can make negative.
    number(row, 'RSS MB');
    assert.match(row.verdict ?? '', /^told within 2000 ms (met|MISSED), RSS growth < 150 MB (met|MISSED)$/);
  } else if (row.scenario === 'mixed') {
    assert.ok(number(row, 'saturated req/s (ceiling)') > 0, 'mixed req/s');
    assert.ok(number(row, 'RSS MB') > 0, 'mixed RSS');
    assert.match(row.verdict ?? '', /^RSS < 200 MB (met|MISSED)$/);
  } else if (row.scenario === 'cache-fill') {
    number(row, 'RSS MB');
    // --quick fills a 1 MB cache. Its reads are checked one by one as they are sent: no count here.
    assert.match(row.verdict ?? '', /^RSS growth ≤ 1\.3 MB (met|MISSED)$/);
    assert.equal(row.unexpected, '–');
    return;
  } else {
    assert.equal(row.scenario, 'usage-counting');
    assert.match(row['CPU ratio'] ?? '', new RegExp(`^${FIGURE}$`));
    pairedCell(row, 'µs/req (ceiling)');
    assert.equal(/\((\d+)\)$/.exec(row['rate/s (offered)'] ?? '')?.[1], '5000');
  }
  // A scenario answered with errors (a 401, say) would measure the wrong thing.
  assert.equal(number(row, 'unexpected'), 0, `${row.scenario} unexpected answers`);
}

/** The pids of every server the benchmark started, from its progress lines. */
function startedPids(stderr: string): number[] {
  return [...stderr.matchAll(/started, pid (\d+)/g)].map((match) => Number(match[1]));
}

test('npm run bench -- --quick prints one table with every measure of every scenario, figures that parse, then leaves no process or file behind', { timeout: 240_000 }, async () => {
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
    assert.match(rows.find((row) => row.scenario === 'put-site')?.verdict ?? '', /^CPU ≥ 0\.40 (met|MISSED), p99 ≤ 2× (met|MISSED)$/);
    assert.match(rows.find((row) => row.scenario === 'list-jwt')?.verdict ?? '', /^CPU ≥ 0\.50 (met|MISSED), p99 ≤ 2× (met|MISSED)$/);
    assert.match(rows.find((row) => row.scenario === 'public-304')?.verdict ?? '', /^CPU ≥ 0\.80 (met|MISSED), p99 ≤ 1\.5× (met|MISSED)$/);
    assert.match(finished.stdout, /sqlite: RSS of each app process after the mixed load \(\d+ s, default cache\): \d+\.\d MB, target < 200 MB: (met|MISSED)/);
    assert.match(finished.stdout, /sqlite: cache fill: CACHE_MB=1, \d+ distinct reads answering \d+\.\d MB; RSS [\d.]+ → [\d.]+ MB, growth -?[\d.]+ MB, target ≤ 1\.3 MB/);
    assert.match(finished.stdout, /sqlite: cache fill, where the growth is: V8 heap taken [+-][\d.]+ MB \(used [+-][\d.]+\), buffers and other external memory [+-][\d.]+ MB, the rest \(SQLite's page caches, malloc's slack, code\) [+-][\d.]+ MB/);
    assert.match(finished.stdout, /sqlite: cache fill, the same reads on an app without a cache \(CACHE_MB=0\): RSS [+-][\d.]+ MB, .*; the cache's own part [+-][\d.]+ MB = -?[\d.]+ × CACHE_MB/);
    assert.match(finished.stdout, new RegExp(`sqlite: usage counting: the public ceiling takes ${FIGURE} µs a request without the app's usage counter and ${FIGURE} µs with it .*: counting costs -?${FIGURE} µs a public request`));
    assert.match(finished.stdout, /sqlite: 200 of 200 event streams open on streams app \(sqlite\) \(0 failed\): RSS [\d.]+ → [\d.]+ MB .*, 0 missed/);

    const pids = startedPids(finished.stderr);
    assert.equal(pids.length, 8, 'the app, the baseline, the PUT ceiling, both public ceilings, the streams app, the app without a cache and the cache app were started');
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
  'on PostgreSQL the benchmark runs two app processes on one database against the GET and PUT ceilings, then drops its database and stops every process',
  { timeout: 240_000, skip: (process.env.TEST_DATABASE_URL ?? '') === '' && !postgresInstalled() ? 'no TEST_DATABASE_URL and PostgreSQL is not installed' : false },
  async () => {
    const server = await postgresServer();
    assert.ok(server !== undefined);
    const scratch = mkdtempSync(path.join(tmpdir(), 'siteward-bench-test-'));
    try {
      const before = await benchDatabases(server.url);
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: scratch, DATABASE_URL: server.url };
      // One GET scenario, the PUT and the mixed load: both kinds of ceiling here, and both processes
      // under load, with a warm-up in which the connection pools fill.
      const args = [...SHORT, '--pair-seconds', '0.2', '--warmup', '0.5', '--no-sqlite', '--scenarios', 'list-jwt,put-site,mixed'];
      const finished = await runBenchmark(args, env, 120_000);
      assert.equal(finished.code, 0, `exit ${finished.code}\n${finished.stdout}\n${finished.stderr}`);

      const rows = parseTable(finished.stdout);
      assert.deepEqual(rows.map((row) => row.scenario), ['list-jwt', 'put-site', 'mixed', 'cache-fill']);
      for (const row of rows) {
        assert.equal(row.database, 'postgres (2 apps)');
        checkRow(row);
      }
      // On PostgreSQL the PUT's CPU ratio has no target; the apps must hold the rate.
      assert.match(rows.find((row) => row.scenario === 'put-site')?.verdict ?? '', /^p99 ≤ 2× (met|MISSED), holds 500\/s (met|MISSED)$/);
      assert.match(finished.stdout, /postgres \(2 apps\): RSS of each app process after the mixed load \(\d+ s, default cache\): \d+\.\d and \d+\.\d MB, target < 200 MB: (met|MISSED)/);
      assert.equal([...finished.stderr.matchAll(/app \d \(postgres\) started/g)].length, 2);
      // Both processes took their half of the paced requests.
      const shares = [...finished.stderr.matchAll(/answers per app (\d+)\/(\d+)/g)];
      assert.equal(shares.length, 2, `per-app answers of each pair in:\n${finished.stderr}`);
      for (const app of [1, 2]) assert.ok(shares.reduce((sum, share) => sum + Number(share[app]), 0) > 0, `app ${app} answered nothing`);

      const pids = startedPids(finished.stderr);
      assert.equal(pids.length, 6, 'two apps, the baseline, the PUT ceiling, the app without a cache and the cache app were started');
      for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `process ${pid} still runs`);
      assert.deepEqual(readdirSync(scratch), [], 'temporary files left behind');
      assert.deepEqual(await benchDatabases(server.url), before, 'the benchmark database was dropped');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      server.stop();
    }
  },
);
