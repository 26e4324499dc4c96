import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { after, before, test } from 'node:test';
import { EventStreamClient } from '../../test/event-stream.js';
import { buildTestApp, createAccessToken, createSite, ManualClock, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { until } from '../../test/wait.js';
import { HTTP_ERRORS } from '../http/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import type { SiteUsageJson, WorkspaceUsageJson } from './schema.js';

// What reaches the public path, counted per site and hour by two app servers on one database
// (SQLite, and PostgreSQL with TEST_DATABASE_URL), over real HTTP.

const SHORT = { flushIntervalMs: 50, liveReportIntervalMs: 50 };
let clock: ManualClock;
let a: TestApp;
let b: TestApp;
let baseA: string;
let baseB: string;
let owner: SignedUpUser;
let ownerToken: { header: string };

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

function sameDatabase(t: TestApp): { dataDir: string; databaseUrl?: string } {
  return { dataDir: t.dataDir, ...(t.config.database.kind === 'postgres' ? { databaseUrl: t.config.database.url } : {}) };
}

before(async () => {
  clock = new ManualClock(Date.parse('2026-03-10T10:20:00.000Z'));
  a = await buildTestApp({ clock, usage: SHORT });
  b = await buildTestApp({ clock, usage: SHORT, ...sameDatabase(a) });
  baseA = await listen(a);
  baseB = await listen(b);
  owner = await signUp(a.app);
  // Made while the sign-in is recent: the tests move the clock on.
  ownerToken = await createAccessToken(a.app, owner, ['sites:read']);
});
after(async () => {
  await b.close();
  await a.close();
});

async function usageOf(t: TestApp, siteId: string, authorization: string, query = ''): Promise<{ status: number; body: SiteUsageJson & { code?: string } }> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}/usage${query}`, headers: { authorization } });
  return { status: response.statusCode, body: response.json() };
}

async function usageUntil(siteId: string, done: (usage: SiteUsageJson) => boolean, what: string, query = ''): Promise<SiteUsageJson> {
  let last: SiteUsageJson | undefined;
  await until(
    async () => done((last = (await usageOf(a, siteId, owner.bearer, query)).body)),
    () => `${what}; last ${JSON.stringify(last)}`,
    { intervalMs: 25 },
  );
  if (last === undefined) throw new Error('no usage read');
  return last;
}

function totals(usage: SiteUsageJson): { loads: number; not_modified: number; streams_opened: number; peak_streams: number } {
  return usage.series.reduce(
    (sum, bucket) => ({
      loads: sum.loads + bucket.loads,
      not_modified: sum.not_modified + bucket.not_modified,
      streams_opened: sum.streams_opened + bucket.streams_opened,
      peak_streams: Math.max(sum.peak_streams, bucket.peak_streams),
    }),
    { loads: 0, not_modified: 0, streams_opened: 0, peak_streams: 0 },
  );
}

async function load(base: string, key: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${base}/public/v1/sites/${key}`, { headers });
  await response.arrayBuffer();
  return response.status;
}

