import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, createAccessToken, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';

// GET /api/v1/sites and /api/v1/sites/{id} over real HTTP. When this process holds both the caller
// and the answer, DirectReads answers without Fastify; otherwise Fastify does. app.inject goes
// straight to Fastify, so every direct answer is compared with Fastify's own answer to the same
// request. A hook counts the requests Fastify saw, which tells the two paths apart. The cache
// works on SQLite and PostgreSQL alike, so both paths are taken on both.

let t: TestApp;
let owner: SignedUpUser;
let base: string;
let fastifyRequests: number;
const cached = true;

beforeEach(async () => {
  fastifyRequests = 0;
  t = await buildTestApp({
    beforeReady: (app) =>
      app.addHook('onRequest', (_request, _reply, done) => {
        fastifyRequests++;
        done();
      }),
  });
  owner = await signUp(t.app);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await t.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers the connection adds (node:http over a socket, nothing under inject). */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function comparable(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => !CONNECTION_HEADERS.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
}

async function overHttp(url: string, headers: Record<string, string>, method = 'GET'): Promise<Answer & { byFastify: boolean }> {
  const before = fastifyRequests;
  const response = await fetch(`${base}${url}`, { method, headers });
  const body = await response.text();
  return { status: response.status, headers: comparable(Object.fromEntries(response.headers)), body, byFastify: fastifyRequests > before };
}

async function fromFastify(url: string, headers: Record<string, string>): Promise<Answer> {
  const response = await t.app.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, headers: comparable(response.headers), body: response.body };
}

test('a held list or site is answered without Fastify, with the status, headers and bytes Fastify sends', async () => {
  const sites = [];
  for (const name of ['One', 'Two', 'Three']) sites.push(await createSite(t.app, owner.bearer, { name }));
  const token = await createAccessToken(t.app, owner);
  const firstPage = (await fromFastify('/api/v1/sites?limit=2', { authorization: owner.bearer })).body;
  const cursor = (JSON.parse(firstPage) as { next_cursor: string }).next_cursor;
  const urls = ['/api/v1/sites', '/api/v1/sites?limit=2', `/api/v1/sites?limit=2&cursor=${cursor}`, `/api/v1/sites?cursor=${cursor}&limit=2`, `/api/v1/sites/${sites[1]!.id}`];

  // The scheme is case-insensitive and may be followed by more than one space, on both paths.
  for (const authorization of [owner.bearer, token.header, `bearer   ${owner.jwt}`]) {
    // A credential's first use is looked up in the database, which only Fastify's path does.
    await overHttp('/api/v1/sites', { authorization });
    for (const url of urls) {
      const expected = await fromFastify(url, { authorization });
      assert.equal(expected.status, 200, url);
      const answer = await overHttp(url, { authorization });
      assert.equal(answer.byFastify, !cached, `${url} with ${authorization.split(' ')[0]}`);
      assert.deepEqual({ status: answer.status, headers: answer.headers, body: answer.body }, expected, url);
    }
  }
  const site = await overHttp(`/api/v1/sites/${sites[0]!.id}`, { authorization: owner.bearer });
  assert.equal(site.headers.etag, '"1"');
  assert.equal(site.headers['x-content-type-options'], 'nosniff');
  // An answer holding account data is kept by no cache, on either path.
  assert.equal(site.headers['cache-control'], 'no-store');
  const list = await overHttp('/api/v1/sites', { authorization: owner.bearer });
  assert.equal(list.byFastify, !cached);
  assert.equal(list.headers['cache-control'], 'no-store');
  assert.equal((JSON.parse(site.body) as { site: { name: string } }).site.name, 'One');
});

test('a direct answer writes the same request line as Fastify, with no credential in it', async () => {
  const token = await createAccessToken(t.app, owner);
  await overHttp('/api/v1/sites?limit=5', { authorization: token.header });
  const answer = await overHttp('/api/v1/sites?limit=5', { authorization: token.header });
  assert.equal(answer.byFastify, !cached);

  const lines = t.logs().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const requestLines = lines.filter((line) => line.url === '/api/v1/sites?limit=5');
  assert.equal(requestLines.length, 2);
  for (const line of requestLines) {
    assert.deepEqual(Object.keys(line).sort(), ['credential', 'hostname', 'level', 'method', 'ms', 'msg', 'pid', 'reqId', 'status', 'time', 'url', 'user_id']);
    assert.equal(line.msg, 'request');
    // Who asked, the same way on both paths: the user and the kind of credential, never the credential.
    assert.equal(line.user_id, owner.id);
    assert.equal(line.credential, 'access_token');
    assert.equal(line.status, 200);
    assert.equal(line.method, 'GET');
    assert.match(String(line.reqId), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(typeof line.ms, 'number');
  }
  assert.notEqual(requestLines[0]!.reqId, requestLines[1]!.reqId);
  assert.ok(!t.logs().includes(token.token));
  assert.ok(!t.logs().includes(owner.jwt));
});

test('a revoked access token, a sign-out everywhere and a missing scope are refused by the next request', async () => {
  await createSite(t.app, owner.bearer, { name: 'Kept' });
  const token = await createAccessToken(t.app, owner);
  const writeOnly = await createAccessToken(t.app, owner, ['sites:write']);
  for (const authorization of [token.header, owner.bearer]) {
    await overHttp('/api/v1/sites', { authorization });
    assert.equal((await overHttp('/api/v1/sites', { authorization })).byFastify, !cached);
  }

  // The write-only token's principal is held after its first use; the held principal still lacks the scope.
  for (let attempt = 0; attempt < 2; attempt++) {
    const refused = await overHttp('/api/v1/sites', { authorization: writeOnly.header });
    assert.equal(refused.status, 403);
    assert.equal(refused.byFastify, true);
    assert.match(refused.body, /insufficient_scope/);
  }

  const revoked = await t.app.inject({ method: 'DELETE', url: `/api/v1/access-tokens/${token.id}`, headers: { authorization: owner.bearer } });
  assert.equal(revoked.statusCode, 204);
  const afterRevoke = await overHttp('/api/v1/sites', { authorization: token.header });
  assert.equal(afterRevoke.status, 401);
  assert.equal(afterRevoke.byFastify, true);

  const everywhere = await t.app.inject({ method: 'DELETE', url: '/api/v1/me/sessions', headers: { authorization: owner.bearer } });
  assert.equal(everywhere.statusCode, 204);
  const afterSignOut = await overHttp('/api/v1/sites', { authorization: owner.bearer });
  assert.equal(afterSignOut.status, 401);
  assert.equal(afterSignOut.byFastify, true);
  assert.equal(afterSignOut.headers['content-type'], 'application/problem+json; charset=utf-8');
});

test('a site changed through the API is read fresh, and then held again', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Before' });
  const url = `/api/v1/sites/${site.id}`;
  await overHttp(url, { authorization: owner.bearer });
  assert.equal((await overHttp(url, { authorization: owner.bearer })).byFastify, !cached);

  const updated = await t.app.inject({ method: 'PUT', url, headers: { authorization: owner.bearer }, payload: { name: 'After' } });
  assert.equal(updated.statusCode, 200);
  for (const byFastify of [true, !cached]) {
    const answer = await overHttp(url, { authorization: owner.bearer });
    assert.equal(answer.byFastify, byFastify);
    assert.equal(answer.headers.etag, '"2"');
    assert.equal((JSON.parse(answer.body) as { site: { name: string } }).site.name, 'After');
  }
  const list = await overHttp('/api/v1/sites', { authorization: owner.bearer });
  assert.deepEqual((JSON.parse(list.body) as { sites: Array<{ name: string }> }).sites.map((one) => one.name), ['After']);
});

test('an access token due for its last-use record is answered at once, and the record is written after', async () => {
  const token = await createAccessToken(t.app, owner);
  await overHttp('/api/v1/sites', { authorization: token.header });
  assert.equal((await overHttp('/api/v1/sites', { authorization: token.header })).byFastify, !cached);

  t.clock.advance(61_000);
  const due = await overHttp('/api/v1/sites', { authorization: token.header });
  assert.equal(due.status, 200);
  assert.equal(due.byFastify, !cached);

  const recorded = async () => {
    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/access-tokens', headers: { authorization: owner.bearer } });
    return listed.json<{ access_tokens: Array<{ last_used_at: string }> }>().access_tokens[0]?.last_used_at;
  };
  // Written in the background: within a few turns of the event loop, not necessarily before the answer.
  for (let turn = 0; turn < 20 && (await recorded()) !== t.clock.now().toISOString(); turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(await recorded(), t.clock.now().toISOString());
});

test('whatever the direct path does not recognise is answered by Fastify, as Fastify would', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Odd requests' });
  const authorization = owner.bearer;
  // Hold the list, the site and the caller, so that only the oddity can send a request to Fastify.
  await overHttp('/api/v1/sites', { authorization });
  await overHttp(`/api/v1/sites/${site.id}`, { authorization });

  const odd: Array<[string, Record<string, string>]> = [
    ['/api/v1/sites?limit=010', { authorization }],
    ['/api/v1/sites?limit=101', { authorization }],
    ['/api/v1/sites?limit=0', { authorization }],
    ['/api/v1/sites?limit=2&limit=3', { authorization }],
    ['/api/v1/sites?extra=1', { authorization }],
    ['/api/v1/sites?cursor=%41%41', { authorization }],
    ['/api/v1/sites/', { authorization }],
    ['/api/v1/sitesx', { authorization }],
    [`/api/v1/sites/${site.id}?x=1`, { authorization }],
    [`/api/v1/sites/${site.id}`, { authorization, 'if-none-match': '"1"' }],
    [`/api/v1/sites/${site.id}`, { authorization: `Bearer ${owner.jwt}x` }],
    [`/api/v1/sites/${site.id}`, { authorization: 'Basic dXNlcjpwYXNz' }],
    ['/api/v1/sites', {}],
  ];
  for (const [url, headers] of odd) {
    const expected = await fromFastify(url, headers);
    const answer = await overHttp(url, headers);
    assert.equal(answer.byFastify, true, url);
    assert.equal(answer.status, expected.status, url);
    assert.equal(answer.headers['content-type'], expected.headers['content-type'], url);
  }
  const notModified = await overHttp(`/api/v1/sites/${site.id}`, { authorization, 'if-none-match': '"1"' });
  assert.equal(notModified.status, 304);
  const head = await overHttp('/api/v1/sites', { authorization }, 'HEAD');
  assert.equal(head.byFastify, true);
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
});
