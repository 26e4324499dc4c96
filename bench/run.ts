// `npm run bench`: the ceilings (bare node:http, and bare node:http doing the PUT's one UPDATE)
// and the real app (two processes on PostgreSQL), each in its own process, driven in turn by
// autocannon from this process. See docs/performance.md for the method and results.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type IssuedJwt, JwtService } from '../src/auth/jwt.js';
import { type DatabaseConfig, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';
import { runLoad, type LoadResult } from './load.js';
import { type BenchOptions, parseOptions, UsageError, USAGE } from './options.js';
import { createTemporaryDatabase, type TemporaryDatabase } from './postgres.js';
import { type OwnProcesses, otherShare, readCpu, waitForQuietMachine } from './cpu.js';
import { freePort, readMemory, type ServerProcess, startServer, stopAllServers, waitUntilIdle } from './processes.js';
import {
  type DatabaseKind,
  type DatabaseOutcome,
  DISTURBED_SHARE,
  formatSummary,
  formatTable,
  median,
  type PairedRun,
  type ScenarioOutcome,
  type StreamsFigures,
  tableRows,
  unexpectedAnswers,
} from './report.js';
import type { CapturedAnswers } from './public-ceiling.js';
import { buildScenarios, type HttpRequest, requestsForConnection, type Scenario, type StreamsPlan } from './scenarios.js';
import { measureStreams } from './streams.js';
import { type SeedData, seedDatabase } from './seed.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const APP_SCRIPT = path.join(here, '../src/main.js');
const BASELINE_SCRIPT = path.join(here, 'baseline.js');
const PUT_CEILING_SCRIPT = path.join(here, 'put-ceiling.js');
const PUBLIC_CEILING_SCRIPT = path.join(here, 'public-ceiling.js');

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

async function fetchText(url: string, request: HttpRequest): Promise<{ status: number; body: string; closes: boolean }> {
  const response = await fetch(url + request.path, { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) });
  return { status: response.status, body: await response.text(), closes: response.headers.get('connection')?.toLowerCase() === 'close' };
}

interface RunContext {
  options: BenchOptions;
  /** Every server: each run waits until they are idle, so none bills another's leftovers. */
  servers: ServerProcess[];
  ownProcesses: OwnProcesses;
}

async function load(targets: readonly ServerProcess[], requests: readonly HttpRequest[], seconds: number, { options, servers, ownProcesses }: RunContext): Promise<LoadResult> {
  await waitUntilIdle(servers.map((other) => other.pid));
  return runLoad({
    urls: targets.map((target) => target.url),
    serverPids: targets.map((target) => target.pid),
    connections: options.connections,
    durationSeconds: seconds,
    requestsForConnection: (index) => requestsForConnection(requests, index, options.connections),
    ownProcesses,
  });
}

/**
 * Sends every request once to every app, a few at a time, and fails on an answer that is not a 200
 * (or the 304 a request with If-None-Match asks for).
 */
async function askEachOnce(apps: readonly ServerProcess[], requests: readonly HttpRequest[]): Promise<void> {
  await Promise.all(
    apps.map(async (app) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let request = requests[next++]; request !== undefined; request = requests[next++]) {
            const answer = await fetchText(app.url, request);
            const expected = request.headers['if-none-match'] === undefined ? 200 : 304;
            if (answer.status !== expected) throw new Error(`${app.name} answered ${request.method} ${request.path} with ${answer.status}: ${answer.body.slice(0, 300)}`);
          }
        }),
      );
    }),
  );
}

const MAX_ATTEMPTS = 3;
// Distinct requests per scenario: every seeded user by default; fewer in --quick, where autocannon
// would spend more time building them than sending them.
const FULL_ROTATION = 10_000;
const QUICK_ROTATION = 2_000;
const QUIET_WAIT_MS = 30_000;
/** How long the streams may take to hear of the change before those that did not count as missed. */
const STREAMS_WAIT_MS = 10_000;

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