test('loads, revalidations and streams served by two servers add up exactly, per hour, with their origins; previews are not counted', async () => {
  const site = await createSite(a.app, owner.bearer, { name: 'Counted' });
  const key = String(site.public_key);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push(await load(baseA, key, { origin: 'https://shop.example' }));
  for (let i = 0; i < 5; i++) statuses.push(await load(baseB, key, i < 2 ? { referer: 'https://blog.example/post?x=1' } : {}));
  for (let i = 0; i < 3; i++) statuses.push(await load(baseA, key, { 'if-none-match': '"1"' }));
  for (let i = 0; i < 2; i++) statuses.push(await load(baseB, key, { 'if-none-match': '"1"', origin: 'https://shop.example' }));
  assert.deepEqual(statuses, [...Array<number>(12).fill(200), ...Array<number>(5).fill(304)]);
  // A preview is not a visitor's load.
  assert.equal(await load(baseA, `${key}?preview=not-a-token`), 404);

  const streams = await Promise.all([EventStreamClient.open(`${baseA}/public/v1/sites/${key}/events`), EventStreamClient.open(`${baseA}/public/v1/sites/${key}/events`), EventStreamClient.open(`${baseB}/public/v1/sites/${key}/events`)]);
  try {
    for (const stream of streams) assert.equal(stream.status, 200);
    const usage = await usageUntil(site.id, (u) => totals(u).loads === 12 && totals(u).not_modified === 5 && totals(u).streams_opened === 3 && u.live_streams === 3, '12 loads, 5 revalidations, 3 streams, 3 live');
    assert.equal(usage.series.length, 24);
    assert.equal(usage.series.at(-1)?.at, '2026-03-10T10:00:00.000Z');
    assert.equal(usage.series[0]?.at, '2026-03-09T11:00:00.000Z');
    // Everything fell in the current hour; the others are zeros, not gaps.
    assert.deepEqual(usage.series.at(-1), { at: '2026-03-10T10:00:00.000Z', loads: 12, not_modified: 5, streams_opened: 3, peak_streams: 3 });
    assert.ok(usage.series.slice(0, -1).every((bucket) => bucket.loads === 0 && bucket.peak_streams === 0));
    assert.deepEqual(
      usage.origins.map(({ origin, loads }) => ({ origin, loads })),
      [
        { origin: 'https://shop.example', loads: 7 },
        { origin: 'https://blog.example', loads: 2 },
      ],
    );
    const byDay = await usageOf(a, site.id, owner.bearer, '?granularity=day');
    assert.equal(byDay.body.series.length, 30);
    assert.deepEqual(byDay.body.series.at(-1), { at: '2026-03-10T00:00:00.000Z', loads: 12, not_modified: 5, streams_opened: 3, peak_streams: 3 });
  } finally {
    for (const stream of streams) stream.close();
  }
  await usageUntil(site.id, (u) => u.live_streams === 0, 'no stream open once they closed');

  // The next hour is counted in its own bucket, and a stream open across its start is open in it.
  const across = await EventStreamClient.open(`${baseB}/public/v1/sites/${key}/events`);
  try {
    await usageUntil(site.id, (u) => u.live_streams === 1, 'the stream reported as open');
    clock.advance(60 * 60 * 1000);
    // Seen once B has begun the new hour (a server begins it on its own timer at the hour's start).
    await usageUntil(site.id, (u) => u.series.at(-1)?.peak_streams === 1, 'the open stream counted in the new hour');
    assert.equal(await load(baseB, key), 200);
    const next = await usageUntil(site.id, (u) => u.series.at(-1)?.loads === 1, 'one load in the next hour');
    assert.deepEqual(next.series.at(-2), { at: '2026-03-10T10:00:00.000Z', loads: 12, not_modified: 5, streams_opened: 4, peak_streams: 3 });
    assert.deepEqual(next.series.at(-1), { at: '2026-03-10T11:00:00.000Z', loads: 1, not_modified: 0, streams_opened: 0, peak_streams: 1 });
  } finally {
    across.close();
  }
});

test('a server that closes writes what it counted and withdraws its open streams at once; a report older than 15 s is not read', async () => {
  const site = await createSite(a.app, owner.bearer, { name: 'Closing' });
  const key = String(site.public_key);
  // Writes nothing on its own for an hour: only its close writes.
  const c = await buildTestApp({ clock, usage: { flushIntervalMs: 3_600_000, liveReportIntervalMs: 20 }, ...sameDatabase(a) });
  let closed = false;
  try {
    const baseC = await listen(c);
    for (let i = 0; i < 9; i++) assert.equal(await load(baseC, key), 200);
    const stream = await EventStreamClient.open(`${baseC}/public/v1/sites/${key}/events`);
    assert.equal(stream.status, 200);
    await usageUntil(site.id, (u) => u.live_streams === 1, 'the stream reported as open');
    assert.equal(totals((await usageOf(a, site.id, owner.bearer)).body).loads, 0);
    await c.close();
    closed = true;
    const usage = (await usageOf(a, site.id, owner.bearer)).body;
    assert.equal(totals(usage).loads, 9);
    assert.equal(totals(usage).streams_opened, 1);
    assert.equal(usage.live_streams, 0);
  } finally {
    if (!closed) await c.close();
  }

  // A server that stopped without a word (kill -9) leaves its last report: read for 15 s, then not.
  await a.database.db.insertInto('usage_live_streams').values({ server_id: 'crashed', site_id: site.id, open_streams: 4, reported_at: clock.now().toISOString() }).execute();
  assert.equal((await usageOf(a, site.id, owner.bearer)).body.live_streams, 4);
  clock.advance(15_001);
  assert.equal((await usageOf(a, site.id, owner.bearer)).body.live_streams, 0);
});

