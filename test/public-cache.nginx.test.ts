import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { EventStreamClient } from './event-stream.js';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp } from './helpers.js';
import { until } from './wait.js';
import { freePort } from './processes.js';

// Debian's nginx with proxy_cache in front of a real app server, configured with the very block
// docs/deployment.md shows (read from it here): a change reaches a client through the cache within
// max-age, an expired copy is revalidated with a 304, and the event stream passes through as its
// events come. Runs where /usr/sbin/nginx is installed (.ci/run installs it).

const NGINX = '/usr/sbin/nginx';
/** A short max-age, so that a copy expires within the test; nginx keeps time by the real clock. */
const MAX_AGE_SECONDS = 1;
const DEPLOYMENT_DOC = fileURLToPath(new URL('../../docs/deployment.md', import.meta.url));

let t: TestApp;
let owner: SignedUpUser;
let nginx: ChildProcess;
let dir: string;
let front: string;

/** The nginx block of docs/deployment.md, pointed at this test's app, port and cache folder. */
function documentedConfig(appPort: number, nginxPort: number, cacheDir: string): string {
  const doc = readFileSync(DEPLOYMENT_DOC, 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block !== undefined, 'docs/deployment.md shows an nginx block');
  for (const placeholder of ['server 127.0.0.1:3000;', 'listen 80;', '/var/cache/nginx/siteward']) assert.ok(block.includes(placeholder), `the documented block has ${placeholder}`);
  return block.replace('server 127.0.0.1:3000;', `server 127.0.0.1:${appPort};`).replace('listen 80;', `listen 127.0.0.1:${nginxPort};`).replace('/var/cache/nginx/siteward', cacheDir);
}

async function untilListening(port: number): Promise<void> {
  const connects = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  await until(connects, () => `nginx to listen on ${port}: ${readFileSync(path.join(dir, 'error.log'), 'utf8')}`, { intervalMs: 25 });
}

before(async () => {
  assert.ok(existsSync(NGINX), `${NGINX} is missing: install Debian's nginx (apt-get install nginx)`);
  t = await buildTestApp({ env: { PUBLIC_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS) }, delivery: { heartbeatMs: 200 } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  owner = await signUp(t.app);
  dir = mkdtempSync(path.join(tmpdir(), 'siteward-nginx-'));
  const cacheDir = path.join(dir, 'cache');
  mkdirSync(cacheDir);
  const nginxPort = await freePort();
  writeFileSync(path.join(dir, 'siteward.conf'), documentedConfig((t.app.server.address() as AddressInfo).port, nginxPort, cacheDir));
  // The process-wide settings a system's nginx.conf has, made to run as this user in this folder.
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, name)};`;
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'master_process off;',
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${path.join(dir, 'error.log')} warn;`,
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${path.join(dir, 'access.log')};`,
      `  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')}`,
      `  include ${path.join(dir, 'siteward.conf')};`,
      '}',
    ].join('\n'),
  );
  nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  await untilListening(nginxPort);
  front = `http://127.0.0.1:${nginxPort}`;
});

