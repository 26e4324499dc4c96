// `npm run bench`: the ceilings (bare node:http, and bare node:http doing the PUT's one UPDATE)
// and the real app (two processes on PostgreSQL), each in its own process, driven in turn from
// this process: at an even, fixed rate for the CPU time per request and the p99 (bench/paced.ts),
// saturated by autocannon for the throughput that is only printed. See docs/performance.md.
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
import { runPaced } from './paced.js';
import { type BenchOptions, parseOptions, UsageError, USAGE } from './options.js';
import { createTemporaryDatabase, type TemporaryDatabase } from './postgres.js';
import type { OwnProcesses } from './cpu.js';
import { freePort, readMemory, type ServerProcess, startServer, stopAllServers, waitUntilIdle } from './processes.js';
import {
  type CacheCounts,
  type CacheLosses,
  type CacheFillFigures,
  type DatabaseKind,
  type DatabaseOutcome,
  formatSummary,
  formatTable,
  median,
  type MemoryParts,
  type MixedFigures,
  type PairedRun,
  type ScenarioOutcome,
  type StreamsFigures,
  tableRows,
  unexpectedAnswers,
  type UsageCountingFigures,
} from './report.js';
import type { CapturedAnswers } from './public-ceiling.js';
import { buildScenarios, GET_RATE, type HttpRequest, PUBLIC_RATE, PUT_RATE, requestsForConnection, type Scenario, type StreamsPlan } from './scenarios.js';
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
  // fetch asks for gzip, deflate and br unless told otherwise: a request that names no coding asks
  // for none, as the load clients send it, or its compressed copies would be made and charged to
  // the cache here alone, and the entries would be larger than under the load.
  const headers = 'accept-encoding' in request.headers ? request.headers : { ...request.headers, 'accept-encoding': 'identity' };
  const response = await fetch(url + request.path, { method: request.method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
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
 * (or the 304 a request with If-None-Match asks for). Resolves with the answers' bytes.
 */
async function askEachOnce(apps: readonly ServerProcess[], requests: readonly HttpRequest[]): Promise<number> {
  let bytes = 0;
  await Promise.all(
    apps.map(async (app) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let request = requests[next++]; request !== undefined; request = requests[next++]) {
            const answer = await fetchText(app.url, request);
            const expected = request.headers['if-none-match'] === undefined ? 200 : 304;
            if (answer.status !== expected) throw new Error(`${app.name} answered ${request.method} ${request.path} with ${answer.status}: ${answer.body.slice(0, 300)}`);
            bytes += Buffer.byteLength(answer.body);
          }
        }),
      );
    }),
  );
  return bytes;
}

// Distinct requests per scenario: every seeded user by default; fewer in --quick, where autocannon
// would spend more time building them than sending them.
const FULL_ROTATION = 10_000;
const QUICK_ROTATION = 300;
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
function appEnvironment(settings: AppSettings, options: BenchOptions, port: number, extra: Record<string, string> = {}): Record<string, string> {
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
    ...extra,
  };
}

