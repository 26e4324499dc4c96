import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { EventStreamClient } from '../../test/event-stream.js';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp, untilCacheHeardChanges } from '../../test/helpers.js';
import { rawRequest } from '../../test/raw-http.js';
import { HTTP_ERRORS } from '../http/errors.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { DELIVERY_ERRORS } from './errors.js';
import { PublicConfigs } from './public-configs.js';
import type { PublicConfigJson } from './schema.js';

// GET /public/v1/sites/{public_key} over real HTTP, on SQLite and (with TEST_DATABASE_URL)
// PostgreSQL: the first answer for a key comes from the database through Fastify, the next from
// the cache through the fast path; each test asks both ways. One app for the file: the tests share
// nothing but it.

let t: TestApp;
let base: string;
let owner: SignedUpUser;
/** The SQL of every query the app ran, in order. */
const queries: string[] = [];

before(async () => {
  t = await buildTestApp({ onQuery: (sql) => queries.push(sql) });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  owner = await signUp(t.app);
});
after(async () => {
  await t.close();
});

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
}

/** node:http, not fetch: fetch asks for compression by itself and decompresses what it gets. */
function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) received.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, headers: received, bytes, text: bytes.toString('utf8') });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

function publicUrl(key: string): string {
  return `/public/v1/sites/${key}`;
}

async function api(method: string, url: string, payload?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await t.app.inject({ method: method as 'GET', url, headers: { authorization: owner.bearer }, ...(payload === undefined ? {} : { payload }) });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.body === '' ? {} : (response.json() as Record<string, unknown>);
}

/** Asks twice: the first answer may come from the database, the second must come from the cache; both must be the same. */
async function getTwice(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const first = await get(path, headers);
  const second = await get(path, headers);
  assert.equal(second.status, first.status);
  assert.deepEqual(second.bytes, first.bytes, 'the database and the cache answer the same bytes');
  for (const name of ['etag', 'cache-control', 'content-type', 'content-encoding', 'vary', 'access-control-allow-origin', 'cross-origin-resource-policy']) {
    assert.equal(second.headers.get(name), first.headers.get(name), name);
  }
  return second;
}

function sitePublicQueries(): number {
  return queries.filter((sql) => sql.includes('public_key')).length;
}

function assertProblem(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/, answer.text);
  assert.equal((JSON.parse(answer.text) as { code: string }).code, code, answer.text);
}

const SECRET_TOKEN = 'partner-token-that-must-never-be-public-7f3a';
/** Enough to be compressed, so that every coding of the answer is searched too. */
const LONG_TEXT = 'Ask us anything about your order. '.repeat(40);