test('the span is bounded and checked: 14 days by hour, 400 by day, from before to, ISO times', async () => {
  const site = await createSite(a.app, owner.bearer, { name: 'Spans' });
  const cases: Array<[string, number]> = [
    ['?from=2026-01-01T00:00:00Z&to=2026-01-15T00:00:00Z', 200],
    ['?from=2026-01-01T00:00:00Z&to=2026-01-15T01:00:00Z', 400],
    ['?granularity=day&from=2025-01-01&to=2026-02-05', 200],
    ['?granularity=day&from=2025-01-01&to=2026-02-06', 400],
    ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 400],
    ['?from=yesterday', 400],
    ['?granularity=week', 400],
    ['?site=1', 400],
  ];
  for (const [query, status] of cases) {
    const answer = await usageOf(a, site.id, owner.bearer, query);
    assert.equal(answer.status, status, `${query}: ${JSON.stringify(answer.body)}`);
    if (status === 400) assert.equal(answer.body.code, HTTP_ERRORS.VALIDATION_FAILED, query);
  }
  const hours = await usageOf(a, site.id, owner.bearer, '?from=2026-01-01T00:30:00Z&to=2026-01-01T03:00:00Z');
  assert.deepEqual(
    hours.body.series.map((bucket) => bucket.at),
    ['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z', '2026-01-01T03:00:00.000Z'],
  );
  const days = await usageOf(a, site.id, owner.bearer, '?granularity=day&from=2025-01-01T12:00:00Z&to=2026-02-05T11:00:00Z');
  assert.equal(days.body.series.length, 401);
});