/** What every app process of one pass shares, as servers behind one load balancer would. */
interface AppSettings {
  kind: DatabaseKind;
  dir: string;
  dataDir: string;
  database: DatabaseConfig;
  /** One PUBLIC_URL for all of them: it is the JWTs' issuer, so a token works on every process. */
  publicUrl: string;
  jwtSecret: string;
  encryptionKey: string;
}

/** The environment an operator would set for `npm start`. */
function appEnvironment(settings: AppSettings, options: BenchOptions, port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: settings.publicUrl,
    DATA_DIR: settings.dataDir,
    JWT_SECRET: settings.jwtSecret,
    ENCRYPTION_KEY: settings.encryptionKey,
    LOG_LEVEL: options.logLevel,
    // The default, stated: no periodic partner checks, so the app makes no outgoing requests.
    PARTNER_CHECK_INTERVAL: '0',
    // The default bound (10,000), unless the streams scenario is asked for more.
    ...(options.streams > 10_000 ? { PUBLIC_STREAMS_MAX: String(options.streams) } : {}),
    // Every stream comes from the load generator's one address.
    PUBLIC_STREAMS_PER_ADDRESS: String(Math.max(options.streams, 10_000)),
    ...(settings.database.kind === 'postgres' ? { DATABASE_URL: settings.database.url } : {}),
    // The metrics listener on, to measure what it costs the hot path (one app process only: one port).
    ...(process.env.BENCH_METRICS_PORT === undefined ? {} : { METRICS_PORT: process.env.BENCH_METRICS_PORT }),
  };
}