describe('what a site shows the public', () => {
  test('only the name, colour and public groups ever appear: no other setting, no secret, no person, no id', async () => {
    const member = await signUp(t.app);
    const team = (await api('POST', '/api/v1/workspaces', { name: 'Team with secrets' })) as { workspace: { id: string } };
    const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
    await workspaces.addMember(team.workspace.id, member.id, 'editor');
    const secrets = {
      ai_settings: JSON.stringify({ model: 'private-model-x9', system_prompt: 'private prompt 5d1e' }),
      email_settings: JSON.stringify({ from_name: 'Private sender', reply_to: 'private-reply@example.com' }),
      knowledge_sources: JSON.stringify([{ type: 'url', url: 'https://intranet.example/private-kb-3c2b' }]),
    };
    const site = await createSite(t.app, owner.bearer, { name: 'Public name', workspace_id: team.workspace.id });
    await api('PUT', `/api/v1/sites/${site.id}`, {
      color: '#0EA5E9',
      ...secrets,
      widget: JSON.stringify({ greeting: 'Hello, visitor', position: 'bottom-right', intro: LONG_TEXT }),
      portal: JSON.stringify({ title: 'Help' }),
      branding: JSON.stringify({ company_name: 'Acme' }),
      public_theme: JSON.stringify({ mode: 'dark' }),
      partner_settings: { enabled: true, base_url: 'https://partner-private.example/api', project_id: 'private-project-8e', collections: ['private-collection'], access_token: SECRET_TOKEN },
    });
    const key = String(site.public_key);
    const forbidden = [
      SECRET_TOKEN,
      'private-model-x9',
      'private prompt 5d1e',
      'private-reply@example.com',
      'Private sender',
      'private-kb-3c2b',
      'partner-private.example',
      'private-project-8e',
      'private-collection',
      owner.email,
      member.email,
      owner.id,
      member.id,
      site.id,
      team.workspace.id,
      'Team with secrets',
      '@',
    ];
    for (const encoding of [undefined, 'gzip', 'br']) {
      const answer = await getTwice(publicUrl(key), encoding === undefined ? {} : { 'accept-encoding': encoding });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-encoding'), encoding ?? null);
      const text = encoding === 'gzip' ? gunzipSync(answer.bytes).toString() : encoding === 'br' ? brotliDecompressSync(answer.bytes).toString() : answer.text;
      const body = JSON.parse(text) as PublicConfigJson;
      assert.deepEqual(body, {
        site: {
          name: 'Public name',
          color: '#0ea5e9',
          widget: { greeting: 'Hello, visitor', position: 'bottom-right', intro: LONG_TEXT },
          portal: { title: 'Help' },
          branding: { company_name: 'Acme' },
          public_theme: { mode: 'dark' },
        },
        version: 2,
        updated_at: body.updated_at,
      });
      for (const value of forbidden) assert.ok(!text.includes(value), `the public answer shows ${value}`);
    }
    // The event stream carries the same document, and nothing more.
    const stream = await EventStreamClient.open(`${base}${publicUrl(key)}/events`);
    try {
      const event = await stream.event(0);
      assert.deepEqual(JSON.parse(event.data), JSON.parse((await get(publicUrl(key))).text));
      for (const value of forbidden) assert.ok(!stream.body().includes(value), `the event stream shows ${value}`);
    } finally {
      stream.close();
    }
  });

  test('each group is the JSON object its text holds, or null for text that is empty, not JSON or not an object', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Shapes' });
    await api('PUT', `/api/v1/sites/${site.id}`, { widget: '  {"a": [1, {"b": null}]}  ', portal: '', branding: '[1, 2]', public_theme: 'light' });
    const body = JSON.parse((await getTwice(publicUrl(String(site.public_key)))).text) as PublicConfigJson;
    assert.deepEqual(body.site, { name: 'Shapes', color: '#4f46e5', widget: { a: [1, { b: null }] }, portal: null, branding: null, public_theme: null });
    await api('PUT', `/api/v1/sites/${site.id}`, { widget: 'null', portal: '{"unterminated": ', branding: '"text"', public_theme: '42' });
    const after = JSON.parse((await getTwice(publicUrl(String(site.public_key)))).text) as PublicConfigJson;
    assert.deepEqual([after.site.widget, after.site.portal, after.site.branding, after.site.public_theme], [null, null, null, null]);
  });
});

