import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createPostgresDatabase, STRONG_PASSWORD } from './helpers.js';
import { until } from './wait.js';
import { freePort, type RunningServer, startServer, stopServer } from './processes.js';

/**
 * METRICS_PORT on a real server process (PostgreSQL when TEST_DATABASE_URL is set): the families
 * parse as Prometheus text (parse-prometheus-text-format), and move under load.
 */
let dataDir: string;
let dropDatabase: (() => Promise<void>) | undefined;
let server: RunningServer;
let metricsBase: string;

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-metrics-'));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://localhost:${port}`,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    METRICS_PORT: String(metricsPort),
    // A mail server that refuses: every message fails, and is given up on at once.
    SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
  };
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl !== undefined && adminUrl !== '') {
    const created = await createPostgresDatabase(adminUrl);
    env.DATABASE_URL = created.url;
    dropDatabase = created.drop;
  }
  server = await startServer(port, env);
  metricsBase = `http://127.0.0.1:${metricsPort}`;
});

after(async () => {
  await stopServer(server);
  if (dropDatabase !== undefined) await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Scrape extends Map<string, ReturnType<typeof parsePrometheusTextFormat>[number]> {
  text?: string;
}

async function scrape(): Promise<Scrape> {
  const response = await fetch(`${metricsBase}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const families: Scrape = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  families.text = text;
  return families;
}

/**
 * A histogram's request counts by label set, from its `_count` lines: the parser (1.1.1) keeps a
 * labelled histogram's buckets but drops its labels, sum and count.
 */
function histogramCounts(text: string, name: string): Array<{ labels: Record<string, string>; count: number }> {
  const lines = text.split('\n').filter((line) => line.startsWith(`${name}_count{`));
  return lines.map((line) => {
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1] ?? '', match[2] ?? '']));
    return { labels, count: Number(line.slice(line.lastIndexOf(' ') + 1)) };
  });
}

function value(families: Awaited<ReturnType<typeof scrape>>, name: string): number {
  const family = families.get(name);
  assert.ok(family !== undefined, `${name} is present`);
  return family.metrics.reduce((sum, sample) => sum + Number(sample.value ?? sample.count ?? 0), 0);
}

test('/metrics serves the families on its own port only, labelled by route pattern, and they move under load', async () => {
  const before = await scrape();
  for (const name of [
    'siteward_http_request_duration_seconds',
    'siteward_cache_hits_total',
    'siteward_cache_misses_total',
    'siteward_cache_evictions_total',
    'siteward_cache_refused_stores_total',
    'siteward_cache_clears_total',
    'siteward_webhook_outbox_depth',
    'siteward_webhook_outbox_oldest_age_seconds',
    'siteward_change_requests_scheduled',
    'siteward_public_streams_open',
    'siteward_public_config_loads_total',
    'siteward_public_config_not_modified_total',
    'siteward_public_streams_opened_total',
    'siteward_mail_failures_total',
    'nodejs_eventloop_lag_seconds',
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
  ]) {
    assert.ok(before.has(name), `${name} is present`);
  }
  assert.equal((await fetch(`${server.base}/metrics`)).status, 404, 'never on the public port');
  assert.equal((await fetch(`${metricsBase}/other`)).status, 404);

  const signedUp = await fetch(`${server.base}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'metrics@example.com', password: STRONG_PASSWORD }) });
  const authorization = `Bearer ${((await signedUp.json()) as { token: string }).token}`;
  const site = (await (await fetch(`${server.base}/api/v1/sites`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Load' }) })).json()) as { site: { id: string; public_key: string } };
  // Bounded load: 100 reads of the site by its id, 50 of its public configuration.
  for (let round = 0; round < 10; round++) {
    await Promise.all(Array.from({ length: 10 }, () => fetch(`${server.base}/api/v1/sites/${site.site.id}`, { headers: { authorization } }).then((response) => response.arrayBuffer())));
    await Promise.all(Array.from({ length: 5 }, () => fetch(`${server.base}/public/v1/sites/${site.site.public_key}`).then((response) => response.arrayBuffer())));
  }

  const after = await scrape();
  assert.equal(after.get('siteward_http_request_duration_seconds')?.type, 'HISTOGRAM');
  const requests = histogramCounts(after.text ?? '', 'siteward_http_request_duration_seconds');
  const routes = new Set(requests.map((sample) => sample.labels.route));
  assert.ok(routes.has('/api/v1/sites/:id'), `the route pattern, never the URL: ${[...routes].join(' ')}`);
  assert.ok(routes.has('/public/v1/sites/:public_key'));
  assert.ok(![...routes].some((route) => route?.includes(site.site.id)), 'no id in a label');
  const siteReads = requests.find((sample) => sample.labels.route === '/api/v1/sites/:id' && sample.labels.status_class === '2xx' && sample.labels.method === 'GET');
  assert.ok(siteReads !== undefined && siteReads.count >= 100, JSON.stringify(siteReads));
  assert.ok(value(after, 'siteward_cache_hits_total') > value(before, 'siteward_cache_hits_total'), 'the cache answered some of the reads');
  assert.ok(value(after, 'siteward_cache_misses_total') > value(before, 'siteward_cache_misses_total'));
  // The public loads as a total, with no site label (per-site counts are the API's).
  assert.equal(value(after, 'siteward_public_config_loads_total') - value(before, 'siteward_public_config_loads_total'), 50);
  assert.deepEqual(after.get('siteward_public_config_loads_total')?.metrics.map((sample) => Object.keys(sample.labels ?? {})), [[]]);
  // The sign-up's verification mail went to a closed port.
  await until(async () => value(await scrape(), 'siteward_mail_failures_total') > 0, 'a mail failure counted', { intervalMs: 50 });
  assert.ok(value(after, 'process_cpu_user_seconds_total') >= value(before, 'process_cpu_user_seconds_total'));
});

/** A family's samples' values by one label, from the parsed text. */
function byLabel(families: Scrape, name: string, label: string): Map<string, number> {
  const family = families.get(name);
  assert.ok(family !== undefined, `${name} is present`);
  return new Map(family.metrics.map((sample) => [sample.labels?.[label] ?? '', Number(sample.value)]));
}

test('database time by statement family and the connections in use move under load, with no SQL or value in a label', async () => {
  const before = await scrape();
  assert.equal(before.get('siteward_db_query_duration_seconds')?.type, 'HISTOGRAM');
  const max = value(before, 'siteward_db_connections_max');
  assert.equal(max, process.env.TEST_DATABASE_URL ? 10 : 2, 'POOL_SIZE on PostgreSQL, the writing and the reading connection on SQLite');
  assert.ok(byLabel(before, 'siteward_db_connections', 'state').has('in_use'));
  assert.ok(before.has('siteward_db_connection_waiters'));
  const heldBefore = value(before, 'siteward_db_connection_held_seconds_total');
  const queriesBefore = histogramCounts(before.text ?? '', 'siteward_db_query_duration_seconds');

  const email = 'database-load@example.com';
  const signedUp = await fetch(`${server.base}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: STRONG_PASSWORD }) });
  const authorization = `Bearer ${((await signedUp.json()) as { token: string }).token}`;
  // Bursts of 20 site creations with scrapes among them. On PostgreSQL, until a scrape has seen a
  // connection taken or a caller waiting for one (bounded: 10 bursts). SQLite's queries run to
  // their end between two scrapes, and its held seconds show the use instead.
  const postgres = Boolean(process.env.TEST_DATABASE_URL);
  let created = 0;
  let busySeen = false;
  for (let burst = 0; burst < (postgres ? 10 : 2) && !busySeen; burst++) {
    const creations = Array.from({ length: 20 }, (_, index) =>
      fetch(`${server.base}/api/v1/sites`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Burst ${burst}-${index}` }) }).then((response) => {
        assert.equal(response.status, 201);
        created += 1;
        return response.arrayBuffer();
      }),
    );
    const scrapes = Array.from({ length: 3 }, () => scrape());
    const [, seen] = await Promise.all([Promise.all(creations), Promise.all(scrapes)]);
    for (const during of seen) {
      const connections = byLabel(during, 'siteward_db_connections', 'state');
      const inUse = connections.get('in_use') ?? 0;
      assert.ok(inUse + (connections.get('idle') ?? 0) <= max, 'never more connections than the bound');
      if (inUse > 0 || value(during, 'siteward_db_connection_waiters') > 0) busySeen = true;
    }
  }
  if (postgres) assert.ok(busySeen, 'a scrape during the bursts saw a connection in use or a caller waiting');

  const after = await scrape();
  assert.ok(value(after, 'siteward_db_connection_held_seconds_total') > heldBefore, 'the connections were held for a while');
  const queries = histogramCounts(after.text ?? '', 'siteward_db_query_duration_seconds');
  const count = (samples: typeof queries, operation: string, table: string) => samples.find((sample) => sample.labels.operation === operation && sample.labels.table === table)?.count ?? 0;
  assert.ok(count(queries, 'insert', 'sites') - count(queriesBefore, 'insert', 'sites') >= created, `each created site is an insert into sites: ${JSON.stringify(queries.filter((sample) => sample.labels.table === 'sites'))}`);
  assert.ok(count(queries, 'select', 'users') > count(queriesBefore, 'select', 'users'));
  for (const sample of queries) {
    assert.match(sample.labels.operation ?? '', /^(select|insert|update|delete|merge|raw|other)$/);
    assert.match(sample.labels.table ?? '', /^[a-z_][a-z0-9_]*$/, 'a table name, never SQL text or a value');
  }
  assert.ok(!(after.text ?? '').includes(email) && !(after.text ?? '').includes('Burst'), 'no value of a query in the metrics');
});