/** With --profile, node's flags to write a CPU profile of a server (the app or a ceiling) into the directory. */
function profileArgs(options: BenchOptions, name: string): string[] {
  if (options.profileDir === undefined) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.profileDir)}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`];
}

/** The production entry point, as `npm start` runs it. */
function startApp(settings: AppSettings, options: BenchOptions, port: number, name: string): Promise<ServerProcess> {
  return startServer({
    name: `${name} (${settings.kind})`,
    args: [...profileArgs(options, `${name.replace(' ', '-')}-${settings.kind}`), ...options.nodeArgs, APP_SCRIPT],
    env: appEnvironment(settings, options, port),
    port,
    logFile: path.join(settings.dir, `${name.replace(' ', '-')}.log`),
    readyPath: '/healthz',
  });
}

/**
 * Every probe of every scenario before any load, spread over the app processes: a scenario
 * answered with errors would measure the wrong thing.
 */
async function probeScenarios(kind: DatabaseKind, apps: readonly ServerProcess[], scenarios: Scenario[]): Promise<ScenarioOutcome[]> {
  const outcomes: ScenarioOutcome[] = [];
  let next = 0;
  for (const scenario of scenarios) {
    const statuses = new Set<number>();
    let verdict: string = scenario.probes.length === 0 ? 'no requests (nothing seeded?)' : 'ok';
    let failedPath = '';
    let failedStatus = 0;
    for (const probe of scenario.probes) {
      const app = apps[next++ % apps.length];
      if (app === undefined) break;
      const answer = await fetchText(app.url, probe.request);
      // autocannon keeps timing answers on a reopened connection from the sends made before it
      // closed, so every later latency on it would be too long.
      const result = answer.closes ? `the app closes the connection after ${probe.request.method} ${probe.request.path}, which autocannon would mis-time` : probe.check(answer.status, answer.body);
      statuses.add(answer.status);
      if (result !== 'ok') {
        verdict = result;
        failedPath = probe.request.path;
        failedStatus = answer.status;
        break;
      }
    }
    outcomes.push({
      id: scenario.id,
      label: scenario.label,
      unit: scenario.unit,
      target: scenario.target,
      ceiling: scenario.ceiling,
      status: verdict === 'ok' ? 'measured' : verdict === 'unavailable' ? 'unavailable' : 'failed',
      expectedStatuses: [...statuses].sort((a, b) => a - b),
      reason: verdict === 'ok' ? null : verdict === 'unavailable' ? `${failedPath} answers ${failedStatus}` : verdict,
      runs: [],
    });
    if (verdict !== 'ok') progress(`${kind}: ${scenario.id} not measured: ${verdict === 'unavailable' ? 'not available yet' : verdict}`);
  }
  return outcomes;
}

/** The GET ceiling, answering with exactly the body the app gives a seeded user's first page. */
async function startBaseline(app: ServerProcess, jwt: string, dir: string, options: BenchOptions): Promise<{ baseline: ServerProcess; bodyBytes: number }> {
  const list = await fetchText(app.url, { method: 'GET', path: '/api/v1/sites', headers: { authorization: `Bearer ${jwt}` } });
  if (list.status !== 200) throw new Error(`GET /api/v1/sites answered ${list.status}: ${list.body.slice(0, 300)}`);
  const bodyFile = path.join(dir, 'list.json');
  writeFileSync(bodyFile, list.body);
  const port = await freePort();
  const baseline = await startServer({
    name: 'baseline',
    args: [...options.ceilingNodeArgs, BASELINE_SCRIPT],
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
 * The PUT ceiling on the same data as the app. On SQLite it works on a copy of the seeded file,
 * taken before the app opened it: the app's caches are emptied whenever another connection commits
 * to its file, so a second writer there would bill the read scenarios for the ceiling's writes.
 * On PostgreSQL it works on the app's own database, with the pool size the app's configuration gives.
 */
async function startPutCeiling(settings: AppSettings, options: BenchOptions, ceilingFile: string | undefined, probe: HttpRequest): Promise<ServerProcess> {
  const port = await freePort();
  const database: Record<string, string> =
    settings.database.kind === 'sqlite'
      ? { BENCH_SQLITE_FILE: ceilingFile ?? '' }
      : { BENCH_POSTGRES_URL: settings.database.url, BENCH_POOL_SIZE: String(poolSizeOfApp(settings, options)) };
  const ceiling = await startServer({
    name: 'put ceiling',
    args: [...options.ceilingNodeArgs, PUT_CEILING_SCRIPT],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', PORT: String(port), ...database, ...(options.putCeilingHistory ? { BENCH_SITE_HISTORY: '1' } : {}) },
    port,
    logFile: path.join(settings.dir, 'put-ceiling.log'),
    readyPath: '/healthz',
  });
  const answer = await fetchText(ceiling.url, probe);
  if (answer.status !== 200) {
    await ceiling.stop();
    throw new Error(`the PUT ceiling answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  }
  return ceiling;
}

