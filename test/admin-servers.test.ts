import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { STRONG_PASSWORD, usingPostgres } from './helpers.js';
import { type RunningServer, type ServerPair, startServerPair } from './processes.js';

/**
 * Disabling an account on one app server stops its every credential on another, as behind a load
 * balancer: real processes on one database (PostgreSQL when TEST_DATABASE_URL is set, otherwise
 * one SQLite file). The other server holds the account's JWT and access token in its guard's cache
 * when the change is made; the change feed must reach it.
 */
let pair: ServerPair | undefined;
let servers: RunningServer[] = [];
let serverEnv: Record<string, string> = {};
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

/** As in multi-server.test.ts: PostgreSQL's notification takes milliseconds; SQLite's counter is read at the next request. */
const NOTIFICATION_BOUND_MS = 5000;

before(async () => {
  pair = await startServerPair({ settings: (origin) => ({ PUBLIC_URL: origin }) });
  serverEnv = pair.env;
  servers = [pair.a, pair.b];
});

after(async () => {
  await pair?.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  setCookie: string | null;
}

async function call(server: RunningServer | undefined, method: string, url: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  assert.ok(server !== undefined);
  const response = await fetch(`${server.base}${url}`, {
    method,
    headers: { ...options.headers, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    redirect: 'manual',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), setCookie: response.headers.get('set-cookie') };
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...serverEnv }, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Asks until `fresh` holds, within the bound (on SQLite it must hold at once), then a few more times to see it hold. */
async function refusedWithinBound(what: string, ask: () => Promise<Answer>, fresh: (answer: Answer) => boolean): Promise<void> {
  const since = performance.now();
  let answer = await ask();
  while (!fresh(answer) && usingPostgres() && performance.now() - since < NOTIFICATION_BOUND_MS) answer = await ask();
  assert.ok(fresh(answer), `${what}: still ${answer.status} ${JSON.stringify(answer.body)} ${Math.round(performance.now() - since)} ms after the change`);
  for (let i = 0; i < 3; i++) assert.ok(fresh(await ask()), `${what}: turned back`);
}

test('a disabled account is refused on the other server, credential by credential, and the CLI keeps the last administrator', async () => {
  const [a, b] = servers;
  const admin = `admin-${randomBytes(3).toString('hex')}@example.com`;
  assert.equal((await cli('users:create', '--email', admin, '--password', STRONG_PASSWORD)).code, 0);
  const promoted = await cli('users:promote', '--email', admin, '--json');
  assert.equal(promoted.code, 0, promoted.stderr);
  assert.equal(JSON.parse(promoted.stdout).changed, true);
  const demoted = await cli('users:demote', '--email', admin);
  assert.equal(demoted.code, 1);
  assert.match(demoted.stderr, /last enabled instance administrator/);
  assert.equal((await cli('users:promote')).code, 2);

  const adminJwt = String((await call(a, 'POST', '/auth/login', { body: { email: admin, password: STRONG_PASSWORD } })).body.token);
  const email = `target-${randomBytes(3).toString('hex')}@example.com`;
  const signedUp = await call(a, 'POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD } });
  const jwt = `Bearer ${String(signedUp.body.token)}`;
  const userId = String((signedUp.body.user as { id: string }).id);
  const created = await call(b, 'POST', '/api/v1/access-tokens', { headers: { authorization: jwt }, body: { name: 'ci' } });
  const token = `Token ${(created.body.access_token as { token: string }).token}`;
  const web = await call(b, 'POST', '/auth/session', { headers: { origin: serverEnv.PUBLIC_URL ?? '' }, body: { email, password: STRONG_PASSWORD } });
  const cookie = (web.setCookie ?? '').split(';')[0] ?? '';
  // B remembers the JWT's and the token's principal before the change.
  assert.equal((await call(b, 'GET', '/api/v1/me', { headers: { authorization: jwt } })).status, 200);
  assert.equal((await call(b, 'GET', '/api/v1/sites', { headers: { authorization: token } })).status, 200);
  assert.equal((await call(b, 'GET', '/api/v1/me', { headers: { cookie } })).status, 200);

  const disabled = await call(a, 'POST', `/api/v1/admin/users/${userId}/disable`, { headers: { authorization: `Bearer ${adminJwt}` } });
  assert.equal(disabled.status, 200);

  await refusedWithinBound('JWT on B', () => call(b, 'GET', '/api/v1/me', { headers: { authorization: jwt } }), (answer) => answer.status === 401);
  await refusedWithinBound('access token on B', () => call(b, 'GET', '/api/v1/sites', { headers: { authorization: token } }), (answer) => answer.status === 403 && answer.body.code === 'account_disabled');
  await refusedWithinBound('session on B', () => call(b, 'GET', '/api/v1/me', { headers: { cookie } }), (answer) => answer.status === 401);
  const login = await call(b, 'POST', '/auth/login', { body: { email, password: STRONG_PASSWORD } });
  assert.equal(login.status, 403);
  assert.equal(login.body.code, 'account_disabled');
  const webAgain = await call(b, 'POST', '/auth/session', { headers: { origin: serverEnv.PUBLIC_URL ?? '' }, body: { email, password: STRONG_PASSWORD } });
  assert.equal(webAgain.status, 403);
  assert.equal(webAgain.setCookie, null);

  assert.equal((await call(a, 'POST', `/api/v1/admin/users/${userId}/enable`, { headers: { authorization: `Bearer ${adminJwt}` } })).status, 200);
  await refusedWithinBound('access token on B after enabling', () => call(b, 'GET', '/api/v1/sites', { headers: { authorization: token } }), (answer) => answer.status === 200);
});
