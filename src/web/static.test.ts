import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { DASHBOARD_CSP, registerDashboard } from './static.js';

describe('the dashboard as the real build serves it', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  test('every screen address answers the same index.html, never cached, under the strict CSP', async () => {
    const home = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(home.statusCode, 200);
    assert.match(String(home.headers['content-type']), /^text\/html/);
    assert.equal(home.headers['cache-control'], 'no-cache');
    assert.equal(home.headers['content-security-policy'], DASHBOARD_CSP);
    assert.equal(home.headers['x-frame-options'], 'DENY');
    assert.match(home.body, /<div id="root"><\/div>/);
    for (const url of ['/sign-in', '/sign-up', '/sites/0193abcd', '/settings/access-tokens', '/settings/security', '/sign-in?next=%2Fsites']) {
      const screen = await t.app.inject({ method: 'GET', url });
      assert.equal(screen.statusCode, 200, url);
      assert.equal(screen.body, home.body, url);
    }
  });

  test('the script and stylesheet index.html names are served, cacheable for a year', async () => {
    const home = await t.app.inject({ method: 'GET', url: '/' });
    const referenced = [...home.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
    assert.ok(referenced.some((url) => url.endsWith('.js')), 'a script');
    assert.ok(referenced.some((url) => url.endsWith('.css')), 'a stylesheet');
    for (const url of referenced) {
      const asset = await t.app.inject({ method: 'GET', url });
      assert.equal(asset.statusCode, 200, url);
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
  });

  test('API paths and unknown pages keep their problem+json 404', async () => {
    for (const url of ['/api/v1/nothing', '/nothing', '/assets/missing.js', '/sites/a/b']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/, url);
    }
  });
});

describe('serving a build folder', () => {
  let buildDir: string;
  const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;
  beforeEach(() => {
    buildDir = mkdtempSync(path.join(tmpdir(), 'siteward-web-'));
    mkdirSync(path.join(buildDir, 'assets'));
    writeFileSync(path.join(buildDir, 'index.html'), '<!doctype html><script type="module" src="/assets/app-1a2b.js"></script>');
    writeFileSync(path.join(buildDir, 'assets', 'app-1a2b.js'), script);
    writeFileSync(path.join(buildDir, 'secret.txt'), 'not an asset');
  });
  afterEach(() => rmSync(buildDir, { recursive: true, force: true }));

  async function appServing(dir: string) {
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    registerDashboard(app, dir);
    await app.ready();
    return app;
  }

  test('answers gzip to clients that accept it, and the same bytes uncompressed to the rest', async () => {
    const app = await appServing(buildDir);
    const plain = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js' });
    assert.equal(plain.body, script);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    const gzipped = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.ok(gzipped.rawPayload.length < script.length / 10);
    assert.equal(gunzipSync(gzipped.rawPayload).toString('utf8'), script);
    await app.close();
  });

  test('a matching If-None-Match is answered 304 without a body', async () => {
    const app = await appServing(buildDir);
    const first = await app.inject({ method: 'GET', url: '/' });
    const etag = first.headers.etag;
    assert.equal(typeof etag, 'string');
    const again = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': String(etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    await app.close();
  });

  test('only files of the assets folder are served: no other file, no path traversal', async () => {
    const app = await appServing(buildDir);
    for (const url of ['/assets/../secret.txt', '/assets/%2e%2e%2fsecret.txt', '/secret.txt', '/assets/..%2Findex.html', '/index.html']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.doesNotMatch(response.body, /not an asset/, url);
    }
    await app.close();
  });

  test('without a build, the screens say how to build it and the rest still works', async () => {
    const app = await appServing(path.join(buildDir, 'missing'));
    const home = await app.inject({ method: 'GET', url: '/' });
    assert.equal(home.statusCode, 503);
    assert.match(home.body, /npm run build/);
    await app.close();
  });
});
