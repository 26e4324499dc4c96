import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, createAccessToken, enableTotp, sessionCookie, signUp, STRONG_PASSWORD, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { pruneStaleRows } from '../maintenance/prune.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';
import type { SecurityEventJson, SecurityEventPageJson } from './schema.js';

// Each account's stored security history (GET /api/v1/me/security-events) on SQLite and (with
// TEST_DATABASE_URL) PostgreSQL: what is stored, to whom it is shown, paging, retention, no secret.

const ORIGIN = 'http://localhost:3000';
const NEW_PASSWORD = 'a-new-and-long-enough-passphrase';
const DAY_MS = 24 * 60 * 60 * 1000;

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

async function history(headers: Record<string, string>, query = '?limit=100'): Promise<SecurityEventPageJson> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/me/security-events${query}`, headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<SecurityEventPageJson>();
}

function summary(events: SecurityEventJson[]): Array<[string, string | null, string | null, string | null]> {
  return events.map((event) => [event.type, event.method, event.credential, event.reason]);
}

async function login(email: string, password: string, userAgent = 'history-test/1.0') {
  return t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'user-agent': userAgent }, payload: { email, password } });
}

test('sign-ins, a failure, token and password changes, and TOTP are stored with how they were made, newest first', async () => {
  const user = await signUp(t.app);
  assert.equal((await login(user.email, 'not-the-password')).statusCode, 401);
  const signedIn = await login(user.email, STRONG_PASSWORD, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0');
  assert.equal(signedIn.statusCode, 200);
  const web = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: STRONG_PASSWORD } });
  const cookie = sessionCookie(web.headers['set-cookie']);
  assert.ok(cookie !== undefined, web.body);
  const token = await createAccessToken(t.app, user);
  assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/access-tokens/${token.id}`, headers: { authorization: user.bearer } })).statusCode, 204);
  const changed = await t.app.inject({ method: 'POST', url: '/api/v1/me/password', headers: { authorization: user.bearer }, payload: { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD } });
  assert.equal(changed.statusCode, 204, changed.body);
  // Changing the password ended every sign-in; a new one goes on.
  const again = await login(user.email, NEW_PASSWORD);
  assert.equal(again.statusCode, 200, again.body);
  const renewed = { ...user, bearer: `Bearer ${again.json<{ token: string }>().token}` };
  const totp = await enableTotp(t, renewed);

  const { events, next_cursor } = await history({ authorization: renewed.bearer });
  assert.equal(next_cursor, null);
  assert.deepEqual(summary(events).reverse(), [
    ['sign_in.failed', 'password', null, 'invalid_credentials'],
    ['sign_in.succeeded', 'password', 'jwt', null],
    ['sign_in.succeeded', 'password', 'session', null],
    ['access_token.created', null, 'jwt', null],
    ['access_token.revoked', null, 'jwt', null],
    ['password.changed', null, 'jwt', null],
    ['sign_in.succeeded', 'password', 'jwt', null],
    ['totp.enabled', null, 'jwt', null],
  ]);
  const tokenEvents = events.filter((event) => event.type.startsWith('access_token.'));
  assert.deepEqual(tokenEvents.map((event) => event.details), [{ name: 'test token' }, { name: 'test token' }]);
  const jwtSignIn = [...events].reverse().find((event) => event.type === 'sign_in.succeeded' && event.credential === 'jwt');
  assert.equal(jwtSignIn?.user_agent, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0');
  assert.equal(jwtSignIn?.ip, '127.0.0.1');
  const ids = events.map((event) => event.id);
  assert.deepEqual([...ids].sort().reverse(), ids, 'newest first');

  // No secret anywhere: not in the answers, not in the rows, not in the SQLite file.
  const rows = JSON.stringify(await t.database.db.selectFrom('security_events').selectAll().execute());
  const secrets = [STRONG_PASSWORD, NEW_PASSWORD, 'not-the-password', token.token, totp.secret, ...totp.recoveryCodes];
  for (const text of [JSON.stringify(events), rows]) for (const secret of secrets) assert.ok(!text.includes(secret), 'a secret was stored');
  const database = t.config.database;
  if (database.kind === 'sqlite') {
    const dir = path.dirname(database.file);
    const base = path.basename(database.file);
    for (const file of readdirSync(dir).filter((name) => name.startsWith(base))) {
      const bytes = readFileSync(path.join(dir, file)).toString('latin1');
      for (const secret of [STRONG_PASSWORD, NEW_PASSWORD, token.token]) assert.ok(!bytes.includes(secret), `${file} holds a secret`);
    }
  }
});

