// `npm run bench`: the bare node:http ceiling and the real app, each in its own process, driven
// in turn by autocannon from this process. See docs/performance.md for the method and results.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type IssuedJwt, JwtService } from '../src/auth/jwt.js';
import type { DatabaseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';
import { runLoad, type LoadResult } from './load.js';
import { type BenchOptions, parseOptions, UsageError, USAGE } from './options.js';
import { createTemporaryDatabase, type TemporaryDatabase } from './postgres.js';
import { type OwnProcesses, waitForQuietMachine } from './cpu.js';
import { freePort, readMemory, type ServerProcess, startServer, stopAllServers, waitUntilIdle } from './processes.js';
import { type DatabaseKind, type DatabaseOutcome, DISTURBED_SHARE, formatSummary, formatTable, type PairedRun, type ScenarioOutcome, tableRows, unexpectedAnswers } from './report.js';
import { buildScenarios, type HttpRequest, requestsForConnection, type Scenario } from './scenarios.js';
import { type SeedData, seedDatabase } from './seed.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const APP_SCRIPT = path.join(here, '../src/main.js');
const BASELINE_SCRIPT = path.join(here, 'baseline.js');

/** Undo steps, run last-in first-out on success, failure and Ctrl-C alike. */
class Cleanup {
  #steps: Array<() => unknown> = [];
  #running: Promise<void> | undefined;

  add(step: () => unknown): void {
    this.#steps.push(step);
  }

  run(): Promise<void> {
    this.#running ??= (async () => {
      while (this.#steps.length > 0) {
        const step = this.#steps.pop();
        try {
          await step?.();
        } catch (error) {
          process.stderr.write(`bench: cleanup step failed: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
      await stopAllServers();
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }
}

const startedAt = performance.now();

function progress(line: string): void {
  process.stderr.write(`bench [${((performance.now() - startedAt) / 1000).toFixed(1)} s]: ${line}\n`);
}

function describeMachine(): string {
  const cpus = os.cpus();
  const autocannonVersion = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;
  return `${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}, autocannon ${autocannonVersion}`;
}

async function fetchText(url: string, request: HttpRequest): Promise<{ status: number; body: string }> {
  const response = await fetch(url + request.path, { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) });
  return { status: response.status, body: await response.text() };
}

interface RunContext {
  options: BenchOptions;
  /** Both servers: each run waits until they are idle, so neither bills the other's leftovers. */
  servers: ServerProcess[];
  ownProcesses: OwnProcesses;
}

async function load(server: ServerProcess, requests: readonly HttpRequest[], seconds: number, { options, servers, ownProcesses }: RunContext): Promise<LoadResult> {
  await waitUntilIdle(servers.map((other) => other.pid));
  return runLoad({
    url: server.url,
    connections: options.connections,
    durationSeconds: seconds,
    requestsForConnection: (index) => requestsForConnection(requests, index, options.connections),
    ownProcesses,
  });
}

const MAX_ATTEMPTS = 3;
// Distinct requests per scenario: every seeded user by default; fewer in --quick, where autocannon
// would spend more time building them than sending them.
const FULL_ROTATION = 10_000;
const QUICK_ROTATION = 2_000;
const QUIET_WAIT_MS = 30_000;

function percent(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}

/** The baseline answers every path alike; the sites-list path keeps the request line the same size. */
const BASELINE_REQUEST: HttpRequest = { method: 'GET', path: '/api/v1/sites', headers: {} };

interface SeededDatabase {
  config: DatabaseConfig;
  /** The throw-away PostgreSQL database; undefined on SQLite. */
  temporary: TemporaryDatabase | undefined;
  seed: SeedData;
  seedSeconds: number;
}

/** A fresh database, migrated and seeded from this process before the app starts on it. */
async function seedFreshDatabase(kind: DatabaseKind, options: BenchOptions, dataDir: string, cleanup: Cleanup): Promise<SeededDatabase> {
  let config: DatabaseConfig;
  let temporary: TemporaryDatabase | undefined;
  if (kind === 'sqlite') {
    // The file the app's own configuration picks when DATABASE_URL is unset.
    config = { kind: 'sqlite', file: path.join(dataDir, 'siteward.db') };
  } else {
    const created = await createTemporaryDatabase(options.databaseUrl ?? '');
    cleanup.add(() => created.drop());
    temporary = created;
    config = { kind: 'postgres', url: created.url, poolSize: 4 };
  }
  progress(`${kind}: seeding ${options.users} users, ${options.users * options.sitesPerUser} sites, ${options.tokens} access tokens`);
  const started = performance.now();
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db);
    const seed = await seedDatabase(database.db, { users: options.users, sitesPerUser: options.sitesPerUser, tokens: options.tokens });
    return { config, temporary, seed, seedSeconds: (performance.now() - started) / 1000 };
  } finally {
    await database.close();
  }
}

/** The production entry point, as `npm start` runs it, with the environment an operator would set. */
function startApp(kind: DatabaseKind, options: BenchOptions, dir: string, dataDir: string, database: DatabaseConfig, port: number, jwtSecret: string): Promise<ServerProcess> {
  const profileArgs =
    options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.profileDir)}`, `--cpu-prof-name=app-${kind}-${Date.now()}.cpuprofile`];
  return startServer({
    name: `app (${kind})`,
    args: [...profileArgs, ...options.nodeArgs, '--enable-source-maps', APP_SCRIPT],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      JWT_SECRET: jwtSecret,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: options.logLevel,
      // The default, stated: no periodic partner checks, so the app makes no outgoing requests.
      PARTNER_CHECK_INTERVAL: '0',
      ...(database.kind === 'postgres' ? { DATABASE_URL: database.url } : {}),
    },
    port,
    logFile: path.join(dir, 'app.log'),
    readyPath: '/healthz',
  });
}

/** One request per scenario before any load: a scenario answered with errors would measure the wrong thing. */
async function probeScenarios(kind: DatabaseKind, app: ServerProcess, scenarios: Scenario[]): Promise<ScenarioOutcome[]> {
  const outcomes: ScenarioOutcome[] = [];
  for (const scenario of scenarios) {
    const first = scenario.requests[0];
    const answer = first === undefined ? { status: 0, body: 'no requests (nothing seeded?)' } : await fetchText(app.url, first);
    const verdict = scenario.check(answer.status, answer.body);
    outcomes.push({
      id: scenario.id,
      label: scenario.label,
      unit: scenario.unit,
      target: scenario.target,
      status: verdict === 'ok' ? 'measured' : verdict === 'unavailable' ? 'unavailable' : 'failed',
      expectedStatus: answer.status,
      reason: verdict === 'ok' ? null : verdict === 'unavailable' ? `${first?.path ?? ''} answers ${answer.status}` : verdict,
      runs: [],
    });
    if (verdict !== 'ok') progress(`${kind}: ${scenario.id} not measured: ${verdict === 'unavailable' ? 'not available yet' : verdict}`);
  }
  return outcomes;
}

/** The ceiling, answering with exactly the body the app gives a seeded user's first page. */
async function startBaseline(app: ServerProcess, jwt: string, dir: string): Promise<{ baseline: ServerProcess; bodyBytes: number }> {
  const list = await fetchText(app.url, { method: 'GET', path: '/api/v1/sites', headers: { authorization: `Bearer ${jwt}` } });
  if (list.status !== 200) throw new Error(`GET /api/v1/sites answered ${list.status}: ${list.body.slice(0, 300)}`);
  const bodyFile = path.join(dir, 'list.json');
  writeFileSync(bodyFile, list.body);
  const port = await freePort();
  const baseline = await startServer({
    name: 'baseline',
    args: [BASELINE_SCRIPT],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', BENCH_BODY_FILE: bodyFile, PORT: String(port) },
    port,
    logFile: path.join(dir, 'baseline.log'),
    readyPath: '/healthz',
  });
  const answer = await fetchText(baseline.url, BASELINE_REQUEST);
  const bodyBytes = Buffer.byteLength(list.body);
  if (Buffer.byteLength(answer.body) !== bodyBytes) {
    await baseline.stop();
    throw new Error(`the baseline body is ${Buffer.byteLength(answer.body)} bytes, the sites list ${bodyBytes}`);
  }
  return { baseline, bodyBytes };
}

/**
 * A baseline run then a scenario run. The machine may be shared: each pair first waits (a while)
 * for a quiet second, and a pair that other processes disturbed all the same is run again, up to
 * MAX_ATTEMPTS times.
 */
async function measurePair(kind: DatabaseKind, baseline: ServerProcess, app: ServerProcess, scenario: Scenario, round: number, context: RunContext): Promise<PairedRun> {
  const { options } = context;
  for (let attempts = 1; ; attempts++) {
    if (!options.quick) {
      const waitedMs = await waitForQuietMachine(context.ownProcesses, DISTURBED_SHARE, QUIET_WAIT_MS);
      if (waitedMs > 2000) progress(`${kind}: waited ${Math.round(waitedMs / 1000)} s for other processes to quieten`);
    }
    const baselineRun = await load(baseline, [BASELINE_REQUEST], options.durationSeconds, context);
    baseline.assertAlive();
    const scenarioRun = await load(app, scenario.requests, options.durationSeconds, context);
    app.assertAlive();
    const disturbed = Math.max(baselineRun.otherCpuShare, scenarioRun.otherCpuShare) > DISTURBED_SHARE;
    if (options.quick || !disturbed || attempts >= MAX_ATTEMPTS) {
      return { round, attempts, baseline: baselineRun, scenario: scenarioRun, rssMb: readMemory(app.pid).rssMb };
    }
  }
}

function describePair(kind: DatabaseKind, scenario: Scenario, outcome: ScenarioOutcome, pair: PairedRun, rounds: number): string {
  const unexpected = unexpectedAnswers(pair.scenario, outcome.expectedStatus);
  return (
    `${kind} round ${pair.round}/${rounds} ${scenario.id}: ${Math.round(pair.scenario.requestsPerSecond)} ${scenario.unit}` +
    ` (baseline ${Math.round(pair.baseline.requestsPerSecond)}), p99 ${pair.scenario.p99Ms.toFixed(2)} ms, RSS ${pair.rssMb.toFixed(1)} MB` +
    `, other processes ${percent(pair.baseline.otherCpuShare)}/${percent(pair.scenario.otherCpuShare)} of the CPU` +
    (pair.attempts > 1 ? ` (attempt ${pair.attempts})` : '') +
    (unexpected > 0 ? `, ${unexpected} unexpected answers: ${JSON.stringify(pair.scenario.statusCodes)}, ${pair.scenario.errors} errors` : '')
  );
}

async function benchmarkDatabase(kind: DatabaseKind, options: BenchOptions, cleanup: Cleanup): Promise<DatabaseOutcome> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siteward-bench-'));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const { config, temporary, seed, seedSeconds } = await seedFreshDatabase(kind, options, dataDir, cleanup);

  const port = await freePort();
  const jwtSecret = randomBytes(48).toString('base64url');
  // Minted as the app mints them: same secret, same issuer. The revocation generation is the
  // seeded default, 0 (an older issue(userId) simply ignores the second argument).
  const jwtService = new JwtService(jwtSecret, `http://127.0.0.1:${port}`, systemClock);
  const issue: (userId: string, generation: number) => IssuedJwt = jwtService.issue.bind(jwtService);
  const jwts = seed.users.map((user) => issue(user.id, 0).token);

  const app = await startApp(kind, options, dir, dataDir, config, port, jwtSecret);
  cleanup.add(() => app.stop());
  progress(`${kind}: app started, pid ${app.pid}, ${app.url}`);
  const scenarios = buildScenarios({ seed, jwts, rotation: options.quick ? QUICK_ROTATION : FULL_ROTATION }).filter((scenario) => options.scenarios.includes(scenario.id));
  const outcomes = await probeScenarios(kind, app, scenarios);
  const { baseline, bodyBytes } = await startBaseline(app, jwts[0] ?? '', dir);
  cleanup.add(() => baseline.stop());
  progress(`${kind}: baseline started, pid ${baseline.pid}, ${baseline.url}`);

  const context: RunContext = {
    options,
    servers: [app, baseline],
    ownProcesses: async () => [app.pid, baseline.pid, ...((await temporary?.serverPids()) ?? [])],
  };
  const measured = scenarios.flatMap((scenario) => {
    const outcome = outcomes.find((candidate) => candidate.id === scenario.id);
    return outcome?.status === 'measured' ? [{ scenario, outcome }] : [];
  });
  if (options.warmupSeconds > 0) {
    progress(`${kind}: warming up (${options.warmupSeconds} s per scenario)`);
    await load(baseline, [BASELINE_REQUEST], options.warmupSeconds, context);
    for (const { scenario } of measured) await load(app, scenario.requests, options.warmupSeconds, context);
    app.assertAlive();
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const { scenario, outcome } of measured) {
      const pair = await measurePair(kind, baseline, app, scenario, round, context);
      outcome.runs.push(pair);
      progress(describePair(kind, scenario, outcome, pair, options.rounds));
    }
  }

  const result: DatabaseOutcome = {
    database: kind,
    seedSeconds,
    bodyBytes,
    baselineRssMb: readMemory(baseline.pid).rssMb,
    appPeakRssMb: readMemory(app.pid).peakRssMb,
    appLogBytes: statSync(app.logFile).size,
    scenarios: outcomes,
  };
  // Stops both servers, drops the PostgreSQL database and removes the directory before the next database runs.
  await cleanup.run();
  return result;
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.message !== '') process.stderr.write(`bench: ${error.message}\n\n`);
    process.stderr.write(`${USAGE}\n`);
    return error.message === '' ? 0 : 2;
  }

  const cleanup = new Cleanup();
  const interrupt = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping the servers and removing temporary files`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  const databases: DatabaseKind[] = [...(options.skipSqlite ? [] : ['sqlite' as const]), ...(options.databaseUrl === undefined ? [] : ['postgres' as const])];
  const header = [
    '# Siteward benchmark',
    '',
    `- machine: ${describeMachine()}`,
    `- load: autocannon from the benchmark process, ${options.connections} connections, ${options.durationSeconds} s per run, ` +
      `${options.rounds} rounds of baseline then scenario, ${options.warmupSeconds} s warm-up per scenario${options.quick ? ' (--quick)' : ''}`,
    `- seed per database: ${options.users} users, ${options.users * options.sitesPerUser} sites (${options.sitesPerUser} per user), ${options.tokens} personal access tokens`,
    `- app: node ${[...options.nodeArgs, '--enable-source-maps'].join(' ')} dist/src/main.js, NODE_ENV=production, LOG_LEVEL=${options.logLevel} (to a file), 127.0.0.1; databases: ${databases.join(', ')}`,
    '- req/s, p50 and p99 are medians over the rounds; ratio is the median of scenario ÷ the baseline run just before it; RSS is the app\'s largest VmRSS after the scenario',
    '',
  ];
  process.stdout.write(`${header.join('\n')}\n`);

  try {
    const outcomes: DatabaseOutcome[] = [];
    for (const kind of databases) outcomes.push(await benchmarkDatabase(kind, options, cleanup));

    const rows = outcomes.flatMap(tableRows);
    const summary = outcomes.flatMap((outcome) => formatSummary(outcome, options.logLevel));
    process.stdout.write(`${formatTable(rows)}\n\n${summary.map((line) => `- ${line}`).join('\n')}\n`);
    if (options.jsonFile !== undefined) {
      writeFileSync(options.jsonFile, `${JSON.stringify({ machine: describeMachine(), options: { ...options, databaseUrl: options.databaseUrl === undefined ? null : '(set)' }, rows, outcomes }, null, 2)}\n`);
    }
    // Targets missed are results; a scenario that could not run, or answered errors, is a broken benchmark.
    const broken = rows.filter((row) => row.verdict.startsWith('FAILED') || (row.unexpected ?? 0) > 0);
    return broken.length > 0 ? 1 : 0;
  } finally {
    await cleanup.run();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

