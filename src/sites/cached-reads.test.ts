import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, buildTestAppWithOwner, createSite, type SignedUpUser, signUp, type TestApp, untilCacheListens, usingPostgres } from '../../test/helpers.js';
import { until } from '../../test/wait.js';
import { openDatabase } from '../db/connect.js';

// The two GETs of sites are answered from the cache when it holds the answer. These tests prove
// that every way a site can change through the app is seen by the very next read, that a change
// through another connection is seen (SQLite: at the next read; PostgreSQL: once its notification
// arrives), and that nothing one user's reads left in memory reaches another user.

let t: TestApp;
let owner: SignedUpUser;
beforeEach(async () => ({ t, owner } = await buildTestAppWithOwner()));
afterEach(() => t.close());

async function get(url: string, authorization = owner.bearer) {
  return t.app.inject({ method: 'GET', url, headers: { authorization } });
}

async function names(authorization = owner.bearer, query = ''): Promise<string[]> {
  return (await get(`/api/v1/sites${query}`, authorization)).json<{ sites: Array<{ name: string }> }>().sites.map((site) => site.name);
}

test('the cache is on, on SQLite and PostgreSQL alike, and holds what was read', async () => {
  await untilCacheListens(t.cache);
  assert.equal(t.cache.available, true);
  await createSite(t.app, owner.bearer, { name: 'One' });
  assert.deepEqual(await names(), ['One']);
  assert.ok(t.cache.bytes > 0);
});

test('an update, a partner check result, a creation and a deletion are each seen by the next read', async () => {
  const first = await createSite(t.app, owner.bearer, { name: 'First' });
  assert.deepEqual(await names(), ['First']);
  assert.equal((await get(`/api/v1/sites/${first.id}`)).json<{ site: { name: string } }>().site.name, 'First');

  const put = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${first.id}`, headers: { authorization: owner.bearer }, payload: { name: 'Renamed', color: '#010203' } });
  assert.equal(put.statusCode, 200);
  const one = await get(`/api/v1/sites/${first.id}`);
  assert.equal(one.json<{ site: { name: string; color: string } }>().site.name, 'Renamed');
  assert.equal(one.headers.etag, put.headers.etag);
  assert.deepEqual(await names(), ['Renamed']);

  // A partner check stores its result through the same service; an unreachable partner is enough.
  await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${first.id}`, headers: { authorization: owner.bearer }, payload: { partner_settings: { enabled: true, mcp_url: 'http://127.0.0.1:9/mcp', auth_type: 'none' } } });
  assert.equal((await get(`/api/v1/sites/${first.id}`)).json<{ site: { partner_settings: { last_status: string } } }>().site.partner_settings.last_status, 'unchecked');
  const check = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${first.id}/partner/check`, headers: { authorization: owner.bearer } });
  assert.equal(check.statusCode, 200, check.body);
  assert.equal((await get(`/api/v1/sites/${first.id}`)).json<{ site: { partner_settings: { last_status: string } } }>().site.partner_settings.last_status, 'error');

  t.clock.advance(1000); // ids are time-ordered: the second site sorts after the first
  const second = await createSite(t.app, owner.bearer, { name: 'Second' });
  assert.deepEqual(await names(), ['Renamed', 'Second']);
  assert.deepEqual(await names(owner.bearer, '?limit=1'), ['Renamed']);

  const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${first.id}`, headers: { authorization: owner.bearer } });
  assert.equal(deleted.statusCode, 204);
  assert.equal((await get(`/api/v1/sites/${first.id}`)).statusCode, 404);
  assert.deepEqual(await names(), ['Second']);
  assert.deepEqual(await names(owner.bearer, '?limit=1'), ['Second']);
  assert.equal((await get(`/api/v1/sites/${second.id}`)).statusCode, 200);
});

test("a site another user's read left in memory is still not found for anyone else", async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Private' });
  assert.equal((await get(`/api/v1/sites/${site.id}`)).statusCode, 200);
  assert.deepEqual(await names(), ['Private']);
  const stranger = await signUp(t.app);
  const answer = await get(`/api/v1/sites/${site.id}`, stranger.bearer);
  assert.equal(answer.statusCode, 404);
  assert.equal(answer.body.includes('Private'), false);
  assert.deepEqual(await names(stranger.bearer), []);
});

test('a change committed through another connection (another process, the command line) is seen by the next read', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Before' });
  assert.deepEqual(await names(), ['Before']);
  assert.deepEqual(await names(), ['Before']);
  const other = openDatabase(t.config.database);
  try {
    await other.db.updateTable('sites').set({ name: 'Changed elsewhere', version: 9 }).where('id', '=', site.id).execute();
  } finally {
    await other.close();
  }
  // SQLite's counter is read once per turn of the event loop: a request over a socket arrives in a
  // later turn than the commit it follows. PostgreSQL's notification arrives on its own connection,
  // a moment after the commit.
  await new Promise((resolve) => setImmediate(resolve));
  if (usingPostgres()) await until(async () => (await names())[0] === 'Changed elsewhere', 'the change notified', { timeoutMs: 5000 });
  assert.deepEqual(await names(), ['Changed elsewhere']);
  const one = await get(`/api/v1/sites/${site.id}`);
  assert.equal(one.headers.etag, '"9"');
});

test('a 304 and the If-None-Match check work from a remembered site as from the database', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Tagged' });
  const first = await get(`/api/v1/sites/${site.id}`);
  const etag = String(first.headers.etag);
  const again = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer, 'if-none-match': etag } });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  assert.equal(again.headers.etag, etag);
  assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
});

test('CACHE_MB=0 (or SITE_CACHE_MB=0, its older name) turns the cache off; a bad value stops start-up naming the variable', async () => {
  const settings: Array<Record<string, string>> = [{ CACHE_MB: '0' }, { SITE_CACHE_MB: '0' }];
  for (const env of settings) {
    const off = await buildTestApp({ env });
    try {
      assert.equal(off.cache.available, false);
      const user = await signUp(off.app);
      await createSite(off.app, user.bearer, { name: 'Uncached' });
      for (let i = 0; i < 2; i++) {
        const answer = await off.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: user.bearer } });
        assert.deepEqual(answer.json<{ sites: Array<{ name: string }> }>().sites.map((s) => s.name), ['Uncached']);
      }
      assert.equal(off.cache.size, 0);
    } finally {
      await off.close();
    }
  }
  await assert.rejects(buildTestApp({ env: { CACHE_MB: 'lots' } }), /CACHE_MB/);
  await assert.rejects(buildTestApp({ env: { SITE_CACHE_MB: 'lots' } }), /SITE_CACHE_MB/);
});