/** With --profile, node's flags to write a CPU profile of a server (an app or a ceiling) into the directory. */
function profileArgs(options: BenchOptions, name: string): string[] {
  if (options.profileDir === undefined) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.profileDir)}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`];
}

/** An app process, with the address of its metrics listener. */
interface AppProcess extends ServerProcess {
  metricsUrl: string;
}

/**
 * The production entry point, as `npm start` runs it, with its metrics listener on a port of its
 * own (METRICS_PORT), from which the cache's hit and miss counts are read around each run.
 */
async function startApp(settings: AppSettings, options: BenchOptions, port: number, name: string, env: Record<string, string> = {}): Promise<AppProcess> {
  const metricsPort = await freePort();
  const server = await startServer({
    name: `${name} (${settings.kind})`,
    args: [...profileArgs(options, `${name.replace(' ', '-')}-${settings.kind}`), ...options.nodeArgs, APP_SCRIPT],
    env: appEnvironment(settings, options, port, { METRICS_PORT: String(metricsPort), ...env }),
    port,
    logFile: path.join(settings.dir, `${name.replace(' ', '-')}.log`),
    readyPath: '/healthz',
  });
  return Object.assign(server, { metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
}

/** The app processes' cache counters so far, summed (their metrics). */
async function cacheCounts(apps: readonly AppProcess[]): Promise<CacheCounts> {
  const counts: CacheCounts = { hits: 0, misses: 0, evictions: 0, refusedStores: 0, clears: 0 };
  for (const app of apps) {
    const response = await fetch(app.metricsUrl);
    const text = await response.text();
    if (!response.ok) throw new Error(`${app.name}: metrics answered ${response.status}`);
    counts.hits += counterValue(text, 'siteward_cache_hits_total');
    counts.misses += counterValue(text, 'siteward_cache_misses_total');
    counts.evictions += counterValue(text, 'siteward_cache_evictions_total');
    counts.refusedStores += counterValue(text, 'siteward_cache_refused_stores_total');
    counts.clears += counterValue(text, 'siteward_cache_clears_total');
  }
  return counts;
}

function lossesBetween(before: CacheCounts, after: CacheCounts): CacheLosses {
  return { evictions: after.evictions - before.evictions, refusedStores: after.refusedStores - before.refusedStores, clears: after.clears - before.clears };
}

function describeLosses(losses: CacheLosses): string {
  return `${losses.evictions} evicted, ${losses.refusedStores} stores refused, ${losses.clears} cleared`;
}

/** Where an app process's memory is, from its metrics (prom-client's process figures), in MiB. */
async function memoryParts(app: AppProcess): Promise<MemoryParts> {
  const response = await fetch(app.metricsUrl);
  const text = await response.text();
  if (!response.ok) throw new Error(`${app.name}: metrics answered ${response.status}`);
  const mib = (name: string) => counterValue(text, name) / 1024 / 1024;
  return { heapTotalMb: mib('nodejs_heap_size_total_bytes'), heapUsedMb: mib('nodejs_heap_size_used_bytes'), externalMb: mib('nodejs_external_memory_bytes') };
}

function counterValue(metrics: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics);
  if (match?.[1] === undefined) throw new Error(`no ${name} in the metrics`);
  return Number(match[1]);
}

/** The share of the lookups between two counts that the cache answered; NaN when none were made. */
function hitShare(before: CacheCounts, after: CacheCounts): number {
  const hits = after.hits - before.hits;
  const lookups = hits + after.misses - before.misses;
  return lookups === 0 ? Number.NaN : hits / lookups;
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
      target: scenario.target,
      ceiling: scenario.ceiling,
      rate: scenario.rate,
      status: verdict === 'ok' ? 'measured' : verdict === 'unavailable' ? 'unavailable' : 'failed',
      expectedStatuses: [...statuses].sort((a, b) => a - b),
      reason: verdict === 'ok' ? null : verdict === 'unavailable' ? `${failedPath} answers ${failedStatus}` : verdict,
      pairs: [],
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
    args: [...profileArgs(options, 'baseline'), ...options.ceilingNodeArgs, BASELINE_SCRIPT],
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
    args: [...profileArgs(options, `put-ceiling-${settings.database.kind}`), ...options.ceilingNodeArgs, PUT_CEILING_SCRIPT],
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
async function startPublicCeiling(app: ServerProcess, paths: readonly string[], dir: string, options: BenchOptions): Promise<{ ceiling: ServerProcess; bodyBytes: number; answersFile: string }> {
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
  const ceiling = await startPublicCeilingFrom(answersFile, dir, options, false);
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
  return { ceiling, bodyBytes: sizes[Math.floor(sizes.length / 2)] ?? Number.NaN, answersFile };
}

/** A public ceiling sending the captured answers; `counting`: it also counts them with the app's usage counter. */
async function startPublicCeilingFrom(answersFile: string, dir: string, options: BenchOptions, counting: boolean): Promise<ServerProcess> {
  const name = counting ? 'counting public ceiling' : 'public ceiling';
  const port = await freePort();
  return startServer({
    name,
    args: [...profileArgs(options, name.replaceAll(' ', '-')), ...options.ceilingNodeArgs, PUBLIC_CEILING_SCRIPT],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', BENCH_ANSWERS_FILE: answersFile, PORT: String(port), ...(counting ? { BENCH_USAGE_COUNTING: '1' } : {}) },
    port,
    logFile: path.join(dir, `${name.replaceAll(' ', '-')}.log`),
    readyPath: '/healthz',
  });
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

/** Where a scenario's paced runs go, and whose CPU time their cost is. */
interface PacedTarget {
  servers: readonly ServerProcess[];
  requests: readonly HttpRequest[];
  costPids: () => Promise<number[]>;
}

/** Requests in one paced half: the first this many of a scenario's, cycled from the start if it has fewer. */
function requestsPerHalf(rate: number, options: BenchOptions): number {
  return Math.max(1, Math.round(rate * options.pairSeconds));
}

/**
 * One half of a pair: `rate` requests a second for options.pairSeconds. The count is fixed by the
 * rate and the length, the same for the ceiling and the scenario.
 */
async function paced(target: PacedTarget, rate: number, { options, servers, ownProcesses }: RunContext): Promise<LoadResult> {
  await waitUntilIdle(servers.map((server) => server.pid));
  const result = await runPaced({
    urls: target.servers.map((server) => server.url),
    costPids: target.costPids,
    rate,
    count: requestsPerHalf(rate, options),
    requests: target.requests,
    ownProcesses,
  });
  for (const server of target.servers) server.assertAlive();
  return result;
}

/**
 * The cost and latency figures: options.pairs pairs, each the ceiling's half then the scenario's,
 * at the scenario's rate. Alternating keeps each pair's two halves under the same load from the
 * rest of the machine, which changes from minute to minute; the median of the pairs' ratios then
 * sets aside a pair that a burst elsewhere upset.
 */
async function measurePairs(kind: DatabaseKind, ceiling: PacedTarget, app: PacedTarget, scenario: Scenario, apps: readonly AppProcess[], context: RunContext): Promise<PairedRun[]> {
  const pairs: PairedRun[] = [];
  for (let pair = 1; pair <= context.options.pairs; pair++) {
    const ceilingRun = await paced(ceiling, scenario.rate, context);
    const countsBefore = await cacheCounts(apps);
    const scenarioRun = await paced(app, scenario.rate, context);
    const countsAfter = await cacheCounts(apps);
    const run: PairedRun = { pair, ceiling: ceilingRun, scenario: scenarioRun, appRssMb: appMemory(apps), cacheHitShare: hitShare(countsBefore, countsAfter), cacheLosses: lossesBetween(countsBefore, countsAfter) };
    pairs.push(run);
    progress(describePair(kind, scenario, run, context.options.pairs));
  }
  return pairs;
}

/** The mixed load: once, saturated, over every app process, for its memory at the end. */
async function measureMixed(apps: readonly ServerProcess[], scenario: Scenario, context: RunContext): Promise<MixedFigures> {
  const run = await load(apps, scenario.requests, context.options.mixedSeconds, context);
  for (const app of apps) app.assertAlive();
  const appRssMb = appMemory(apps);
  await waitUntilIdle(apps.map((app) => app.pid));
  return { run, appRssMb, settledRssMb: appMemory(apps) };
}

/** What Chromium sends. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/**
 * DESIGN: CACHE_MB bounds what the cache really holds. An app process of its own, with CACHE_MB
 * set, first answers as many requests as the fill will, cycling over a few of each kind (so the
 * heap has grown to what serving that many costs, and the cache holds only those few), then every
 * distinct read of the scenarios once: more answers than CACHE_MB holds, so the cache ends full.
 * The RSS growth between the two is judged. The same is done first on an app without a cache
 * (CACHE_MB=0): what reading that many distinct rows costs a process whether or not it keeps them
 * (the database's page caches, per-caller state, code), so that the cache's own part is measured
 * rather than inferred.
 */
async function measureCacheFill(settings: AppSettings, options: BenchOptions, scenarios: readonly Scenario[]): Promise<CacheFillFigures> {
  // One request per row read: the 304s read the rows the 200s read. Asked as a browser asks, so
  // that the compressed copies its answers keep beside each body are in what is measured.
  const reads = scenarios
    .filter((scenario) => scenario.warm !== undefined && scenario.id !== 'public-304')
    .flatMap((scenario) => scenario.requests)
    .map((request) => ({ ...request, headers: { ...request.headers, 'accept-encoding': BROWSER_ACCEPT_ENCODING } }));
  const few = scenarios.filter((scenario) => scenario.warm !== undefined).flatMap((scenario) => scenario.requests.slice(0, 20));
  const warm = reads.flatMap((_, index) => few.slice(index % few.length, (index % few.length) + 1));
  const fill = async (cacheMb: number) => {
    const app = await startApp(settings, options, await freePort(), cacheMb === 0 ? 'app without a cache' : 'cache app', { CACHE_MB: String(cacheMb) });
    progress(`${settings.kind}: ${app.name} started, pid ${app.pid}, ${app.url}; reading ${reads.length} distinct answers (CACHE_MB=${cacheMb})`);
    try {
      await askEachOnce([app], warm);
      await waitUntilIdle([app.pid]);
      const rssBeforeMb = readMemory(app.pid).rssMb;
      const partsBefore = await memoryParts(app);
      const answeredBytes = await askEachOnce([app], reads);
      await waitUntilIdle([app.pid]);
      app.assertAlive();
      return { answeredBytes, rssBeforeMb, rssAfterMb: readMemory(app.pid).rssMb, partsBefore, partsAfter: await memoryParts(app) };
    } finally {
      await app.stop();
    }
  };
  const uncached = await fill(0);
  const cached = await fill(options.cacheMb);
  return {
    cacheMb: options.cacheMb,
    answeredMb: cached.answeredBytes / 1024 / 1024,
    requests: reads.length,
    rssBeforeMb: cached.rssBeforeMb,
    rssAfterMb: cached.rssAfterMb,
    partsBefore: cached.partsBefore,
    partsAfter: cached.partsAfter,
    uncachedGrowthMb: uncached.rssAfterMb - uncached.rssBeforeMb,
  };
}

/**
 * What the usage counter costs a public request: the public ceiling without it, then a second
 * public ceiling that counts each answer with the app's own counter, alternated at the public rate
 * (the app itself has no switch to stop counting, and none is a product setting).
 */
async function measureUsageCounting(kind: DatabaseKind, plain: ServerProcess, counting: ServerProcess, requests: readonly HttpRequest[], rate: number, appMicros: number, context: RunContext): Promise<UsageCountingFigures> {
  const target = (server: ServerProcess): PacedTarget => ({ servers: [server], requests, costPids: () => Promise.resolve([server.pid]) });
  const pairs: UsageCountingFigures['pairs'] = [];
  for (let pair = 1; pair <= context.options.pairs; pair++) {
    const without = await paced(target(plain), rate, context);
    const counted = await paced(target(counting), rate, context);
    pairs.push({ without, with: counted });
    progress(`${kind} pair ${pair}/${context.options.pairs} usage-counting: ${without.serverCpuMicrosPerAnswer.toFixed(1)} µs a request without counting, ${counted.serverCpuMicrosPerAnswer.toFixed(1)} µs with`);
  }
  return { pairs, rate, appMicros };
}

/**
 * The event streams: held open on `holder`, an app process of their own, the change made through
 * the last of the other app processes, and the memory the streams took read between the two. No
 * ceiling: the targets are absolute (DESIGN: < 150 MB more RSS, every stream told within 2 s).
 */
async function measureStreamsScenario(plan: StreamsPlan, holder: ServerProcess, apps: readonly ServerProcess[], context: RunContext): Promise<StreamsFigures> {
  const changer = apps.at(-1);
  if (changer === undefined) throw new Error('no app process started');
  await waitUntilIdle(context.servers.map((server) => server.pid));
  const rssBeforeMb = readMemory(holder.pid).rssMb;
  let rssOpenMb = Number.NaN;
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
  return {
    holder: holder.name,
    changer: changer.name,
    requested: plan.count,
    opened: result.opened,
    failed: result.failed,
    missed: result.missed,
    rssBeforeMb,
    rssOpenMb,
    medianDeliveryMs: median(result.deliveriesMs),
    slowestDeliveryMs: result.deliveriesMs.at(-1) ?? Number.NaN,
  };
}

function describeStreams(kind: DatabaseKind, figures: StreamsFigures): string {
  return (
    `${kind} public-streams: ${figures.opened} of ${figures.requested} streams open on ${figures.holder} (${figures.failed} failed), RSS ${figures.rssBeforeMb.toFixed(1)} → ${figures.rssOpenMb.toFixed(1)} MB; ` +
    `a change through ${figures.changer} reached them in ${figures.medianDeliveryMs.toFixed(1)} ms (median), ${figures.slowestDeliveryMs.toFixed(1)} ms (slowest), ${figures.missed} missed`
  );
}

function describePair(kind: DatabaseKind, scenario: Scenario, pair: PairedRun, pairs: number): string {
  const { ceiling, scenario: run } = pair;
  const unexpected = unexpectedAnswers(run, [200, 304, 400, 401, 404, 410]) > 0 || run.errors > 0 ? `, answers ${JSON.stringify(run.statusCodes)}, ${run.errors} errors` : '';
  return (
    `${kind} pair ${pair.pair}/${pairs} ${scenario.id} at ${scenario.rate}/s: CPU ${run.serverCpuMicrosPerAnswer.toFixed(0)} µs a request (ceiling ${ceiling.serverCpuMicrosPerAnswer.toFixed(0)} µs: ${(ceiling.serverCpuMicrosPerAnswer / run.serverCpuMicrosPerAnswer).toFixed(2)}), ` +
    `p99 ${run.p99Ms.toFixed(2)} ms (ceiling ${ceiling.p99Ms.toFixed(2)} ms), ${Math.round(run.requestsPerSecond)}/s answered (ceiling ${Math.round(ceiling.requestsPerSecond)}/s), ` +
    `RSS ${pair.appRssMb.map((rss) => rss.toFixed(1)).join(' and ')} MB, cache hits ${Number.isFinite(pair.cacheHitShare) ? percent(pair.cacheHitShare) : 'n/a'} (${describeLosses(pair.cacheLosses)}), other processes ${percent(run.otherCpuShare)} of the CPU` +
    (run.responsesPerServer.length > 1 ? `, answers per app ${run.responsesPerServer.join('/')}` : '') +
    unexpected
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

  const apps: AppProcess[] = [];
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
  let countingCeiling: ServerProcess | undefined;
  let publicBodyBytes = Number.NaN;
  if (publicPaths.length > 0) {
    const started = await startPublicCeiling(firstApp, publicPaths, dir, options);
    publicCeiling = started.ceiling;
    publicBodyBytes = started.bodyBytes;
    cleanup.add(() => started.ceiling.stop());
    progress(`${kind}: public ceiling started, pid ${started.ceiling.pid}, ${started.ceiling.url}`);
    if (measured.some(({ scenario }) => scenario.id === 'public-config')) {
      const counting = await startPublicCeilingFrom(started.answersFile, dir, options, true);
      countingCeiling = counting;
      cleanup.add(() => counting.stop());
      progress(`${kind}: counting public ceiling started, pid ${counting.pid}, ${counting.url}`);
    }
  }

  const servers = [baseline, ...apps, ...[putCeiling, publicCeiling, countingCeiling].filter((server) => server !== undefined)];
  const context: RunContext = {
    options,
    servers,
    ownProcesses: async () => [...servers.map((server) => server.pid), ...((await temporary?.serverPids()) ?? [])],
  };
  const pids = (processes: readonly ServerProcess[]) => () => Promise.resolve(processes.map((server) => server.pid));
  // The PUT's cost on PostgreSQL includes the backends' work, which its ceiling has too.
  const withBackends = (processes: readonly ServerProcess[]) => async () => [...processes.map((server) => server.pid), ...((await temporary?.backendPids()) ?? [])];
  const ceilingOf = (scenario: Scenario): PacedTarget => {
    if (scenario.ceiling === 'put' && putCeiling !== undefined) return { servers: [putCeiling], requests: scenario.requests, costPids: withBackends([putCeiling]) };
    // The same requests as the scenario: the ceiling answers each with the app's own 200 or 304.
    if (scenario.ceiling === 'public' && publicCeiling !== undefined) return { servers: [publicCeiling], requests: scenario.requests, costPids: pids([publicCeiling]) };
    return { servers: [baseline], requests: [BASELINE_REQUEST], costPids: pids([baseline]) };
  };
  const appTarget = (scenario: Scenario): PacedTarget => ({ servers: apps, requests: scenario.requests, costPids: scenario.ceiling === 'put' ? withBackends(apps) : pids(apps) });
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
      outcome.streams = await measureStreamsScenario(plan, holder, apps, { ...context, servers: [...servers, holder] });
      progress(describeStreams(kind, outcome.streams));
    } finally {
      await holder.stop();
    }
  }
  // The cache filled on an app process of its own too: the apps under load hold the default cache.
  const cacheFill = measured.some(({ scenario }) => scenario.warm !== undefined)
    ? await measureCacheFill(
        settings,
        options,
        measured.map(({ scenario }) => scenario),
      )
    : undefined;
  if (cacheFill !== undefined) progress(`${kind}: cache fill: RSS ${cacheFill.rssBeforeMb.toFixed(1)} → ${cacheFill.rssAfterMb.toFixed(1)} MB reading ${cacheFill.answeredMb.toFixed(1)} MB of answers`);

  if (options.warmupSeconds > 0) {
    progress(`${kind}: warming up (${options.warmupSeconds} s per scenario and ceiling)`);
    await load([baseline], [BASELINE_REQUEST], options.warmupSeconds, context);
    for (const server of [putCeiling, publicCeiling, countingCeiling]) {
      const scenario = paired.find((each) => (server === putCeiling ? each.scenario.ceiling === 'put' : each.scenario.ceiling === 'public'))?.scenario;
      if (server !== undefined && scenario !== undefined) await load([server], scenario.requests, options.warmupSeconds, context);
    }
    for (const { scenario } of paired) await load(apps, scenario.requests, options.warmupSeconds, context);
    for (const app of apps) app.assertAlive();
  }
  // The cached reads' targets are for a warm cache, and what one scenario's halves ask fits the
  // default CACHE_MB while all scenarios' rows together do not: each app is asked once each
  // request the halves will send before the pairs of a scenario that reads other rows than the
  // one before it. Only those: get-site has more distinct callers than the cache holds, and
  // warming them all in order would leave the halves' first ones pushed out by the last.
  let lastRows: string | undefined;
  for (const { scenario, outcome } of paired) {
    const rows = scenario.warm;
    if (rows !== undefined && rows !== lastRows) {
      const before = await cacheCounts(apps);
      const asked = scenario.requests.slice(0, requestsPerHalf(scenario.rate, options));
      await askEachOnce(apps, asked);
      progress(`${kind} ${scenario.id}: asked each of the ${asked.length} requests the halves send once to warm the cache: ${describeLosses(lossesBetween(before, await cacheCounts(apps)))}`);
    }
    lastRows = rows;
    outcome.pairs = await measurePairs(kind, ceilingOf(scenario), appTarget(scenario), scenario, apps, context);
    // Saturated throughput, printed only: it restates how busy the machine is.
    const ceiling = ceilingOf(scenario);
    outcome.saturated = {
      ceiling: await load(ceiling.servers, ceiling.requests, options.saturatedSeconds, context),
      scenario: await load(apps, scenario.requests, options.saturatedSeconds, context),
    };
    progress(`${kind} ${scenario.id} saturated (${options.connections} connections): ${Math.round(outcome.saturated.scenario.requestsPerSecond)} req/s (ceiling ${Math.round(outcome.saturated.ceiling.requestsPerSecond)})`);
  }
  const publicConfig = paired.find(({ scenario }) => scenario.id === 'public-config');
  let usageCounting: UsageCountingFigures | undefined;
  if (publicConfig !== undefined && publicCeiling !== undefined && countingCeiling !== undefined) {
    const appMicros = median(publicConfig.outcome.pairs.map((pair) => pair.scenario.serverCpuMicrosPerAnswer).filter(Number.isFinite));
    usageCounting = await measureUsageCounting(kind, publicCeiling, countingCeiling, publicConfig.scenario.requests, publicConfig.scenario.rate, appMicros, context);
  }
  for (const { scenario, outcome } of measured.filter(({ scenario }) => scenario.ceiling === null && scenario.streams === undefined)) {
    progress(`${kind}: ${scenario.id} load for ${options.mixedSeconds} s`);
    outcome.mixed = await measureMixed(apps, scenario, context);
    progress(`${kind} ${scenario.id}: ${Math.round(outcome.mixed.run.requestsPerSecond)} req/s, RSS ${outcome.mixed.appRssMb.map((rss) => rss.toFixed(1)).join(' and ')} MB, answers ${JSON.stringify(outcome.mixed.run.statusCodes)}`);
  }

  const result: DatabaseOutcome = {
    database: kind,
    appServers: appCount,
    seedSeconds,
    bodyBytes,
    publicBodyBytes,
    appPeakRssMb: apps.map((app) => readMemory(app.pid).peakRssMb),
    appLogBytes: apps.reduce((sum, app) => sum + statSync(app.logFile).size, 0),
    putCeilingHistory: options.putCeilingHistory,
    scenarios: outcomes,
    ...(cacheFill === undefined ? {} : { cacheFill }),
    ...(usageCounting === undefined ? {} : { usageCounting }),
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
    `- cost and latency: ${options.pairs} alternated pairs (ceiling, then scenario) per scenario, each half ${options.pairSeconds} s at the scenario's even rate from the benchmark process ` +
      `(GET ${GET_RATE}/s, public ${PUBLIC_RATE}/s, PUT ${PUT_RATE}/s); CPU ratio = the ceiling's CPU time per request over the app's (with PostgreSQL's backends for the PUT), median and spread of the pairs; ` +
      `p99 × = median of the pairs' p99 over the ceiling's${options.quick ? ' (--quick: figures mean nothing)' : ''}`,
    `- saturated: autocannon, ${options.connections} connections, ${options.saturatedSeconds} s per scenario and ceiling, printed only; ${options.warmupSeconds} s warm-up per scenario; then ${options.mixedSeconds} s of mixed load; cache filled on an app with CACHE_MB=${options.cacheMb}`,
    `- seed per database: ${options.users} users, ${options.users * options.sitesPerUser} sites (${options.sitesPerUser} per user), ${options.tokens} personal access tokens`,
    `- app: node ${options.nodeArgs.join(' ')} dist/src/main.js, NODE_ENV=production, LOG_LEVEL=${options.logLevel} (to a file), METRICS_PORT on (its cache counters give the hits column; it also times each query, so the CPU figures include what metrics cost), 127.0.0.1; databases: ${databases.map((kind) => (kind === 'postgres' && options.postgresApps > 1 ? `postgres with ${options.postgresApps} app processes sharing the connections` : kind)).join(', ')}`,
    `- ceilings: node ${options.ceilingNodeArgs.length === 0 ? '' : `${options.ceilingNodeArgs.join(' ')} `}…; bare node:http with the same JSON (GETs); bare node:http + JSON.parse + one prepared UPDATE … RETURNING${options.putCeilingHistory ? ' + a history row' : ''} in a transaction (PUT)`,
    '- cells "x (y)": the app\'s figure, then its ceiling\'s; RSS is the largest VmRSS of the app processes after the scenario (cache-fill: the growth; public-streams: the growth with them open)',
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
    const broken = rows.filter((row) => row.verdict.startsWith('FAILED') || row.verdict.includes('CHECK') || (row.scenario !== 'public-streams' && (row.unexpected ?? 0) > 0));
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

