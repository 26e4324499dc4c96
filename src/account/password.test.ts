import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createAccessToken, sessionCookie, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';

const ORIGIN = 'http://localhost:3000';
const NEW_PASSWORD = 'quartz-meadow-lantern-97';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

function login(email: string, password: string) {
  return t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
}

/** A web sign-in by password; answers the Cookie header value of its session. */
async function webSession(email: string, password = STRONG_PASSWORD): Promise<string> {
  const response = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email, password } });
  const cookie = sessionCookie(response.headers['set-cookie']);
  assert.ok(cookie !== undefined, `no session cookie: ${response.statusCode} ${response.body}`);
  return cookie.header;
}

function changePassword(headers: Record<string, string>, body: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/v1/me/password', headers, payload: body });
}

function me(headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me', headers });
}

describe('POST /api/v1/me/password', () => {
  test('a changed password signs in and the old one no longer does', async () => {
    const user = await signUp(t.app);
    const response = await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(response.statusCode, 204, response.body);

    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 401);
    assert.equal((await login(user.email, NEW_PASSWORD)).statusCode, 200);
    const row = await t.database.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$/);
  });

  test('other web sessions and every earlier JWT are revoked; the session that changed it stays signed in', async () => {
    const user = await signUp(t.app);
    const olderJwt = (await login(user.email, STRONG_PASSWORD)).json<{ token: string }>().token;
    const current = await webSession(user.email);
    const other = await webSession(user.email);

    const response = await changePassword({ cookie: current, origin: ORIGIN }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(response.statusCode, 204, response.body);

    assert.equal((await me({ cookie: current })).statusCode, 200, 'the current session still works');
    assert.equal((await me({ cookie: other })).statusCode, 401, 'the other session ended');
    assert.equal((await me({ authorization: user.bearer })).statusCode, 401, 'the sign-up JWT is refused');
    assert.equal((await me({ authorization: `Bearer ${olderJwt}` })).statusCode, 401, 'a later JWT is refused too');

    const sessions = await t.app.inject({ method: 'GET', url: '/api/v1/me/sessions', headers: { cookie: current } });
    const listed = sessions.json<{ sessions: Array<{ current: boolean }> }>().sessions;
    assert.deepEqual(
      listed.map((session) => session.current),
      [true],
    );
    // A JWT issued after the change is honoured.
    const fresh = (await login(user.email, NEW_PASSWORD)).json<{ token: string }>().token;
    assert.equal((await me({ authorization: `Bearer ${fresh}` })).statusCode, 200);
  });

  test('a JWT caller changes the password and its own JWT is revoked with the rest', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    assert.equal((await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD })).statusCode, 204);
    assert.equal((await me({ authorization: user.bearer })).statusCode, 401);
    assert.equal((await me({ cookie: session })).statusCode, 401);
  });

  test('a wrong current password is 403 current_password_invalid naming the field, and changes nothing', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    const response = await changePassword({ authorization: user.bearer }, { current_password: 'not-my-password-1', new_password: NEW_PASSWORD });
    assert.equal(response.statusCode, 403);
    const problem = response.json<{ code: string; errors: Array<{ path: string }> }>();
    assert.equal(problem.code, 'current_password_invalid');
    assert.deepEqual(
      problem.errors.map((error) => error.path),
      ['/current_password'],
    );
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 200);
    assert.equal((await login(user.email, NEW_PASSWORD)).statusCode, 401);
    assert.equal((await me({ authorization: user.bearer })).statusCode, 200, 'no JWT revoked');
    assert.equal((await me({ cookie: session })).statusCode, 200, 'no session ended');
  });

  for (const [label, password, message] of [
    ['too short', 'short1', /at least 8 characters/],
    ['too long', 'x'.repeat(257), /at most 256 characters/],
    ['a common password', 'password123', /most commonly used/],
  ] as const) {
    test(`a new password that is ${label} is 400 naming /new_password`, async () => {
      const user = await signUp(t.app);
      const response = await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: password });
      assert.equal(response.statusCode, 400);
      const problem = response.json<{ code: string; errors: Array<{ path: string; message: string }> }>();
      assert.equal(problem.code, 'validation_failed');
      assert.equal(problem.errors[0]?.path, '/new_password');
      assert.match(problem.errors[0]?.message ?? '', message);
      assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 200, 'the password is unchanged');
    });
  }

  test("a new password built from the account's own e-mail address or name is 400 naming /new_password", async () => {
    const user = await signUp(t.app, 'katherine.johnson@example.com');
    await t.database.db.updateTable('users').set({ name: 'Katherine Johnson' }).where('id', '=', user.id).execute();
    for (const [password, message] of [
      ['Katherine.Johnson@Example.com', 'must not be built from your e-mail address'],
      ['johnson1918!', 'must not be built from your name'],
      ['siteward-siteward', "must not be built from the service's name (siteward)"],
    ] as const) {
      const response = await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: password });
      assert.equal(response.statusCode, 400, password);
      assert.deepEqual(response.json<{ errors: unknown }>().errors, [{ path: '/new_password', message }]);
    }
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 200, 'the password is unchanged');
  });

  test('a personal access token cannot change the password (403)', async () => {
    const user = await signUp(t.app);
    const token = await createAccessToken(t.app, user);
    const response = await changePassword({ authorization: token.header }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().code, 'access_token_not_allowed');
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 200);
  });

  test('a cookie-authenticated change from another origin is refused (CSRF)', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    const response = await changePassword({ cookie: session, origin: 'https://evil.example' }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(response.statusCode, 403);
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 200);
  });

  test('the 11th wrong current password in 15 minutes is 429 with Retry-After, even when right; sign-in is locked as well', async () => {
    const user = await signUp(t.app);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await changePassword({ authorization: user.bearer }, { current_password: `wrong-guess-${attempt}`, new_password: NEW_PASSWORD });
      assert.equal(response.statusCode, 403, `attempt ${attempt}`);
    }
    const locked = await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(locked.statusCode, 429);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 429, 'the same per-account limit as sign-in');

    t.clock.advance(15 * 60 * 1000);
    assert.equal((await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD })).statusCode, 204);
  });

  test('neither password appears in the logs', async () => {
    const user = await signUp(t.app);
    await changePassword({ authorization: user.bearer }, { current_password: 'wrong-current-password', new_password: NEW_PASSWORD });
    await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: 'password123' });
    await changePassword({ authorization: user.bearer }, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD });
    const logs = t.logs();
    assert.match(logs, /\/api\/v1\/me\/password/, 'the requests were logged');
    for (const secret of [STRONG_PASSWORD, NEW_PASSWORD, 'wrong-current-password', 'password123']) {
      assert.ok(!logs.includes(secret), `${secret} was logged`);
    }
  });
});
