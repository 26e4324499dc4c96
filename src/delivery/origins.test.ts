import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { EventStreamClient } from '../../test/event-stream.js';
import { buildTestApp, createAccessToken, createSite, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { until } from '../../test/wait.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { pageOrigin } from './origins.js';
import type { SiteInstallJson } from './schema.js';

// Where a site's configuration was fetched from, on SQLite and (with TEST_DATABASE_URL)
// PostgreSQL: gathered from the public requests' Origin and Referer, written in batches.

let t: TestApp;
let base: string;
let owner: SignedUpUser;
const queries: string[] = [];
const FLUSH_MS = 50;

before(async () => {
  t = await buildTestApp({ onQuery: (sql) => queries.push(sql), publicOrigins: { flushIntervalMs: FLUSH_MS }, env: { PUBLIC_URL: 'https://siteward.example.com' } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  owner = await signUp(t.app);
});
after(async () => {
  await t.close();
});

function originWrites(): number {
  return queries.filter((sql) => /^insert into "site_public_origins"/i.test(sql)).length;
}

async function install(siteId: string, authorization: string = owner.bearer): Promise<{ status: number; install: SiteInstallJson; body: string }> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}/install`, headers: { authorization } });
  return { status: response.statusCode, install: response.statusCode === 200 ? response.json<{ install: SiteInstallJson }>().install : ({} as SiteInstallJson), body: response.body };
}

async function storedOrigins(siteId: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom('site_public_origins').select('origin').where('site_id', '=', siteId).orderBy('origin').execute();
  return rows.map((row) => row.origin);
}

/** Waits until the batch writer has stored `count` origins of the site: the write is the event awaited. */
async function untilStored(siteId: string, count: number): Promise<string[]> {
  let origins: string[] = [];
  await until(async () => (origins = await storedOrigins(siteId)).length >= count, () => `${count} stored origins, not ${JSON.stringify(origins)}`, { intervalMs: FLUSH_MS });
  return origins;
}

/** Origins the URL parser accepts, or a loose pattern would, that no page has: none is recorded. */
const MALFORMED_ORIGINS = [
  'http://a"onmouseover=alert(1)',
  "https://a'onload='x",
  'https://a`b',
  'http://a{b}.example',
  'https://...',
  'http://-',
  'http://-shop.example',
  'http://a..b',
  'http://a:99999',
  'http://[:::]',
  'http://%22x',
];

test('the page origin comes from Origin, else Referer; anything else is not a page', () => {
  assert.equal(pageOrigin('https://shop.example:8443', undefined), 'https://shop.example:8443');
  assert.equal(pageOrigin('https://shop.example:443', undefined), 'https://shop.example');
  assert.equal(pageOrigin('https://bücher.example', undefined), 'https://xn--bcher-kva.example');
  assert.equal(pageOrigin('http://192.168.0.10', undefined), 'http://192.168.0.10');
  assert.equal(pageOrigin('https://Shop.Example', undefined), 'https://shop.example');
  assert.equal(pageOrigin('http://[::1]:8080', undefined), 'http://[::1]:8080');
  assert.equal(pageOrigin(undefined, 'https://blog.example/post/1?x=y#z'), 'https://blog.example');
  assert.equal(pageOrigin('null', 'https://blog.example/post'), 'https://blog.example');
  for (const [origin, referer] of [
    ['null', undefined],
    ['javascript:alert(1)', undefined],
    ['https://a.example/path', undefined],
    [`https://${'a'.repeat(400)}.example`, undefined],
    [undefined, 'file:///etc/passwd'],
    [undefined, 'not a url'],
    [undefined, undefined],
    ...MALFORMED_ORIGINS.map((text) => [text, undefined] as const),
    ...MALFORMED_ORIGINS.map((text) => [undefined, `${text}/page?x=1`] as const),
    [undefined, 'https://user:secret@shop.example/checkout'],
  ] as const) {
    assert.equal(pageOrigin(origin, referer), undefined, `${origin} ${referer}`);
  }
});

test('origins of the pages that fetch a configuration are kept in memory and written in batches, each once, never per request', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Embedded' });
  const key = String(site.public_key);
  const writesBefore = originWrites();
  const pages = ['https://shop.example', 'https://blog.example', 'http://localhost:8080'];
  // Many requests, cold and warm, conditional and not, and a stream: from three pages, one by Referer only, and some from nowhere.
  const requests: Array<Promise<unknown>> = [];
  for (let i = 0; i < 60; i++) {
    const page = pages[i % pages.length] ?? '';
    const headers: Record<string, string> = i % 5 === 0 ? { referer: `${page}/checkout?step=${i}` } : { origin: page };
    if (i % 7 === 0) headers['if-none-match'] = '"1"';
    requests.push(fetch(`${base}/public/v1/sites/${key}`, { headers }).then((response) => response.arrayBuffer()));
    requests.push(fetch(`${base}/public/v1/sites/${key}`, { headers: { origin: 'null' } }).then((response) => response.arrayBuffer()));
  }
  await Promise.all(requests);
  const stream = await EventStreamClient.open(`${base}/public/v1/sites/${key}/events`, { origin: 'https://app.example' });
  await stream.event(0);
  stream.close();

  // The Install section shows what this server saw, written or not.
  const shown = (await install(site.id)).install.fetched_from.map((entry) => entry.origin).sort();
  assert.deepEqual(shown, ['http://localhost:8080', 'https://app.example', 'https://blog.example', 'https://shop.example']);

  const stored = await untilStored(site.id, 4);
  assert.deepEqual(stored, ['http://localhost:8080', 'https://app.example', 'https://blog.example', 'https://shop.example']);
  // More requests from a page already written: nothing is written again within the rewrite
  // interval. A new page seen after them is written in their batch or a later one, so once it is
  // stored their batches are done.
  for (let i = 0; i < 20; i++) await fetch(`${base}/public/v1/sites/${key}`, { headers: { origin: 'https://shop.example' } }).then((response) => response.arrayBuffer());
  await fetch(`${base}/public/v1/sites/${key}`, { headers: { origin: 'https://news.example' } }).then((response) => response.arrayBuffer());
  await untilStored(site.id, 5);
  assert.equal(originWrites() - writesBefore, 5, 'one write per page, for 162 requests');

  // Minutes later, a page seen again is written again, with its new time.
  t.clock.advance(5 * 60_000);
  await fetch(`${base}/public/v1/sites/${key}`, { headers: { origin: 'https://shop.example' } }).then((response) => response.arrayBuffer());
  await until(() => originWrites() - writesBefore >= 6, 'the page written again', { intervalMs: FLUSH_MS });
  const latest = (await install(site.id)).install.fetched_from;
  assert.equal(latest[0]?.origin, 'https://shop.example');
  assert.equal(latest[0]?.last_seen_at, t.clock.now().toISOString());
});