test('viewers and access tokens read usage; a non-member is told the site and workspace are not found', async () => {
  const workspaces = new WorkspaceService({ db: a.database.db, dialect: a.database.dialect, clock: a.clock, cache: a.cache });
  const team = await a.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
  const teamId = team.json<{ workspace: { id: string } }>().workspace.id;
  const teamSite = await createSite(a.app, owner.bearer, { name: 'Team site', workspace_id: teamId });
  const viewer = await signUp(a.app);
  await workspaces.addMember(teamId, viewer.id, 'viewer');
  const stranger = await signUp(a.app);
  const token = ownerToken;

  for (let i = 0; i < 3; i++) assert.equal(await load(baseB, String(teamSite.public_key)), 200);
  await usageUntil(teamSite.id, (u) => totals(u).loads === 3, 'three loads');

  assert.equal(totals((await usageOf(a, teamSite.id, viewer.bearer)).body).loads, 3);
  assert.equal(totals((await usageOf(a, teamSite.id, token.header)).body).loads, 3);
  const refused = await usageOf(a, teamSite.id, stranger.bearer);
  assert.equal(refused.status, 404);
  assert.equal(refused.body.code, SITE_ERRORS.SITE_NOT_FOUND);

  const glance = async (authorization: string, query: string) => {
    const response = await a.app.inject({ method: 'GET', url: `/api/v1/usage${query}`, headers: { authorization } });
    return { status: response.statusCode, body: response.json<WorkspaceUsageJson & { code?: string }>() };
  };
  const seen = await glance(viewer.bearer, `?workspace_id=${teamId}`);
  assert.equal(seen.status, 200);
  assert.deepEqual(seen.body.sites.map(({ site_id, loads_24h, loads_7d, loads_by_day, live_streams }) => ({ site_id, loads_24h, loads_7d, loads_by_day, live_streams })), [
    // Today is the last of the seven days.
    { site_id: teamSite.id, loads_24h: 3, loads_7d: 3, loads_by_day: [0, 0, 0, 0, 0, 0, 3], live_streams: 0 },
  ]);
  const lastLoadedAt = seen.body.sites[0]?.last_loaded_at;
  assert.equal(lastLoadedAt, clock.now().toISOString());
  assert.equal((await glance(token.header, `?workspace_id=${teamId}`)).status, 200);
  // Without a workspace: every site of the caller's workspaces, none of anyone else's.
  assert.deepEqual(
    (await glance(viewer.bearer, '')).body.sites.map((row) => row.site_id),
    [teamSite.id],
  );
  assert.ok((await glance(owner.bearer, '')).body.sites.some((row) => row.site_id === teamSite.id));
  assert.deepEqual((await glance(stranger.bearer, '')).body.sites, []);
  const notMember = await glance(stranger.bearer, `?workspace_id=${teamId}`);
  assert.equal(notMember.status, 404);
  assert.equal(notMember.body.code, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
});

test('hourly rows go after 14 days and daily rows after USAGE_RETENTION_DAYS, moving the clock', async () => {
  const retentionClock = new ManualClock(Date.parse('2026-05-01T08:00:00.000Z'));
  const t = await buildTestApp({ clock: retentionClock, usage: SHORT, env: { USAGE_RETENTION_DAYS: '20' } });
  try {
    const base = await listen(t);
    const user = await signUp(t.app);
    const token = await createAccessToken(t.app, user, ['sites:read']);
    const site = await createSite(t.app, user.bearer, { name: 'Kept' });
    for (let i = 0; i < 4; i++) assert.equal(await load(base, String(site.public_key), { origin: 'https://kept.example' }), 200);
    const rows = async (table: 'usage_hourly' | 'usage_daily' | 'usage_origins_hourly' | 'usage_origins_daily') =>
      (await t.database.db.selectFrom(table).select('at').where('site_id', '=', site.id).execute()).length;
    await until(async () => (await rows('usage_hourly')) === 1 && (await rows('usage_origins_daily')) === 1, 'the loads written');
    assert.equal(await rows('usage_daily'), 1);

    retentionClock.advance(14 * 24 * 3600_000 + 3600_000);
    await until(async () => (await rows('usage_hourly')) === 0 && (await rows('usage_origins_hourly')) === 0, 'hourly rows past 14 days deleted');
    assert.equal(await rows('usage_daily'), 1);
    const byDay = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}/usage?granularity=day`, headers: { authorization: token.header } });
    assert.equal(byDay.json<SiteUsageJson>().series.reduce((sum, bucket) => sum + bucket.loads, 0), 4);

    retentionClock.advance(7 * 24 * 3600_000);
    await until(async () => (await rows('usage_daily')) === 0 && (await rows('usage_origins_daily')) === 0, 'daily rows past 20 days deleted');
  } finally {
    await t.close();
  }
});

test('a write that fails keeps its counts for the next one: none is lost or counted twice', async () => {
  const site = await createSite(a.app, owner.bearer, { name: 'Retried' });
  const key = String(site.public_key);
  // The database refuses usage rows for a while, as it would in an outage.
  if (a.database.dialect === 'postgres') {
    await sql`create function refuse_usage() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(a.database.db);
    await sql`create trigger refuse_usage before insert on usage_hourly for each row execute function refuse_usage()`.execute(a.database.db);
  } else {
    await sql`create trigger refuse_usage before insert on usage_hourly begin select raise(abort, 'refused'); end`.execute(a.database.db);
  }
  const failures = () => (a.logs().match(/recording usage of the public path failed/g) ?? []).length + (b.logs().match(/recording usage of the public path failed/g) ?? []).length;
  const before = failures();
  try {
    for (let i = 0; i < 6; i++) assert.equal(await load(i % 2 === 0 ? baseA : baseB, key, { origin: 'https://retry.example' }), 200);
    await until(() => failures() >= before + 2, 'writes refused');
  } finally {
    await sql`drop trigger refuse_usage${sql.raw(a.database.dialect === 'postgres' ? ' on usage_hourly' : '')}`.execute(a.database.db);
    if (a.database.dialect === 'postgres') await sql`drop function refuse_usage()`.execute(a.database.db);
  }
  const usage = await usageUntil(site.id, (u) => totals(u).loads === 6, 'the six loads written once the database takes them');
  assert.deepEqual(usage.origins.map(({ origin, loads }) => ({ origin, loads })), [{ origin: 'https://retry.example', loads: 6 }]);
  // And no later write adds them again.
  for (let i = 0; i < 2; i++) assert.equal(await load(baseA, key), 200);
  assert.equal(totals(await usageUntil(site.id, (u) => totals(u).loads === 8, 'two more')).loads, 8);
});
