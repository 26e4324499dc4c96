import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// Runs the real benchmark, briefly, and checks its output is a well-formed table. No timing is
// asserted: on a shared two-core machine any figure would make this test flaky, and the figures
// belong in docs/performance.md, not in a pass/fail.

const RUNNER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.js');
const ROWS = ['baseline', 'list-jwt', 'list-pat', 'get-site', 'put-site', 'healthz', 'magic-page', 'login'];
const COLUMNS = ['database', 'scenario', 'request', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'RSS MB', 'unexpected', 'target', 'verdict'];

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBenchmark(args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve, reject) => {
    // SIGTERM on timeout: the benchmark then stops its servers and removes its files itself.
    const child = spawn(process.execPath, ['--enable-source-maps', RUNNER, ...args], { env, timeout: 50_000, killSignal: 'SIGTERM' });
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

test('npm run bench -- --quick prints every scenario with figures that parse, then leaves no process or file behind', { timeout: 240_000 }, async () => {
  // The benchmark's temporary directories land here, so the test can prove they are removed.
  const scratch = mkdtempSync(path.join(tmpdir(), 'siteward-bench-test-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: scratch };
    // SQLite only: the PostgreSQL pass doubles the time; it runs in `npm run bench` with DATABASE_URL.
    delete env.DATABASE_URL;
    const finished = await runBenchmark(['--quick', '--duration', '0.15', '--warmup', '0.05', '--users', '1000'], env);
    assert.equal(finished.code, 0, `exit ${finished.code}\n${finished.stdout}\n${finished.stderr}`);

    const rows = parseTable(finished.stdout);
    assert.deepEqual(rows.map((row) => row.scenario), ROWS);
    for (const row of rows) {
      assert.equal(row.database, 'sqlite');
      if (row.scenario === 'magic-page' && row['req/s'] === 'not available yet') {
        assert.equal(row.verdict, 'not available yet');
        continue;
      }
      // A login costs an argon2id hash: in a run this short, on a busy machine, none may finish,
      // and then it has no latency to report.
      if (row.scenario === 'login' && row['p50 ms'] === 'n/a') {
        assert.equal(number(row, 'req/s'), 0, 'login: no latency only when nothing finished');
        continue;
      }
      const least = row.scenario === 'login' ? 0 : Number.MIN_VALUE;
      assert.ok(number(row, 'req/s') >= least, `${row.scenario} req/s`);
      const p50 = number(row, 'p50 ms');
      assert.ok(number(row, 'p99 ms') >= p50, `${row.scenario} p99 ≥ p50`);
      assert.ok(number(row, 'ratio') >= least, `${row.scenario} ratio`);
      assert.ok(number(row, 'RSS MB') > 0, `${row.scenario} RSS`);
      // A scenario answered with errors (a 401, say) would measure the wrong thing.
      assert.equal(number(row, 'unexpected'), 0, `${row.scenario} unexpected answers`);
      assert.match(row.verdict ?? '', /^(met|MISSED: .+|—)$/);
    }
    assert.match(finished.stdout, /sqlite: app peak RSS \(VmHWM\) \d+\.\d MB, target < 200 MB: (met|MISSED)/);

    const pids = [...finished.stderr.matchAll(/started, pid (\d+)/g)].map((match) => Number(match[1]));
    assert.equal(pids.length, 2, 'the app and the baseline were started');
    for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `process ${pid} still runs`);
    assert.deepEqual(readdirSync(scratch), [], 'temporary files left behind');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