/** An answer as node:http gives it, headers and all, for the public ceiling to send again. */
function rawGet(url: string, request: HttpRequest, agent: Agent | false = false): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url + request.path, { headers: request.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers: Record<string, string | string[]> = {};
        // The transport's own headers are node's to write, in the ceiling as in the app.
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
        resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

/**
 * The public path's ceiling, sending exactly the answers the app gives each of the scenarios'
 * paths: its 200 and its 304, headers and body, byte for byte, every key its own.
 */
async function startPublicCeiling(app: ServerProcess, paths: readonly string[], dir: string, options: BenchOptions): Promise<{ ceiling: ServerProcess; bodyBytes: number }> {
  const captured: CapturedAnswers = {};
  const okBodies: Buffer[] = [];
  // Kept-alive connections: a connection per request would leave tens of thousands closing.
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let target = paths[next++]; target !== undefined; target = paths[next++]) {
        const okAnswer = await rawGet(app.url, { method: 'GET', path: target, headers: {} }, agent);
        const notModifiedAnswer = await rawGet(app.url, { method: 'GET', path: target, headers: { 'if-none-match': '"1"' } }, agent);
        if (okAnswer.status !== 200 || notModifiedAnswer.status !== 304) throw new Error(`the public configuration ${target} answered ${okAnswer.status} and ${notModifiedAnswer.status}, not 200 and 304`);
        captured[target] = { ok: { headers: okAnswer.headers, body: okAnswer.body.toString('base64') }, notModified: { headers: notModifiedAnswer.headers } };
        okBodies.push(okAnswer.body);
      }
    }),
  ).finally(() => agent.destroy());
  const answersFile = path.join(dir, 'public.json');
  writeFileSync(answersFile, JSON.stringify(captured));
  const port = await freePort();
  const ceiling = await startServer({
    name: 'public ceiling',
    args: [...profileArgs(options, 'public-ceiling'), ...options.ceilingNodeArgs, PUBLIC_CEILING_SCRIPT],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', BENCH_ANSWERS_FILE: answersFile, PORT: String(port) },
    port,
    logFile: path.join(dir, 'public-ceiling.log'),
    readyPath: '/healthz',
  });
  // The first and the last path, checked against what the app sent.
  for (const target of [paths[0], paths[paths.length - 1]]) {
    const sent = target === undefined ? undefined : captured[target];
    if (target === undefined || sent === undefined) continue;
    const echoed = await rawGet(ceiling.url, { method: 'GET', path: target, headers: {} });
    if (echoed.body.toString('base64') !== sent.ok.body || JSON.stringify(echoed.headers) !== JSON.stringify(sent.ok.headers)) {
      await ceiling.stop();
      throw new Error(`the public ceiling does not send the bytes the app sent for ${target}`);
    }
  }
  const sizes = okBodies.map((body) => body.length).sort((a, b) => a - b);
  return { ceiling, bodyBytes: sizes[Math.floor(sizes.length / 2)] ?? Number.NaN };
}

/** DATABASE_POOL_SIZE as the app reads it from the environment the benchmark gives it. */
function poolSizeOfApp(settings: AppSettings, options: BenchOptions): number {
  const database = loadConfig(appEnvironment(settings, options, 1)).database;
  return database.kind === 'postgres' ? database.poolSize : 1;
}

/** Copies a closed SQLite database (and a write-ahead log, should one be left). */
function copySqliteFile(from: string, to: string): void {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
}

function appMemory(apps: readonly ServerProcess[]): number[] {
  return apps.map((app) => readMemory(app.pid).rssMb);
}

/**
 * A ceiling run then a scenario run. The machine may be shared: each pair first waits (a while)
 * for a quiet second, and a pair that other processes disturbed all the same is run again, up to
 * MAX_ATTEMPTS times.
 */
async function measurePair(
  kind: DatabaseKind,
  ceiling: { server: ServerProcess; requests: readonly HttpRequest[] },
  apps: readonly ServerProcess[],
  scenario: Scenario,
  round: number,
  context: RunContext,
): Promise<PairedRun> {
  const { options } = context;
  for (let attempts = 1; ; attempts++) {
    await waitForQuiet(kind, context);
    const baselineRun = await load([ceiling.server], ceiling.requests, options.durationSeconds, context);
    ceiling.server.assertAlive();
    const scenarioRun = await load(apps, scenario.requests, options.durationSeconds, context);
    for (const app of apps) app.assertAlive();
    const disturbed = Math.max(baselineRun.otherCpuShare, scenarioRun.otherCpuShare) > DISTURBED_SHARE;
    if (options.noQuietWait || !disturbed || attempts >= MAX_ATTEMPTS) {
      return { round, attempts, baseline: baselineRun, scenario: scenarioRun, appRssMb: appMemory(apps) };
    }
  }
}

async function waitForQuiet(kind: DatabaseKind, context: RunContext): Promise<void> {
  if (context.options.noQuietWait) return;
  const waitedMs = await waitForQuietMachine(context.ownProcesses, DISTURBED_SHARE, QUIET_WAIT_MS);
  if (waitedMs > 2000) progress(`${kind}: waited ${Math.round(waitedMs / 1000)} s for other processes to quieten`);
}

