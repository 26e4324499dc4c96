import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, enableTotp, sessionCookie, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { COMPRESSED_SUFFIXES, compressFully, isCompressible } from './precompressed.js';
import { SCREENS, SITE_LIST_FIRST_PAGE } from './screens.js';
import { DASHBOARD_CSP, prefersHtml, registerDashboard, WEB_BUILD_DIR } from './static.js';

const ORIGIN = 'http://localhost:3000';

describe('the dashboard as the real build serves it', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  /** A live web session's cookie ("name=value"), from a password sign-in. */
  async function signedIn(): Promise<string> {
    const user = await signUp(t.app);
    const answer = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: STRONG_PASSWORD } });
    const cookie = sessionCookie(answer.headers['set-cookie']);
    assert.ok(cookie !== undefined, answer.body);
    return cookie.header;
  }

  test('every screen address answers the same index.html, never cached, under the strict CSP', async () => {
    // Signed in: signed out, the sign-in screens answer a document of their own (below).
    const session = await signedIn();
    const signIn = await t.app.inject({ method: 'GET', url: '/sign-in', headers: { cookie: session } });
    assert.equal(signIn.statusCode, 200);
    assert.match(String(signIn.headers['content-type']), /^text\/html/);
    assert.equal(signIn.headers['cache-control'], 'no-cache');
    assert.equal(signIn.headers['content-security-policy'], DASHBOARD_CSP);
    assert.equal(signIn.headers['x-frame-options'], 'DENY');
    assert.equal(signIn.headers['set-cookie'], undefined);
    assert.match(signIn.body, /<div id="root"><\/div>/);
    assert.match(signIn.body, /<link rel="preload" as="fetch" crossorigin href="\/api\/v1\/me"/, 'who is signed in is asked for on every screen');
    for (const url of ['/sign-up', '/sites/0193abcd', '/sites/0193abcd/ai', '/settings/profile', '/settings/access-tokens', '/settings/security', '/sign-in?next=%2Fsites', '/?q=a', '/sites?sort=name', '/sites?workspace=0193abcd']) {
      const screen = await t.app.inject({ method: 'GET', url, headers: { cookie: `theme=dark; ${session}` } });
      assert.equal(screen.statusCode, 200, url);
      assert.equal(screen.body, signIn.body, url);
      assert.equal(screen.headers.etag, signIn.headers.etag, url);
    }
  });

  test('the sign-in screens answer whoever has no live session with the signed-out document, under the same CSP', async () => {
    const dashboard = await t.app.inject({ method: 'GET', url: '/trash' });
    const signedOutPage = readFileSync(path.join(WEB_BUILD_DIR, 'signed-out.html'), 'utf8');
    for (const url of ['/sign-in', '/sign-up', '/sign-in?next=%2Fsites']) {
      for (const cookie of [undefined, 'theme=dark', 'not_siteward_session=x', 'siteward_session=', 'siteward_session=unknown']) {
        const screen = await t.app.inject({ method: 'GET', url, headers: cookie === undefined ? {} : { cookie } });
        assert.equal(screen.statusCode, 200, url);
        assert.equal(screen.headers['cache-control'], 'no-cache', url);
        assert.equal(screen.headers['content-security-policy'], DASHBOARD_CSP, url);
        assert.equal(screen.headers['x-frame-options'], 'DENY', url);
        assert.equal(screen.body, signedOutPage, url);
        assert.notEqual(screen.body, dashboard.body, url);
        assert.doesNotMatch(screen.body, /href="\/api\/v1\/(?:me|sites)/, url);
        // A cookie that names no session is dropped; none is set otherwise.
        const cleared = sessionCookie(screen.headers['set-cookie']);
        if (cookie === 'siteward_session=unknown') assert.equal(cleared?.value, '', `${url} ${cookie}`);
        else assert.equal(cleared, undefined, `${url} ${String(cookie)}`);
      }
    }
    // Other screens are always the dashboard: only someone signed in gets past the sign-in screen to them.
    assert.match(dashboard.body, /href="\/api\/v1\/me"/);
  });

  test("a session that has ended counts as signed out on the sign-in screens, and its cookie is cleared; one waiting for its second step is kept", async () => {
    const signedOutPage = readFileSync(path.join(WEB_BUILD_DIR, 'signed-out.html'), 'utf8');
    const session = await signedIn();
    assert.notEqual((await t.app.inject({ method: 'GET', url: '/sign-in', headers: { cookie: session } })).body, signedOutPage);
    t.clock.advance(t.config.sessionIdleMs);
    const idle = await t.app.inject({ method: 'GET', url: '/sign-in', headers: { cookie: session } });
    assert.equal(idle.body, signedOutPage);
    assert.equal(sessionCookie(idle.headers['set-cookie'])?.value, '');
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session } })).statusCode, 401);

    // The password was right and the code is still to come: that step needs the cookie.
    const user = await signUp(t.app);
    await enableTotp(t, user);
    const firstStep = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: STRONG_PASSWORD } });
    const pending = sessionCookie(firstStep.headers['set-cookie']);
    assert.ok(pending !== undefined);
    const waiting = await t.app.inject({ method: 'GET', url: '/sign-in', headers: { cookie: pending.header } });
    assert.equal(waiting.body, signedOutPage);
    assert.equal(waiting.headers['set-cookie'], undefined);
  });

  test("the sites list's addresses without a query preload its first page as the dashboard asks for it, and only they", async () => {
    const signIn = await t.app.inject({ method: 'GET', url: '/sign-in', headers: { cookie: await signedIn() } });
    assert.doesNotMatch(signIn.body, /\/api\/v1\/sites/);
    const preload = `<link rel="preload" as="fetch" crossorigin href="${SITE_LIST_FIRST_PAGE.replaceAll('&', '&amp;')}">`;
    assert.equal(SITE_LIST_FIRST_PAGE, '/api/v1/sites?fields=summary&sort=-updated_at&limit=25');
    for (const url of ['/', '/sites']) {
      const list = await t.app.inject({ method: 'GET', url });
      assert.equal(list.statusCode, 200, url);
      assert.equal(list.headers['cache-control'], 'no-cache', url);
      assert.equal(list.headers['content-security-policy'], DASHBOARD_CSP, url);
      // The same page with the one line more, after the scripts' links, so they are asked for first.
      assert.equal(list.body.replace(`\n    ${preload}`, ''), signIn.body, url);
      assert.ok(list.body.indexOf(preload) > list.body.lastIndexOf('<link rel="modulepreload"'), url);
      assert.ok(list.body.indexOf(preload) < list.body.indexOf('</head>'), url);
      assert.notEqual(list.headers.etag, signIn.headers.etag, url);
      const revalidated = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(list.headers.etag) } });
      assert.equal(revalidated.statusCode, 304, url);
    }
  });

  test('the build writes a br and a gzip copy of each compressible file, each the same bytes once decompressed', () => {
    const assetsDir = path.join(WEB_BUILD_DIR, 'assets');
    const compressible = readdirSync(assetsDir).filter((name) => /\.(?:js|css)$/.test(name));
    assert.ok(compressible.length >= 2);
    for (const name of compressible) {
      const body = readFileSync(path.join(assetsDir, name));
      if (!isCompressible(name, body.length)) continue;
      assert.deepEqual(brotliDecompressSync(readFileSync(path.join(assetsDir, name + COMPRESSED_SUFFIXES.br))), body, name);
      assert.deepEqual(gunzipSync(readFileSync(path.join(assetsDir, name + COMPRESSED_SUFFIXES.gzip))), body, name);
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

  test('API paths, and unknown pages asked for without text/html, keep their problem+json 404', async () => {
    const asBrowser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const cases: Array<[string, string | undefined]> = [
      ['/api/v1/nothing', undefined],
      ['/api/v1/nothing', asBrowser],
      ['/api', asBrowser],
      ['/auth/nothing', asBrowser],
      ['/auth?x=1', asBrowser],
      ['/nothing', undefined],
      ['/nothing', '*/*'],
      ['/nothing', 'application/json'],
      ['/nothing', 'application/json, text/html'],
      ['/nothing', 'text/html;q=0'],
      ['/assets/missing.js', undefined],
      ['/sites/a/b/c', 'application/problem+json'],
    ];
    for (const [url, accept] of cases) {
      const response = await t.app.inject({ method: 'GET', url, headers: accept === undefined ? {} : { accept } });
      assert.equal(response.statusCode, 404, `${url} ${accept}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/, `${url} ${accept}`);
      assert.equal(response.json<{ code: string }>().code, 'route_not_found');
      if (url.startsWith('/api/v1') || url.startsWith('/auth')) assert.equal(response.headers['cache-control'], 'no-store', url);
    }
    const posted = await t.app.inject({ method: 'POST', url: '/nothing', headers: { accept: asBrowser } });
    assert.equal(posted.statusCode, 404);
    assert.match(String(posted.headers['content-type']), /^application\/problem\+json/);
  });

  test('an unknown address a browser opens answers the dashboard with 404, under the dashboard headers', async () => {
    const home = await t.app.inject({ method: 'GET', url: '/trash' });
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const url of ['/nope', '/settings/bogus', '/sites/a/b/c', '/assets/a/b', '/nope?x=%2F', '/magic-wand']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { accept } });
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /^text\/html/, url);
      assert.equal(response.body, home.body, url);
      assert.equal(response.headers['content-security-policy'], DASHBOARD_CSP);
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['referrer-policy'], 'same-origin');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers.etag, undefined);
    }
    const head = await t.app.inject({ method: 'HEAD', url: '/nope', headers: { accept: 'text/html' } });
    assert.equal(head.statusCode, 404);
    assert.match(String(head.headers['content-type']), /^text\/html/);
    assert.equal(head.body, '');
    // A conditional request gets the page, not a 304 of the screen's ETag.
    const conditional = await t.app.inject({ method: 'GET', url: '/nope', headers: { accept, 'if-none-match': String(home.headers.etag) } });
    assert.equal(conditional.statusCode, 404);
    // Known screens and server-rendered pages answer as before.
    assert.equal((await t.app.inject({ method: 'GET', url: '/sites', headers: { accept } })).statusCode, 200);
    const magic = await t.app.inject({ method: 'GET', url: '/magic?token=unknown', headers: { accept } });
    assert.notEqual(magic.body, home.body);
  });

  test('the build publishes no source map, and none is referenced', async () => {
    const files = readdirSync(path.join(WEB_BUILD_DIR, 'assets'));
    assert.ok(files.some((file) => file.endsWith('.js')));
    assert.deepEqual(
      files.filter((file) => file.endsWith('.map')),
      [],
    );
    for (const file of files.filter((name) => name.endsWith('.js') || name.endsWith('.css'))) {
      const response = await t.app.inject({ method: 'GET', url: `/assets/${file}` });
      assert.equal(response.statusCode, 200);
      assert.doesNotMatch(response.body, /sourceMappingURL/, file);
      assert.equal((await t.app.inject({ method: 'GET', url: `/assets/${file}.map` })).statusCode, 404);
    }
  });

  test('the screen list is the one the dashboard imports, and every entry answers', async () => {
    for (const screen of SCREENS) {
      const url = screen.replace(/:[a-z]+/g, 'x1');
      assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 200, url);
    }
  });
});

describe('which requests prefer HTML', () => {
  test('a browser navigation does, fetches and API clients do not', () => {
    assert.equal(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml('application/json;q=0.5, TEXT/HTML'), true);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml(''), false);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml('application/json'), false);
    assert.equal(prefersHtml('text/html, application/json'), false);
    assert.equal(prefersHtml('text/html;q=0'), false);
    assert.equal(prefersHtml('text/html;q=abc'), false);
    assert.equal(prefersHtml('text/*'), false);
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

  async function appServing(dir: string, signedIn = false) {
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    registerDashboard(app, async () => signedIn, dir);
    await app.ready();
    return app;
  }

  test('answers br or gzip to clients that accept it, and the same bytes uncompressed to the rest', async () => {
    const app = await appServing(buildDir);
    const plain = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js' });
    assert.equal(plain.body, script);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers.vary, 'accept-encoding');
    const brotli = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.equal(brotli.headers.vary, 'accept-encoding');
    assert.ok(brotli.rawPayload.length < script.length / 10);
    assert.equal(brotliDecompressSync(brotli.rawPayload).toString('utf8'), script);
    for (const acceptEncoding of ['gzip', 'br;q=0, gzip', 'x-gzip', 'gzip;q=1, br;q=0.5']) {
      const gzipped = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': acceptEncoding } });
      assert.equal(gzipped.headers['content-encoding'], 'gzip', acceptEncoding);
      assert.equal(gunzipSync(gzipped.rawPayload).toString('utf8'), script);
    }
    for (const acceptEncoding of ['identity', 'deflate', 'br;q=0, gzip;q=0', '']) {
      const same = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': acceptEncoding } });
      assert.equal(same.headers['content-encoding'], undefined, acceptEncoding);
      assert.equal(same.body, script);
    }
    await app.close();
  });

  test('sends the compressed copies the build wrote beside a file, and never serves them by their own names', async () => {
    // Copies at the lowest settings, so they differ from what the server would make itself.
    const file = path.join(buildDir, 'assets', 'app-1a2b.js');
    const [brCopy, gzipCopy] = [brotliCompressSync(script, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }), gzipSync(script, { level: 1 })];
    const own = compressFully(Buffer.from(script));
    assert.notDeepEqual(brCopy, own.br);
    assert.notDeepEqual(gzipCopy, own.gzip);
    writeFileSync(`${file}.br`, brCopy);
    writeFileSync(`${file}.gz`, gzipCopy);
    const app = await appServing(buildDir);
    const brotli = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': 'br' } });
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.deepEqual(brotli.rawPayload, brCopy);
    const gzipped = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': 'gzip' } });
    assert.deepEqual(gzipped.rawPayload, gzipCopy);
    for (const url of ['/assets/app-1a2b.js.br', '/assets/app-1a2b.js.gz']) assert.equal((await app.inject({ method: 'GET', url })).statusCode, 404, url);
    await app.close();
  });

  test('a source map in the build folder is never served', async () => {
    writeFileSync(path.join(buildDir, 'assets', 'app-1a2b.js.map'), '{"version":3,"sources":["secret.ts"]}');
    const app = await appServing(buildDir);
    for (const url of ['/assets/app-1a2b.js.map', '/assets/app-1a2b.js.map?x=1']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.doesNotMatch(response.body, /secret\.ts/);
    }
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

  test('the sign-in screens answer someone signed out with signed-out.html when the build has one, else with index.html', async () => {
    const index = readFileSync(path.join(buildDir, 'index.html'), 'utf8');
    const withoutDocument = await appServing(buildDir);
    assert.equal((await withoutDocument.inject({ method: 'GET', url: '/sign-in' })).body, index);
    await withoutDocument.close();
    writeFileSync(path.join(buildDir, 'signed-out.html'), '<!doctype html><script type="module" src="/assets/signed-out-3c4d.js"></script>');
    for (const signedIn of [false, true]) {
      const app = await appServing(buildDir, signedIn);
      for (const url of ['/sign-in', '/sign-up?email=a%40example.com']) {
        const page = await app.inject({ method: 'GET', url });
        assert.equal(page.statusCode, 200, url);
        assert.equal(page.headers['content-security-policy'], DASHBOARD_CSP, url);
        assert.equal(page.body, signedIn ? index : readFileSync(path.join(buildDir, 'signed-out.html'), 'utf8'), url);
      }
      // The other screens do not ask.
      assert.equal((await app.inject({ method: 'GET', url: '/trash' })).body, index);
      await app.close();
    }
  });

  test('without a build, the screens say how to build it and the rest still works', async () => {
    const app = await appServing(path.join(buildDir, 'missing'));
    const home = await app.inject({ method: 'GET', url: '/' });
    assert.equal(home.statusCode, 503);
    assert.match(home.body, /npm run build/);
    await app.close();
  });
});