after(async () => {
  if (nginx !== undefined && nginx.exitCode === null) {
    const exited = once(nginx, 'exit');
    nginx.kill('SIGQUIT');
    await exited;
  }
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

function versionOf(answer: Answer): number {
  return (JSON.parse(answer.body.toString()) as { version: number }).version;
}

/**
 * The statuses the app answered for a path, in order: what reached it through the cache. Answers
 * through Fastify have request lines of their own; the fast path's are counted in its summed line,
 * written each second.
 */
function appAnswers(urlPath: string): number[] {
  const statuses: number[] = [];
  for (const text of t.logs().split('\n')) {
    if (!text.includes(`"url":"${urlPath}"`)) continue;
    const line = JSON.parse(text) as { msg?: string; status?: number; answers?: Record<string, number> };
    if (line.msg === 'request' && line.status !== undefined) statuses.push(line.status);
    if (line.msg === 'public configurations served') {
      for (const [kind, count] of Object.entries(line.answers ?? {})) statuses.push(...Array.from({ length: count }, () => Number(kind.split(' ')[1])));
    }
  }
  return statuses;
}

async function put(siteId: string, payload: Record<string, unknown>): Promise<void> {
  const response = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${siteId}`, headers: { authorization: owner.bearer }, payload });
  assert.equal(response.statusCode, 200, response.body);
}

/** Lets the cached copy expire: nginx counts max-age by the real clock, in whole seconds. */
function untilExpired(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, (MAX_AGE_SECONDS + 1) * 1000 + 100));
}

test('nginx answers repeated fetches from its cache, one copy per coding, and a change reaches clients once max-age has passed', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Cached' });
  const url = `/public/v1/sites/${String(site.public_key)}`;
  const first = await get(front + url);
  assert.equal(first.status, 200);
  assert.equal(first.headers['x-cache-status'], 'MISS');
  assert.equal(first.headers.etag, '"1"');
  assert.equal(first.headers['access-control-allow-origin'], '*');
  assert.equal(first.headers['cache-control'], `public, max-age=${MAX_AGE_SECONDS}, stale-while-revalidate=600, stale-if-error=86400`);
  const second = await get(front + url, { 'accept-encoding': 'identity' });
  assert.equal(second.headers['x-cache-status'], 'HIT');
  assert.deepEqual(second.body, first.body);
  // A big enough configuration is compressed; the gzip copy is cached apart from the plain one.
  await put(site.id, { widget: JSON.stringify({ greeting: 'Hello there! '.repeat(200) }) });
  await untilExpired();
  // Read after the wait, which outlasts the summed line's second: a fast-path answer to the second
  // fetch would be counted by now.
  assert.equal(appAnswers(url).length, 1, 'the app was asked once');
  const plain = await get(front + url);
  assert.equal(versionOf(plain), 2, 'the change reached the client once max-age had passed');
  const gzip = await get(front + url, { 'accept-encoding': 'gzip, deflate, br;q=0' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.equal(gzip.headers.etag, '"2-gzip"');
  assert.deepEqual(gunzipSync(gzip.body), plain.body);
  assert.equal((await get(front + url, { 'accept-encoding': 'gzip' })).headers['x-cache-status'], 'HIT');

  const unknown = `/public/v1/sites/spk_000000000000000000000000`;
  assert.equal((await get(front + unknown)).status, 404);
  const again = await get(front + unknown);
  assert.equal(again.status, 404);
  assert.equal(again.headers['x-cache-status'], 'HIT', 'a 404 is cached for max-age too');
});

test('an expired copy is revalidated with a 304 from the app, and a client holding the version gets a 304 from nginx', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Revalidated' });
  const url = `/public/v1/sites/${String(site.public_key)}`;
  const first = await get(front + url);
  const fromCache = await get(front + url, { 'if-none-match': String(first.headers.etag) });
  assert.equal(fromCache.status, 304);
  assert.equal(fromCache.headers['x-cache-status'], 'HIT');
  await untilExpired();
  const revalidated = await get(front + url);
  assert.equal(revalidated.status, 200);
  assert.equal(revalidated.headers['x-cache-status'], 'REVALIDATED');
  assert.deepEqual(revalidated.body, first.body);
  await until(() => appAnswers(url).length >= 2, 'the revalidation in the app\'s log');
  assert.deepEqual(appAnswers(url), [200, 304], 'nginx asked the app with If-None-Match, and got no body');
});

test('the event stream passes through nginx unbuffered and uncached: the configuration, heartbeats and each change as they come', async () => {
  const site = await createSite(t.app, owner.bearer, { name: 'Streamed' });
  const stream = await EventStreamClient.open(`${front}/public/v1/sites/${String(site.public_key)}/events`);
  try {
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(stream.headers['x-cache-status'], undefined, 'not through the cache');
    assert.equal((await stream.event(0)).id, '1');
    await stream.commentsReach(1);
    await put(site.id, { name: 'Streamed, changed' });
    const changed = await stream.event(1);
    assert.equal(changed.id, '2');
    assert.equal((JSON.parse(changed.data) as { site: { name: string } }).site.name, 'Streamed, changed');
  } finally {
    stream.close();
  }
});
