import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { type DatabaseHandle, openDatabase } from '../src/db/connect.js';
import type { SiteUsageJson } from '../src/usage/schema.js';
import { EventStreamClient } from './event-stream.js';
import { STRONG_PASSWORD } from './helpers.js';
import { callJson, freePort, type RunningServer, sharedEnvironment, startServer, stopServer } from './processes.js';
import { until } from './wait.js';

/**
 * Usage counted by two real app processes on one database (PostgreSQL with TEST_DATABASE_URL,
 * else one SQLite file), stopped as an orchestrator would: SIGTERM writes what a server counted;
 * kill -9 loses at most what it counted since its last write (every 30 s), and its report of open
 * streams stops being read 15 s after it was made.
 */
let env: Record<string, string>;
let remove: (() => Promise<void>) | undefined;
let database: DatabaseHandle;
const running: RunningServer[] = [];

before(async () => {
  const shared = await sharedEnvironment();
  env = shared.env;
  remove = shared.remove;
});

after(async () => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
  await database?.close();
  await remove?.();
});

async function start(): Promise<RunningServer> {
  const server = await startServer(await freePort(), env);
  running.push(server);
  return server;
}

async function load(server: RunningServer, key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const response = await fetch(`${server.base}/public/v1/sites/${key}`);
    await response.arrayBuffer();
    assert.equal(response.status, 200);
  }
}

async function storedLoads(siteId: string): Promise<number> {
  const rows = await database.db.selectFrom('usage_hourly').select('loads').where('site_id', '=', siteId).execute();
  return rows.reduce((sum, row) => sum + Number(row.loads), 0);
}

test('loads over two servers add up exactly once both stop with SIGTERM; kill -9 loses only what was counted since the last write; a stopped server’s streams stop counting', async () => {
  const a = await start();
  const b = await start();
  database = openDatabase(loadConfig(env).database);
  const signup = await callJson<{ token: string }>(a, 'POST', '/auth/signup', undefined, { email: 'usage@example.com', password: STRONG_PASSWORD });
  assert.equal(signup.status, 201);
  const bearer = `Bearer ${signup.json.token}`;
  const created = await callJson<{ site: { id: string; public_key: string } }>(a, 'POST', '/api/v1/sites', bearer, { name: 'Counted' });
  const { id: siteId, public_key: key } = created.json.site;
  const usage = async (server: RunningServer) => (await callJson<SiteUsageJson>(server, 'GET', `/api/v1/sites/${siteId}/usage`, bearer)).json;

  // A stream on each server: visitors now counts both, whoever is asked.
  const streams = await Promise.all([EventStreamClient.open(`${a.base}/public/v1/sites/${key}/events`), EventStreamClient.open(`${b.base}/public/v1/sites/${key}/events`)]);
  try {
    await until(async () => (await usage(b)).live_streams === 2, 'both streams reported', { timeoutMs: 20_000, intervalMs: 200 });
    await load(a, key, 23);
    await load(b, key, 17);
    // SIGTERM: what the server counted is written as it stops, and its streams are withdrawn at once.
    assert.equal(await stopServer(a), 0);
    const afterA = await usage(b);
    assert.ok(afterA.series.reduce((sum, bucket) => sum + bucket.loads, 0) >= 23, JSON.stringify(afterA.series.at(-1)));
    assert.equal(afterA.live_streams, 1);
    assert.equal(await stopServer(b), 0);
  } finally {
    for (const stream of streams) stream.close();
  }
  assert.equal(await storedLoads(siteId), 23 + 17);
  assert.deepEqual(await database.db.selectFrom('usage_live_streams').select('server_id').execute(), []);

  // kill -9: what was written stays; what was counted since the last write (at most 30 s) is lost.
  const c = await start();
  const d = await start();
  await load(c, key, 11);
  await until(async () => (await storedLoads(siteId)) === 23 + 17 + 11, "c's loads written by its 30 s timer", { timeoutMs: 45_000, intervalMs: 500 });
  const stream = await EventStreamClient.open(`${c.base}/public/v1/sites/${key}/events`);
  try {
    await until(async () => (await usage(d)).live_streams === 1, "c's stream reported", { timeoutMs: 20_000, intervalMs: 200 });
    await load(c, key, 5);
    c.process.kill('SIGKILL');
    // Its last report is read for 15 s at most, then no visitor is counted.
    await until(async () => (await usage(d)).live_streams === 0, "the killed server's stream no longer counted", { timeoutMs: 30_000, intervalMs: 500 });
  } finally {
    stream.close();
  }
  assert.equal(await stopServer(d), 0);
  const total = await storedLoads(siteId);
  // The 5 counted after c's last write may be lost, nothing before it.
  assert.ok(total >= 23 + 17 + 11 && total <= 23 + 17 + 16, `total ${total}`);
});