/** The mixed load: once, over every app process, for its memory at the end. */
async function measureMixed(kind: DatabaseKind, apps: readonly ServerProcess[], scenario: Scenario, context: RunContext): Promise<PairedRun> {
  await waitForQuiet(kind, context);
  const run = await load(apps, scenario.requests, context.options.mixedSeconds, context);
  for (const app of apps) app.assertAlive();
  const appRssMb = appMemory(apps);
  await waitUntilIdle(apps.map((app) => app.pid));
  return { round: 1, attempts: 1, baseline: null, scenario: run, appRssMb, settledRssMb: appMemory(apps) };
}

/**
 * The event streams: held open on `holder`, an app process of their own, the change made through
 * the last of the other app processes, and the memory the streams took read between the two. No
 * ceiling: the targets are absolute (DESIGN: < 150 MB more RSS, every stream told within 2 s).
 */
async function measureStreamsScenario(plan: StreamsPlan, holder: ServerProcess, apps: readonly ServerProcess[], context: RunContext): Promise<{ pair: PairedRun; figures: StreamsFigures }> {
  const changer = apps.at(-1);
  if (changer === undefined) throw new Error('no app process started');
  await waitUntilIdle(context.servers.map((server) => server.pid));
  const cpuBefore = await readCpu(context.ownProcesses);
  const rssBeforeMb = readMemory(holder.pid).rssMb;
  let rssOpenMb = Number.NaN;
  const startedAt = performance.now();
  const result = await measureStreams({
    url: holder.url,
    path: `/public/v1/sites/${plan.publicKey}/events`,
    count: plan.count,
    opened: async () => {
      // Settled: what the opening cost in passing (garbage) is not what holding them costs.
      await waitUntilIdle([holder.pid]);
      rssOpenMb = readMemory(holder.pid).rssMb;
    },
    change: async () => {
      const answer = await fetch(`${changer.url}/api/v1/sites/${plan.siteId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${plan.ownerJwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Streamed and changed' }),
      });
      const body = (await answer.json()) as { site?: { id: string } };
      if (answer.status !== 200 || body.site === undefined) throw new Error(`the streamed site's change answered ${answer.status}`);
      return Number((answer.headers.get('etag') ?? '').replaceAll('"', ''));
    },
    waitMs: STREAMS_WAIT_MS,
  });
  for (const app of [holder, ...apps]) app.assertAlive();
  const cpuAfter = await readCpu(context.ownProcesses);
  const slowest = result.deliveriesMs.at(-1) ?? Number.NaN;
  const figures: StreamsFigures = {
    holder: holder.name,
    changer: changer.name,
    requested: plan.count,
    opened: result.opened,
    failed: result.failed,
    missed: result.missed,
    rssBeforeMb,
    rssOpenMb,
    medianDeliveryMs: median(result.deliveriesMs),
    slowestDeliveryMs: slowest,
  };
  // The table's columns, for this row: streams open, the median and the slowest delivery, the RSS growth.
  const scenario = {
    requestsPerSecond: result.opened,
    p50Ms: figures.medianDeliveryMs,
    p99Ms: result.missed > 0 ? Number.NaN : slowest,
    responses: result.opened,
    non2xx: 0,
    errors: result.failed + result.missed,
    statusCodes: { '200': result.opened },
    responsesPerServer: [result.opened],
    durationSeconds: (performance.now() - startedAt) / 1000,
    otherCpuShare: otherShare(cpuBefore, cpuAfter),
    serverCpuMicrosPerAnswer: Number.NaN,
  };
  return { pair: { round: 1, attempts: 1, baseline: null, scenario, appRssMb: [rssOpenMb - rssBeforeMb] }, figures };
}

function describeStreams(kind: DatabaseKind, figures: StreamsFigures): string {
  return (
    `${kind} public-streams: ${figures.opened} of ${figures.requested} streams open on ${figures.holder} (${figures.failed} failed), RSS ${figures.rssBeforeMb.toFixed(1)} → ${figures.rssOpenMb.toFixed(1)} MB; ` +
    `a change through ${figures.changer} reached them in ${figures.medianDeliveryMs.toFixed(1)} ms (median), ${figures.slowestDeliveryMs.toFixed(1)} ms (slowest), ${figures.missed} missed`
  );
}

function describePair(kind: DatabaseKind, scenario: Scenario, outcome: ScenarioOutcome, pair: PairedRun, rounds: number): string {
  const unexpected = unexpectedAnswers(pair.scenario, outcome.expectedStatuses);
  const ceiling = pair.baseline === null ? '' : ` (${scenario.ceiling === 'put' ? 'PUT ceiling' : 'baseline'} ${Math.round(pair.baseline.requestsPerSecond)})`;
  const shares = [...(pair.baseline === null ? [] : [pair.baseline.otherCpuShare]), pair.scenario.otherCpuShare].map(percent).join('/');
  const cpu =
    pair.baseline === null
      ? `, CPU ${pair.scenario.serverCpuMicrosPerAnswer.toFixed(0)} µs an answer`
      : `, CPU ${pair.scenario.serverCpuMicrosPerAnswer.toFixed(0)} µs an answer (ceiling ${pair.baseline.serverCpuMicrosPerAnswer.toFixed(0)} µs: ${(pair.baseline.serverCpuMicrosPerAnswer / pair.scenario.serverCpuMicrosPerAnswer).toFixed(2)})`;
  return (
    `${kind} round ${pair.round}/${pair.baseline === null ? 1 : rounds} ${scenario.id}: ${Math.round(pair.scenario.requestsPerSecond)} ${scenario.unit}${ceiling}` +
    `, p99 ${pair.scenario.p99Ms.toFixed(2)} ms, RSS ${pair.appRssMb.map((rss) => rss.toFixed(1)).join(' and ')} MB${cpu}, other processes ${shares} of the CPU` +
    (pair.scenario.responsesPerServer.length > 1 ? `, answers per app ${pair.scenario.responsesPerServer.join('/')}` : '') +
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
  let ceilingFile: string | undefined;
  if (config.kind === 'sqlite') {
    ceilingFile = path.join(dir, 'put-ceiling.db');
    copySqliteFile(config.file, ceilingFile);
  }

  const appCount = kind === 'postgres' ? options.postgresApps : 1;
  const ports: number[] = [];
  while (ports.length < appCount) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const settings: AppSettings = {
    kind,
    dir,
    dataDir,
    database: config,
    publicUrl: `http://127.0.0.1:${ports[0] ?? 0}`,
    jwtSecret: randomBytes(48).toString('base64url'),
    encryptionKey: randomBytes(32).toString('base64'),
  };
  // Minted as the app mints them: same secret, same issuer. The revocation generation is the
  // seeded default, 0 (an older issue(userId) simply ignores the second argument).
  const jwtService = new JwtService(settings.jwtSecret, settings.publicUrl, systemClock);
  const issue: (userId: string, generation: number) => IssuedJwt = jwtService.issue.bind(jwtService);
  const jwts = seed.users.map((user) => issue(user.id, 0).token);

  const apps: ServerProcess[] = [];
  for (const [index, port] of ports.entries()) {
    const app = await startApp(settings, options, port, appCount > 1 ? `app ${index + 1}` : 'app');
    cleanup.add(() => app.stop());
    apps.push(app);
    progress(`${kind}: ${app.name} started, pid ${app.pid}, ${app.url}`);
  }
  const scenarios = buildScenarios({ seed, jwts, rotation: options.quick ? QUICK_ROTATION : FULL_ROTATION, connections: options.connections, streams: options.streams }).filter((scenario) =>
    options.scenarios.includes(scenario.id),
  );
  const outcomes = await probeScenarios(kind, apps, scenarios);
  const firstApp = apps[0];
  if (firstApp === undefined) throw new Error('no app process started');
  const { baseline, bodyBytes } = await startBaseline(firstApp, jwts[0] ?? '', dir, options);
  cleanup.add(() => baseline.stop());
  progress(`${kind}: baseline started, pid ${baseline.pid}, ${baseline.url}`);

  const measured = scenarios.flatMap((scenario) => {
    const outcome = outcomes.find((candidate) => candidate.id === scenario.id);
    return outcome?.status === 'measured' ? [{ scenario, outcome }] : [];
  });
  const putScenario = measured.find(({ scenario }) => scenario.ceiling === 'put')?.scenario;
  let putCeiling: ServerProcess | undefined;
  if (putScenario?.requests[0] !== undefined) {
    putCeiling = await startPutCeiling(settings, options, ceilingFile, putScenario.requests[0]);
    const started = putCeiling;
    cleanup.add(() => started.stop());
    progress(`${kind}: put ceiling started, pid ${putCeiling.pid}, ${putCeiling.url}`);
  }

  const publicPaths = [...new Set(measured.filter(({ scenario }) => scenario.ceiling === 'public').flatMap(({ scenario }) => scenario.requests.map((request) => request.path)))];
  let publicCeiling: ServerProcess | undefined;
  let publicBodyBytes = Number.NaN;
  if (publicPaths.length > 0) {
    const started = await startPublicCeiling(firstApp, publicPaths, dir, options);
    publicCeiling = started.ceiling;
    publicBodyBytes = started.bodyBytes;
    cleanup.add(() => started.ceiling.stop());
    progress(`${kind}: public ceiling started, pid ${started.ceiling.pid}, ${started.ceiling.url}`);
  }

  const servers = [...apps, baseline, ...(putCeiling === undefined ? [] : [putCeiling]), ...(publicCeiling === undefined ? [] : [publicCeiling])];
  const context: RunContext = {
    options,
    servers,
    ownProcesses: async () => [...servers.map((server) => server.pid), ...((await temporary?.serverPids()) ?? [])],
  };
  const ceilingOf = (scenario: Scenario) => {
    if (scenario.ceiling === 'put' && putCeiling !== undefined) return { server: putCeiling, requests: scenario.requests };
    // The same requests as the scenario: the ceiling answers each with the app's own 200 or 304.
    if (scenario.ceiling === 'public' && publicCeiling !== undefined) return { server: publicCeiling, requests: scenario.requests };
    return { server: baseline, requests: [BASELINE_REQUEST] };
  };
  const paired = measured.filter(({ scenario }) => scenario.ceiling !== null);
  // The event streams on an app process of their own, which serves nothing else and stops after
  // them: the memory they take is then theirs, not what a login's argon2id or the other scenarios'
  // garbage left behind, and what they leave behind (a process keeps most of the heap it grew) is
  // not counted in the RSS of the other scenarios. Their site is changed through another app
  // process, so the change reaches them through the database's change feed, on SQLite too.
  for (const { scenario, outcome } of measured.filter(({ scenario }) => scenario.streams !== undefined)) {
    const plan = scenario.streams;
    if (plan === undefined) continue;
    const holder = await startApp(settings, options, await freePort(), 'streams app');
    progress(`${kind}: ${holder.name} started, pid ${holder.pid}, ${holder.url}; opening ${plan.count} event streams on it`);
    try {
      const run = await measureStreamsScenario(plan, holder, apps, {
        ...context,
        servers: [...servers, holder],
        ownProcesses: async () => [...(await context.ownProcesses()), holder.pid],
      });
      outcome.runs.push(run.pair);
      outcome.streams = run.figures;
      progress(describeStreams(kind, run.figures));
    } finally {
      await holder.stop();
    }
  }
  if (options.warmupSeconds > 0) {
    progress(`${kind}: warming up (${options.warmupSeconds} s per scenario)`);
    await load([baseline], [BASELINE_REQUEST], options.warmupSeconds, context);
    if (putCeiling !== undefined && putScenario !== undefined) await load([putCeiling], putScenario.requests, options.warmupSeconds, context);
    for (const { scenario } of paired.filter((each) => each.scenario.ceiling === 'public')) await load([ceilingOf(scenario).server], scenario.requests, options.warmupSeconds, context);
    for (const { scenario } of paired) await load(apps, scenario.requests, options.warmupSeconds, context);
    for (const app of apps) app.assertAlive();
  }
  // The cached reads' targets are for a warm cache. A timed warm-up reaches every row only when the
  // app is fast enough, and one scenario's rows fit the default CACHE_MB while all of them together
  // do not, so a run would begin by reading back what the runs before it pushed out. Each app is
  // asked each of a scenario's requests once before a run that follows one of other rows; --quick,
  // which measures nothing, only before each scenario's first run.
  const warmed = new Set<string>();
  let lastRows: string | undefined;
  for (let round = 1; round <= options.rounds; round++) {
    for (const { scenario, outcome } of paired) {
      const rows = scenario.warm;
      if (rows !== undefined && rows !== lastRows && !(options.quick && warmed.has(rows))) {
        await askEachOnce(apps, scenario.requests);
        warmed.add(rows);
      }
      lastRows = rows;
      const pair = await measurePair(kind, ceilingOf(scenario), apps, scenario, round, context);
      outcome.runs.push(pair);
      progress(describePair(kind, scenario, outcome, pair, options.rounds));
    }
  }
  for (const { scenario, outcome } of measured.filter(({ scenario }) => scenario.ceiling === null && scenario.streams === undefined)) {
    progress(`${kind}: ${scenario.id} load for ${options.mixedSeconds} s`);
    const run = await measureMixed(kind, apps, scenario, context);
    outcome.runs.push(run);
    progress(describePair(kind, scenario, outcome, run, options.rounds));
  }

  const result: DatabaseOutcome = {
    database: kind,
    appServers: appCount,
    seedSeconds,
    bodyBytes,
    baselineRssMb: readMemory(baseline.pid).rssMb,
    putCeilingRssMb: putCeiling === undefined ? Number.NaN : readMemory(putCeiling.pid).rssMb,
    publicCeilingRssMb: publicCeiling === undefined ? Number.NaN : readMemory(publicCeiling.pid).rssMb,
    publicBodyBytes,
    appPeakRssMb: apps.map((app) => readMemory(app.pid).peakRssMb),
    appLogBytes: apps.reduce((sum, app) => sum + statSync(app.logFile).size, 0),
    putCeilingHistory: options.putCeilingHistory,
    scenarios: outcomes,
  };
  // Stops every server, drops the PostgreSQL database and removes the directory before the next database runs.
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
      `${options.rounds} rounds of ceiling then scenario, ${options.warmupSeconds} s warm-up per scenario, then ${options.mixedSeconds} s of mixed load${options.quick ? ' (--quick)' : ''}`,
    `- seed per database: ${options.users} users, ${options.users * options.sitesPerUser} sites (${options.sitesPerUser} per user), ${options.tokens} personal access tokens`,
    `- app: node ${options.nodeArgs.join(' ')} dist/src/main.js, NODE_ENV=production, LOG_LEVEL=${options.logLevel} (to a file), 127.0.0.1; databases: ${databases.map((kind) => (kind === 'postgres' && options.postgresApps > 1 ? `postgres with ${options.postgresApps} app processes sharing the connections` : kind)).join(', ')}`,
    `- ceilings: node ${options.ceilingNodeArgs.length === 0 ? '' : `${options.ceilingNodeArgs.join(' ')} `}…; bare node:http with the same JSON (GETs); bare node:http + JSON.parse + one prepared UPDATE … RETURNING${options.putCeilingHistory ? ' + a history row' : ''} in a transaction (PUT)`,
    '- req/s, p50 and p99 are medians over the rounds; ratio is the median of scenario ÷ its ceiling\'s run just before it; RSS is the largest VmRSS of the app processes after the scenario',
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