test('only well-formed http(s) origins are recorded: Origin and Referer text that is none is dropped', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Hostile pages' });
  const url = `${base}/public/v1/sites/${String(site.public_key)}`;
  for (const text of MALFORMED_ORIGINS) {
    for (const headers of [{ origin: text }, { referer: `${text}/page` }] as Array<Record<string, string>>) {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      assert.equal(response.status, 200, JSON.stringify(headers));
    }
  }
  // Seen after them: once it is stored, their batches are done.
  await fetch(url, { headers: { origin: 'https://shop.example' } }).then((response) => response.arrayBuffer());
  assert.deepEqual(await untilStored(site.id, 1), ['https://shop.example']);
  assert.deepEqual((await install(site.id)).install.fetched_from.map((entry) => entry.origin), ['https://shop.example']);
});

test('a site keeps the 20 origins seen last', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Popular' });
  for (let i = 0; i < 25; i++) {
    await fetch(`${base}/public/v1/sites/${String(site.public_key)}`, { headers: { origin: `https://page${String(i).padStart(2, '0')}.example` } }).then((response) => response.arrayBuffer());
    // Each in a batch of its own, a minute apart: the first five are the oldest.
    const origin = `https://page${String(i).padStart(2, '0')}.example`;
    await until(async () => (await storedOrigins(site.id)).includes(origin), `${origin} stored`, { intervalMs: FLUSH_MS });
    t.clock.advance(60_000);
  }
  const stored = await storedOrigins(site.id);
  assert.equal(stored.length, 20);
  assert.deepEqual(stored, Array.from({ length: 20 }, (_, i) => `https://page${String(i + 5).padStart(2, '0')}.example`));
});

test('the Install section: key, snippet with PUBLIC_URL, the replaced key while it answers; for readers of the site only', async () => {
  // Signed in now, by the clock the tests above moved: making an access token needs a recent sign-in.
  const owner = await signUp(t.app);
  const reader = await createAccessToken(t.app, owner, ['sites:read']);
  const site = await createSite(t.app, owner.bearer, { name: 'Install' });
  const first = await install(site.id, owner.bearer);
  assert.equal(first.status, 200);
  assert.deepEqual(first.install, {
    public_key: site.public_key,
    previous_key: null,
    script_url: 'https://siteward.example.com/embed.js',
    config_url: `https://siteward.example.com/public/v1/sites/${String(site.public_key)}`,
    snippet: `<script src="https://siteward.example.com/embed.js" data-site="${String(site.public_key)}" async></script>`,
    fetched_from: [],
  });
  const rotated = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${site.id}/public-key/rotate`, headers: { authorization: owner.bearer } });
  const newKey = rotated.json<{ site: { public_key: string } }>().site.public_key;
  const after = (await install(site.id, owner.bearer)).install;
  assert.equal(after.public_key, newKey);
  assert.deepEqual(after.previous_key, { public_key: site.public_key, expires_at: new Date(t.clock.now().getTime() + 24 * 3600_000).toISOString() });
  t.clock.advance(24 * 3600_000);
  assert.equal((await install(site.id, owner.bearer)).install.previous_key, null);

  assert.equal((await install(site.id, reader.header)).status, 200);
  const team = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
  const teamId = team.json<{ workspace: { id: string } }>().workspace.id;
  const teamSite = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: teamId });
  const viewer = await signUp(t.app);
  await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(teamId, viewer.id, 'viewer');
  assert.equal((await install(teamSite.id, viewer.bearer)).status, 200);
  const stranger = await signUp(t.app);
  const refused = await install(teamSite.id, stranger.bearer);
  assert.equal(refused.status, 404);
  assert.equal((JSON.parse(refused.body) as { code: string }).code, SITE_ERRORS.SITE_NOT_FOUND);
});