describe('caching by browsers and HTTP caches', () => {
  test('headers: a strong ETag per version, public caching with stale grace, any origin, no cookie, and /api/v1 stays no-store', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Headers' });
    const answer = await getTwice(publicUrl(String(site.public_key)), { cookie: 'siteward_session=whatever; other=1', origin: 'https://customer.example' });
    assert.equal(answer.headers.get('etag'), '"1"');
    assert.equal(answer.headers.get('cache-control'), 'public, max-age=60, stale-while-revalidate=600, stale-if-error=86400');
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    assert.equal(answer.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.equal(answer.headers.get('vary'), 'Accept-Encoding');
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(answer.headers.get('set-cookie'), null);
    const apiAnswer = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer } });
    assert.equal(apiAnswer.headers['cache-control'], 'no-store');

    const head = await get(publicUrl(String(site.public_key)), {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.bytes.length, 0);
    assert.equal(head.headers.get('content-length'), String(answer.bytes.length));
    assert.equal(head.headers.get('etag'), '"1"');

    const preflight = await fetch(`${base}${publicUrl(String(site.public_key))}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://customer.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /If-None-Match/);
  });

  test('If-None-Match with the version held is 304, in any coding and weak or strong; an older one gets the new version', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Revalidated' });
    const key = String(site.public_key);
    for (const tag of ['"1"', 'W/"1"', '"0", "1"', '"1-gzip"', '*']) {
      const answer = await getTwice(publicUrl(key), { 'if-none-match': tag });
      assert.equal(answer.status, 304, tag);
      assert.equal(answer.bytes.length, 0);
      assert.equal(answer.headers.get('etag'), '"1"');
      assert.equal(answer.headers.get('cache-control'), 'public, max-age=60, stale-while-revalidate=600, stale-if-error=86400');
    }
    for (const tag of ['"2"', '"1-deflate"', '"11"', 'garbage', '""', ',,,']) assert.equal((await getTwice(publicUrl(key), { 'if-none-match': tag })).status, 200, tag);
    await api('PUT', `/api/v1/sites/${site.id}`, { name: 'Revalidated again' });
    const changed = await getTwice(publicUrl(key), { 'if-none-match': '"1"' });
    assert.equal(changed.status, 200);
    assert.equal(changed.headers.get('etag'), '"2"');
    assert.equal((JSON.parse(changed.text) as PublicConfigJson).site.name, 'Revalidated again');
  });

  test('a configuration of 1 KiB or more is compressed when asked, each coding with its own entity tag', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Large' });
    await api('PUT', `/api/v1/sites/${site.id}`, { widget: JSON.stringify({ greeting: 'Hello! '.repeat(400) }) });
    const key = String(site.public_key);
    const plain = await getTwice(publicUrl(key));
    const gzip = await getTwice(publicUrl(key), { 'accept-encoding': 'gzip, deflate' });
    const br = await getTwice(publicUrl(key), { 'accept-encoding': 'gzip;q=0.5, br' });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(gzip.headers.get('content-encoding'), 'gzip');
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.deepEqual(gunzipSync(gzip.bytes), plain.bytes);
    assert.deepEqual(brotliDecompressSync(br.bytes), plain.bytes);
    assert.ok(gzip.bytes.length < plain.bytes.length / 4);
    assert.deepEqual([plain, gzip, br].map((answer) => answer.headers.get('etag')), ['"2"', '"2-gzip"', '"2-br"']);
    assert.equal((await getTwice(publicUrl(key), { 'accept-encoding': 'gzip', 'if-none-match': '"2-gzip"' })).status, 304);
    assert.equal((await getTwice(publicUrl(key), { 'accept-encoding': 'identity' })).headers.get('content-encoding'), null);
  });

  test('nothing on the public path reads the database while the cache holds the site; a change is read once, then served from memory again', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Counted' });
    const key = String(site.public_key);
    await untilCacheHeardChanges(t);
    await get(publicUrl(key));
    const warm = sitePublicQueries();
    for (let i = 0; i < 20; i++) {
      assert.equal((await get(publicUrl(key), i % 2 === 0 ? {} : { 'if-none-match': '"1"' })).status, i % 2 === 0 ? 200 : 304);
    }
    assert.equal(sitePublicQueries(), warm, 'a warm cache answered every request');
    await api('PUT', `/api/v1/sites/${site.id}`, { name: 'Counted again' });
    await untilCacheHeardChanges(t);
    const changed = JSON.parse((await get(publicUrl(key))).text) as PublicConfigJson;
    assert.equal(changed.site.name, 'Counted again', 'a change is never answered from the cache');
    assert.equal(sitePublicQueries(), warm + 1);
    for (let i = 0; i < 5; i++) await get(publicUrl(key));
    assert.equal(sitePublicQueries(), warm + 1);
  });
  test('held documents do not expire; a change that was never reported is caught by the check against the database', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Checked' });
    const key = String(site.public_key);
    await get(publicUrl(key));
    // Written past the app, as a forgotten report would leave it: on SQLite nothing tells the
    // cache (this process's own connection); PostgreSQL's triggers announce it all the same.
    await t.database.db.updateTable('sites').set({ name: 'Checked behind', version: 2 }).where('id', '=', String(site.id)).execute();
    await untilCacheHeardChanges(t);
    if (t.database.dialect === 'sqlite') assert.equal((JSON.parse((await get(publicUrl(key))).text) as PublicConfigJson).site.name, 'Checked');
    await new PublicConfigs(t.database.db, t.cache, t.clock).check();
    const checked = await getTwice(publicUrl(key));
    assert.equal((JSON.parse(checked.text) as PublicConfigJson).site.name, 'Checked behind');
    assert.equal(checked.headers.get('etag'), '"2"');
    // Checking again finds nothing moved: the document stays held.
    const before = sitePublicQueries();
    await new PublicConfigs(t.database.db, t.cache, t.clock).check();
    await get(publicUrl(key));
    assert.equal(sitePublicQueries(), before, 'the document was not read again');
  });
});

describe('the log', () => {
  test('every public request is logged with its client address: a line per request through Fastify, refusals included, and the answers of the fast path summed per client and URL', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Logged' });
    const key = String(site.public_key);
    const unknown = `spk_${'z'.repeat(24)}`;
    const before = t.logs().length;
    await get(publicUrl(key));
    await get(publicUrl(key));
    await get(publicUrl(key), { 'if-none-match': '"1"' });
    await get(publicUrl(key), {}, 'HEAD');
    await get(publicUrl(unknown));
    await get(publicUrl('not-a-key'));
    const logged = () =>
      t
        .logs()
        .slice(before)
        .split('\n')
        .filter((text) => text !== '')
        .map((text) => JSON.parse(text) as Record<string, unknown>);
    // The first answer comes from the database, through Fastify; a refusal never takes the fast path.
    const lines = logged().filter((line) => line.msg === 'request');
    assert.deepEqual(
      lines.map((line) => [line.url, line.status, line.ip]),
      [
        [publicUrl(key), 200, '127.0.0.1'],
        [publicUrl(unknown), 404, '127.0.0.1'],
        [publicUrl('not-a-key'), 400, '127.0.0.1'],
      ],
    );
    for (const line of lines) assert.deepEqual(Object.keys(line).sort(), ['hostname', 'ip', 'level', 'method', 'ms', 'msg', 'pid', 'reqId', 'status', 'time', 'url']);
    assert.equal(new Set(lines.map((line) => line.reqId)).size, lines.length, 'each line its own request id');
    // The fast path's three answers, written within the second (the count may straddle two writes).
    const served = new Map<string, number>();
    for (let waited = 0; waited < 5_000; waited += 20) {
      served.clear();
      for (const line of logged().filter((entry) => entry.msg === 'public configurations served' && entry.url === publicUrl(key))) {
        assert.deepEqual(Object.keys(line).sort(), ['answers', 'hostname', 'ip', 'level', 'msg', 'pid', 'time', 'url']);
        assert.equal(line.ip, '127.0.0.1');
        for (const [kind, count] of Object.entries(line.answers as Record<string, number>)) served.set(kind, (served.get(kind) ?? 0) + count);
      }
      if ([...served.values()].reduce((sum, count) => sum + count, 0) >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(Object.fromEntries(served), { 'GET 200': 1, 'GET 304': 1, 'HEAD 200': 1 });
  });
});

describe('keys that answer nothing, and bad input', () => {
  test('an unknown key, and a trashed site’s, are 404 site_not_found, cacheable for max-age; restored from the trash it answers again', async () => {
    const unknown = await getTwice(publicUrl('spk_000000000000000000000000'));
    assertProblem(unknown, 404, SITE_ERRORS.SITE_NOT_FOUND);
    assert.equal(unknown.headers.get('cache-control'), 'public, max-age=60');
    assert.equal(unknown.headers.get('access-control-allow-origin'), '*');

    const site = await createSite(t.app, owner.bearer, { name: 'Trashed' });
    const key = String(site.public_key);
    assert.equal((await getTwice(publicUrl(key))).status, 200);
    await api('DELETE', `/api/v1/sites/${site.id}`);
    assertProblem(await getTwice(publicUrl(key)), 404, SITE_ERRORS.SITE_NOT_FOUND);
    await api('POST', `/api/v1/trash/${site.id}/restore`);
    assert.equal((await getTwice(publicUrl(key))).status, 200);
  });

  test('a rotated key answers for 24 hours more, then not at: moved clock, warm and cold', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Rotated' });
    const oldKey = String(site.public_key);
    assert.equal((await getTwice(publicUrl(oldKey))).status, 200);
    const rotated = (await api('POST', `/api/v1/sites/${site.id}/public-key/rotate`)) as { site: { public_key: string } };
    const newKey = rotated.site.public_key;
    const fresh = await getTwice(publicUrl(newKey));
    const overlap = await getTwice(publicUrl(oldKey));
    assert.equal(overlap.status, 200);
    assert.deepEqual(overlap.bytes, fresh.bytes, 'both keys answer the same configuration');
    t.clock.advance(24 * 60 * 60 * 1000 - 1);
    assert.equal((await getTwice(publicUrl(oldKey))).status, 200, 'the last millisecond of the overlap');
    t.clock.advance(1);
    // Warm: the cache still holds the document under the old key, and must refuse it now.
    assertProblem(await getTwice(publicUrl(oldKey)), 404, SITE_ERRORS.SITE_NOT_FOUND);
    // Cold: after the next change, the database is asked, and answers the same.
    await api('PUT', `/api/v1/sites/${site.id}`, { name: 'Rotated, changed' });
    assertProblem(await getTwice(publicUrl(oldKey)), 404, SITE_ERRORS.SITE_NOT_FOUND);
    assert.equal((await getTwice(publicUrl(newKey))).status, 200);
    // A second rotation ends the first key's successor's overlap too, and the first stays dead.
    const again = (await api('POST', `/api/v1/sites/${site.id}/public-key/rotate`)) as { site: { public_key: string } };
    assert.equal((await getTwice(publicUrl(newKey))).status, 200, 'the key just replaced overlaps');
    assert.equal((await getTwice(publicUrl(again.site.public_key))).status, 200);
    assertProblem(await getTwice(publicUrl(oldKey)), 404, SITE_ERRORS.SITE_NOT_FOUND);
  });

  test('malformed keys of every shape are 400 invalid_public_key; other bad requests a clear 4xx; never a 500', async () => {
    const malformed = [
      'spk_',
      'spk_short',
      'spk_0000000000000000000000000',
      'SPK_000000000000000000000000',
      'spk_00000000000-000000000000',
      'spk_00000000000_000000000000',
      'swd_000000000000000000000000',
      '000000000000000000000000',
      encodeURIComponent('spk_00000000000000000000000é'),
      encodeURIComponent('spk_0000000000000000000000\u0000'),
      encodeURIComponent('spk_ 00000000000000000000000'),
      '%27%20or%201%3D1--',
      'x'.repeat(99),
    ];
    for (const key of malformed) {
      const answer = await get(publicUrl(key));
      assertProblem(answer, 400, DELIVERY_ERRORS.INVALID_PUBLIC_KEY);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    }
    const site = await createSite(t.app, owner.bearer, { name: 'Bad input' });
    const key = String(site.public_key);
    const cases: Array<[string, Record<string, string>, number, string]> = [
      [publicUrl('%ZZ'), {}, 400, HTTP_ERRORS.BAD_URL],
      [publicUrl('x'.repeat(500)), {}, 404, HTTP_ERRORS.ROUTE_NOT_FOUND],
      [`${publicUrl(key)}?v=1`, {}, 400, HTTP_ERRORS.VALIDATION_FAILED],
      [`${publicUrl(key)}?${'a'.repeat(12_000)}=1`, {}, 400, HTTP_ERRORS.VALIDATION_FAILED],
      [`${publicUrl(key)}?${'a'.repeat(40_000)}`, {}, 431, HTTP_ERRORS.HEADERS_TOO_LARGE],
      [`${publicUrl(key)}/extra`, {}, 404, HTTP_ERRORS.ROUTE_NOT_FOUND],
      [publicUrl(key), { 'if-none-match': 'x'.repeat(8000) }, 200, ''],
      [publicUrl(key), { 'accept-encoding': 'br;q=nonsense, *;q=2, gzip;;;' }, 200, ''],
    ];
    for (const [url, headers, status, code] of cases) {
      const answer = await get(url, headers);
      if (code === '') assert.equal(answer.status, status, `${url.slice(0, 80)}: ${answer.text.slice(0, 200)}`);
      else assertProblem(answer, status, code);
    }
  });
});

describe('requests node:http would answer itself, with the site held in memory', () => {
  test('no Host and an unknown Expect are problems from Fastify, not configurations; an absolute-form target is served as its path', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Held in memory' });
    const key = String(site.public_key);
    const warm = await getTwice(publicUrl(key));
    assert.equal(warm.status, 200);
    const { port } = t.app.server.address() as AddressInfo;
    const raw = (request: string) => rawRequest(port, request);
    const noHost = await raw(`GET ${publicUrl(key)} HTTP/1.1\r\nConnection: close\r\n\r\n`);
    assert.equal(noHost.status, 400, noHost.body);
    assert.match(noHost.headers['content-type'] ?? '', /^application\/problem\+json/);
    const expectation = await raw(`GET ${publicUrl(key)} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\nConnection: close\r\n\r\n`);
    assert.equal(expectation.status, 417, expectation.body);
    assert.match(expectation.headers['content-type'] ?? '', /^application\/problem\+json/);
    const absolute = await raw(`GET http://elsewhere.example${publicUrl(key)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    assert.equal(absolute.status, 200);
    assert.equal(absolute.body, warm.text);
  });
});
