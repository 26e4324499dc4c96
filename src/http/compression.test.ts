import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { chargeCopiesTo, compressedCopy, copyChargeCost, preferredEncoding } from './compression.js';

// Runs once, on SQLite: it compares the bytes of answers with and without Accept-Encoding; no query shapes them.

// Compression over real HTTP on 127.0.0.1: what a client receives, decompressed and compared with
// what the same request without Accept-Encoding receives.

interface Received {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let t: TestApp;
let owner: SignedUpUser;
let base: string;
let siteId: string;

function send(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Received> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function decoded(response: Received): Buffer {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.body);
  if (encoding === 'gzip') return gunzipSync(response.body);
  assert.equal(encoding, undefined);
  return response.body;
}

/** Headers that differ between any two answers whatever their coding. */
function stableHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { date: _date, ...rest } = headers;
  return rest;
}

before(async () => {
  t = await buildTestApp();
  owner = await signUp(t.app);
  for (let index = 0; index < 12; index++) {
    const site = await createSite(t.app, owner.bearer, { name: `Compressible site ${index}` });
    siteId = site.id;
    const update = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/sites/${site.id}`,
      headers: { authorization: owner.bearer },
      payload: { ai_settings: JSON.stringify({ instructions: 'Answer kindly. '.repeat(40) }) },
    });
    assert.equal(update.statusCode, 200);
  }
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

after(() => t.close());

describe('JSON answers', () => {
  test('the sites list, a summary page and one site come in br or gzip when asked, and decompress to the plain bytes', async () => {
    for (const path of ['/api/v1/sites', '/api/v1/sites?fields=summary&sort=-name', `/api/v1/sites/${siteId}`, '/api/v1/sites?q=site']) {
      const plain = await send('GET', path, { authorization: owner.bearer });
      assert.equal(plain.status, 200, path);
      assert.ok(plain.body.length >= 1024, `${path} is large enough to compress`);
      for (const [acceptEncoding, expected] of [
        ['br', 'br'],
        ['gzip, deflate, br', 'br'],
        ['gzip', 'gzip'],
        ['br;q=0.5, gzip', 'gzip'],
      ] as const) {
        const compressed = await send('GET', path, { authorization: owner.bearer, 'accept-encoding': acceptEncoding });
        assert.equal(compressed.status, 200);
        assert.equal(compressed.headers['content-encoding'], expected, `${path} ${acceptEncoding}`);
        assert.equal(compressed.headers.vary, 'accept-encoding');
        assert.equal(Number(compressed.headers['content-length']), compressed.body.length);
        assert.ok(compressed.body.length < plain.body.length / 2, `${path} ${acceptEncoding} shrinks`);
        assert.deepEqual(decoded(compressed), plain.body, `${path} ${acceptEncoding}`);
        assert.equal(compressed.headers.etag, plain.headers.etag);
        assert.equal(compressed.headers['cache-control'], 'no-store');
      }
    }
  });

  test('without Accept-Encoding the reads answer the same bytes and headers as with identity, no Vary, and run no compression hook', async () => {
    for (const path of ['/api/v1/sites', `/api/v1/sites/${siteId}`, '/api/v1/sites?limit=3']) {
      const plain = await send('GET', path, { authorization: owner.bearer });
      const identity = await send('GET', path, { authorization: owner.bearer, 'accept-encoding': 'identity' });
      const unknown = await send('GET', path, { authorization: owner.bearer, 'accept-encoding': 'compress' });
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, undefined);
      assert.equal(Number(plain.headers['content-length']), plain.body.length);
      for (const other of [identity, unknown]) {
        assert.deepEqual(other.body, plain.body, path);
        assert.deepEqual(stableHeaders(other.headers), stableHeaders(plain.headers), path);
      }
    }
    // The list route (the benchmark's request) carries none of @fastify/compress's hooks; a route
    // it compresses, such as GET /api/v1/me, does.
    const routes = t.app.printRoutes({ includeHooks: true, commonPrefix: false, method: 'GET' }).split('\n');
    const hooksAfter = (line: string): string => {
      const index = routes.findIndex((route) => route.includes(line));
      assert.ok(index >= 0, line);
      return routes.slice(index + 1, index + 3).join('\n');
    };
    assert.doesNotMatch(hooksAfter('api/v1/sites (GET'), /"onSend\(\)"|"onRequest\(\)"/);
    const putRoutes = t.app.printRoutes({ includeHooks: true, commonPrefix: false, method: 'PUT' }).split('\n');
    const put = putRoutes.findIndex((route) => route.includes(':id (PUT)'));
    assert.ok(put >= 0);
    assert.doesNotMatch(putRoutes.slice(put + 1, put + 3).join('\n'), /"onSend\(\)"|"onRequest\(\)"/);
    assert.match(hooksAfter('api/v1/me (GET'), /"onSend\(\)"/);
  });

  test('an update comes compressed when asked, and plain with the same bytes otherwise', async () => {
    const update = (name: string, headers: Record<string, string>) =>
      send('PUT', `/api/v1/sites/${siteId}`, { authorization: owner.bearer, 'content-type': 'application/json', ...headers }, Buffer.from(JSON.stringify({ name })));
    const plain = await update('Renamed plainly', {});
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, undefined);
    const compressed = await update('Renamed plainly', { 'accept-encoding': 'br' });
    assert.equal(compressed.headers['content-encoding'], 'br');
    const read = await send('GET', `/api/v1/sites/${siteId}`, { authorization: owner.bearer });
    // The update answers the site as a read of it does, compressed or not.
    assert.deepEqual(decoded(compressed), read.body);
    assert.equal(compressed.headers.etag, read.headers.etag);
    assert.equal((JSON.parse(plain.body.toString('utf8')) as { site: { name: string } }).site.name, 'Renamed plainly');
  });

  test('other JSON answers are compressed by the plugin when large enough, never when small', async () => {
    const created = await send(
      'POST',
      '/api/v1/sites',
      { authorization: owner.bearer, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
      Buffer.from(JSON.stringify({ name: 'Created while compressed', widget: 'w'.repeat(2000) })),
    );
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-encoding'], 'gzip');
    assert.equal(created.headers.vary, 'accept-encoding');
    const site = (JSON.parse(decoded(created).toString('utf8')) as { site: { name: string; widget: string } }).site;
    assert.equal(site.name, 'Created while compressed');
    assert.equal(site.widget, 'w'.repeat(2000));

    const openapi = await send('GET', '/api/v1/openapi.json', { 'accept-encoding': 'br' });
    assert.equal(openapi.headers['content-encoding'], 'br');
    assert.equal((JSON.parse(decoded(openapi).toString('utf8')) as { openapi: string }).openapi, '3.1.0');

    for (const [path, headers] of [
      ['/api/v1/me', { authorization: owner.bearer }],
      ['/api/v1/nothing', {}],
      ['/healthz', {}],
    ] as const) {
      const small = await send('GET', path, { ...headers, 'accept-encoding': 'br, gzip' });
      assert.ok(small.body.length < 1024, path);
      assert.equal(small.headers['content-encoding'], undefined, path);
      JSON.parse(small.body.toString('utf8'));
    }
  });

  test('a compressed request body is not decompressed: it is refused and changes nothing', async () => {
    const before = await send('GET', `/api/v1/sites/${siteId}`, { authorization: owner.bearer });
    const response = await send(
      'PUT',
      `/api/v1/sites/${siteId}`,
      { authorization: owner.bearer, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      gzipSync(JSON.stringify({ name: 'Sent compressed' })),
    );
    assert.equal(response.status, 400);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    const afterwards = await send('GET', `/api/v1/sites/${siteId}`, { authorization: owner.bearer });
    assert.deepEqual(afterwards.body, before.body);
  });

  test('parallel compressed and plain reads each get their own coding', async () => {
    const plain = (await send('GET', '/api/v1/sites', { authorization: owner.bearer })).body;
    const codings = ['br', 'gzip', undefined, 'br', 'gzip', undefined, 'identity', 'br'];
    const answers = await Promise.all(codings.map((coding) => send('GET', '/api/v1/sites', { authorization: owner.bearer, ...(coding === undefined ? {} : { 'accept-encoding': coding }) })));
    answers.forEach((answer, index) => {
      const coding = codings[index];
      assert.equal(answer.headers['content-encoding'], coding === 'identity' ? undefined : coding);
      assert.deepEqual(decoded(answer), plain);
    });
  });
});

describe('the dashboard over HTTP', () => {
  test('the script and stylesheet come in br or gzip when asked, decompressing to the plain file', async () => {
    const home = await send('GET', '/');
    const assets = [...home.body.toString('utf8').matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1] ?? '');
    // The entry script, its stylesheet and the chunks it preloads.
    assert.ok(assets.some((asset) => asset.endsWith('.js')) && assets.some((asset) => asset.endsWith('.css')), assets.join(', '));
    // index.html, like every file, is compressed only past the 1 KiB threshold.
    const homeInBrotli = await send('GET', '/', { 'accept-encoding': 'br' });
    assert.equal(homeInBrotli.headers['content-encoding'], home.body.length > 1024 ? 'br' : undefined);
    assert.deepEqual(decoded(homeInBrotli), home.body);
    for (const path of assets) {
      const plain = await send('GET', path);
      assert.equal(plain.headers['content-encoding'], undefined);
      // The bundler's runtime helpers, a few hundred bytes, are under the threshold too.
      const compressible = plain.body.length > 1024;
      for (const coding of ['br', 'gzip']) {
        const compressed = await send('GET', path, { 'accept-encoding': coding });
        if (!compressible) {
          assert.equal(compressed.headers['content-encoding'], undefined, path);
          continue;
        }
        assert.equal(compressed.headers['content-encoding'], coding, path);
        assert.equal(compressed.headers.vary, 'accept-encoding');
        assert.deepEqual(decoded(compressed), plain.body, path);
      }
    }
  });
});

describe('choosing a coding', () => {
  test('br before gzip when both are equally welcome; q=0 refuses; nothing else is chosen', () => {
    assert.equal(preferredEncoding(undefined), undefined);
    assert.equal(preferredEncoding(''), undefined);
    assert.equal(preferredEncoding('identity'), undefined);
    assert.equal(preferredEncoding('deflate, compress'), undefined);
    assert.equal(preferredEncoding('gzip, br'), 'br');
    assert.equal(preferredEncoding('GZIP'), 'gzip');
    assert.equal(preferredEncoding('x-gzip'), 'gzip');
    assert.equal(preferredEncoding('br;q=0, gzip'), 'gzip');
    assert.equal(preferredEncoding('br;q=0, gzip;q=0'), undefined);
    assert.equal(preferredEncoding('*'), 'br');
    assert.equal(preferredEncoding('gzip;q=1, br;q=0.2'), 'gzip');
  });
});

describe('compressed copies', () => {
  test('a body is compressed once per coding: the same bytes again get the copy made the first time', () => {
    const body = Buffer.from(JSON.stringify({ sites: Array.from({ length: 50 }, (_, index) => ({ name: `Help centre ${index}`, color: '#4f46e5' })) }));
    const gzip = compressedCopy('gzip', body);
    const br = compressedCopy('br', body);
    assert.equal(compressedCopy('gzip', body), gzip);
    assert.equal(compressedCopy('br', body), br);
    assert.deepEqual(gunzipSync(gzip), body);
    assert.deepEqual(brotliDecompressSync(br), body);
    // Another body, even with equal bytes, is compressed for itself: the copies follow the Buffer, not its text.
    const other = Buffer.from(body);
    assert.notEqual(compressedCopy('gzip', other), gzip);
    assert.deepEqual(gunzipSync(compressedCopy('gzip', other)), body);
  });

  test('a copy holds only its own bytes, and whoever keeps the body is charged for each copy as it is made', () => {
    const body = Buffer.from(JSON.stringify({ sites: Array.from({ length: 50 }, (_, index) => ({ id: randomUUID(), name: `Help centre ${index}` })) }));
    const charged: number[] = [];
    chargeCopiesTo(body, (bytes) => charged.push(bytes));
    for (const encoding of ['gzip', 'br'] as const) {
      const copy = compressedCopy(encoding, body);
      // zlib hands out a view of its 16 KiB output chunk; a cached body would keep the chunk alive.
      assert.equal(copy.buffer.byteLength, copy.length, `${encoding}: a buffer of its own`);
    }
    assert.equal(charged.length, 2, 'one charge per coding');
    assert.ok(charged[0] !== undefined && charged[0] > compressedCopy('gzip', body).length);
    assert.ok(charged[1] !== undefined && charged[1] > compressedCopy('br', body).length);
    compressedCopy('br', body);
    assert.equal(charged.length, 2, 'a copy made once is charged once');
    const small = Buffer.from('{"small":true}');
    assert.equal(copyChargeCost(small), 0, 'a body under the threshold is never compressed, so nothing is watched');
    assert.ok(copyChargeCost(body) > 0);
  });
});
