import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { buildTestApp, type TestApp } from '../../test/helpers.js';

// Runs once, on SQLite: the embed script is a file served from memory.

// GET /embed.js, the script customers put on their pages; what it does in a browser is proven in
// e2e/embed.test.ts.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await t.close();
});

const EMBED_GZIP_BUDGET_BYTES = 4096;

test('the embed script is one self-contained classic script within 4 KB gzipped, cacheable and loadable from any page', async () => {
  const plain = await t.app.inject({ method: 'GET', url: '/embed.js' });
  assert.equal(plain.statusCode, 200);
  assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(plain.headers['cache-control'], 'public, max-age=300, stale-while-revalidate=86400');
  assert.equal(plain.headers['cross-origin-resource-policy'], 'cross-origin', 'another origin’s page may load it');
  assert.match(String(plain.headers.etag), /^"[\w-]+"$/);
  assert.equal(plain.headers['set-cookie'], undefined);
  const source = plain.body;
  // A classic script: nothing to import, no module syntax, nothing loaded from elsewhere.
  assert.doesNotMatch(source, /\bimport\s*[({'"`]|\bimport\s+\w|\bexport\s|\brequire\(/);
  assert.match(source, /document\.currentScript/);
  assert.match(source, /siteward:config/);
  assert.ok(gzipSync(Buffer.from(source), { level: 9 }).length <= EMBED_GZIP_BUDGET_BYTES, `${gzipSync(Buffer.from(source)).length} bytes gzipped`);

  const gzip = await t.app.inject({ method: 'GET', url: '/embed.js', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.ok(gzip.rawPayload.length <= EMBED_GZIP_BUDGET_BYTES, `served ${gzip.rawPayload.length} bytes gzipped`);
  assert.equal(gunzipSync(gzip.rawPayload).toString(), source);

  const revalidated = await t.app.inject({ method: 'GET', url: '/embed.js', headers: { 'if-none-match': String(plain.headers.etag) } });
  assert.equal(revalidated.statusCode, 304);
});