test("each person sees only their own events; an access token is refused; nothing is stored for an unknown address", async () => {
  const ada = await signUp(t.app);
  const bob = await signUp(t.app);
  assert.equal((await login(ada.email, STRONG_PASSWORD)).statusCode, 200);
  assert.equal((await login(bob.email, 'wrong-password-for-bob')).statusCode, 401);
  assert.equal((await login('nobody-here@example.com', STRONG_PASSWORD)).statusCode, 401);

  assert.deepEqual(summary((await history({ authorization: ada.bearer })).events), [['sign_in.succeeded', 'password', 'jwt', null]]);
  assert.deepEqual(summary((await history({ authorization: bob.bearer })).events), [['sign_in.failed', 'password', null, 'invalid_credentials']]);
  const users = await t.database.db.selectFrom('security_events').select('user_id').distinct().execute();
  assert.deepEqual(new Set(users.map((row) => row.user_id)), new Set([ada.id, bob.id]));

  // Guesses past the limit are refused before any check and are not stored: a stranger cannot fill Bob's history.
  let failed = 1;
  let limited = false;
  for (let attempt = 0; attempt < 30 && !limited; attempt++) {
    const status = (await login(bob.email, `guess-${attempt}-for-bob`)).statusCode;
    if (status === 401) failed++;
    limited = status === 429;
  }
  assert.ok(limited, 'the per-account limit was reached');
  for (let attempt = 0; attempt < 5; attempt++) assert.equal((await login(bob.email, `more-${attempt}-for-bob`)).statusCode, 429);
  const bobs = (await history({ authorization: bob.bearer })).events;
  assert.equal(bobs.length, failed);
  assert.ok(bobs.every((event) => event.type === 'sign_in.failed'));

  const token = await createAccessToken(t.app, ada);
  const refused = await t.app.inject({ method: 'GET', url: '/api/v1/me/security-events', headers: { authorization: token.header } });
  assert.equal(refused.statusCode, 403, refused.body);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me/security-events' })).statusCode, 401);
});

test('pages without gaps or repeats, refuses a bad cursor or limit, and retention prunes old events', async () => {
  const user: SignedUpUser = await signUp(t.app);
  for (let index = 0; index < 7; index++) assert.equal((await login(user.email, `wrong-${index}-password`)).statusCode, 401);
  const seen: string[] = [];
  let query = '?limit=3';
  for (let page = 0; page < 5; page++) {
    const answer = await history({ authorization: user.bearer }, query);
    seen.push(...answer.events.map((event) => event.id));
    if (answer.next_cursor === null) break;
    query = `?limit=3&cursor=${answer.next_cursor}`;
  }
  assert.equal(seen.length, 7);
  assert.equal(new Set(seen).size, 7);
  for (const bad of ['?cursor=nope', '?limit=0', '?limit=101', '?limit=x', '?type=sign_in.failed']) {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/me/security-events${bad}`, headers: { authorization: user.bearer } });
    assert.equal(response.statusCode, 400, `${bad}: ${response.body}`);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
  }

  const limiter = new RateLimiter(t.database.db, t.clock);
  t.clock.advance(5 * DAY_MS);
  await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 6, trashDays: 30 });
  assert.equal((await t.database.db.selectFrom('security_events').select('id').execute()).length, 7);
  await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 4, trashDays: 30 });
  assert.equal((await t.database.db.selectFrom('security_events').select('id').execute()).length, 0);
});
