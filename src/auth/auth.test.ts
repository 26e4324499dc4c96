import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Signs a JWT by hand, independently of the library under test, so forgeries can be made. */
function craftJwt(header: object, claims: object, key: string | null): string {
  const unsigned = `${base64url(header)}.${base64url(claims)}`;
  const signature = key === null ? '' : createHmac('sha256', key).update(unsigned).digest('base64url');
  return `${unsigned}.${signature}`;
}

function validClaims(userId: string, nowSeconds: number): Record<string, unknown> {
  return { sub: userId, gen: 0, iat: nowSeconds, exp: nowSeconds + 3600, iss: 'http://localhost:3000', aud: 'http://localhost:3000', jti: 'test-jti' };
}

async function getMe(authorization: string) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization } });
}

describe('sign-up', () => {
  test('creates an account and returns a 7-day Bearer JWT with the user', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: ' Ada@Example.COM ', password: STRONG_PASSWORD, name: 'Ada' } });
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.equal(body.token_type, 'Bearer');
    assert.deepEqual(Object.keys(body).sort(), ['expires_at', 'token', 'token_type', 'user']);
    assert.equal(body.user.email, 'ada@example.com');
    assert.equal(body.user.name, 'Ada');
    assert.equal(body.user.password_hash, undefined);
    const sevenDays = 7 * 24 * 3600 * 1000;
    assert.equal(Date.parse(body.expires_at), t.clock.now().getTime() - (t.clock.now().getTime() % 1000) + sevenDays);
    const claims = JSON.parse(Buffer.from(body.token.split('.')[1], 'base64url').toString());
    assert.equal(claims.exp - claims.iat, 7 * 24 * 3600);
    assert.equal(claims.iss, 'http://localhost:3000');
    assert.equal(claims.sub, body.user.id);
    assert.equal(typeof claims.jti, 'string');
    assert.equal((await getMe(`Bearer ${body.token}`)).json().user.email, 'ada@example.com');
  });

  test('stores the password as an argon2id hash, never in clear', async () => {
    await signUp(t.app, 'hash@example.com');
    const row = await t.database.db.selectFrom('users').select('password_hash').where('email', '=', 'hash@example.com').executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$/);
    assert.ok(!row.password_hash.includes(STRONG_PASSWORD));
  });

  test('refuses a taken e-mail with 409, whatever its case', async () => {
    await signUp(t.app, 'taken@example.com');
    const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'TAKEN@example.com', password: STRONG_PASSWORD } });
    assert.equal(response.statusCode, 409);
    assert.equal(response.json().code, 'email_taken');
  });

  test('refuses short, over-long and common passwords, naming the field', async () => {
    for (const password of ['short1', 'x'.repeat(257), 'password123', 'iloveyou', 'Qwertyuiop']) {
      const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'p@example.com', password } });
      assert.equal(response.statusCode, 400, password);
      assert.equal(response.json().code, 'validation_failed');
      assert.equal(response.json().errors[0].path, '/password');
    }
  });

  test('refuses a malformed e-mail and unknown fields', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'not-an-email', password: STRONG_PASSWORD } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/email');
    const unknown = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'a@example.com', password: STRONG_PASSWORD, admin: true } });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(unknown.json().errors, [{ path: '/admin', message: 'is not a known field' }]);
  });

  test('is refused with 403 when SIGNUP=closed', async () => {
    const closed = await buildTestApp({ env: { SIGNUP: 'closed' } });
    try {
      const response = await closed.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'a@example.com', password: STRONG_PASSWORD } });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().code, 'signup_closed');
    } finally {
      await closed.close();
    }
  });

  test("refuses a password built from the account's own e-mail address or name, the service's name, a repeat or a sequence (400 naming /password)", async () => {
    for (const [password, message] of [
      ['grace.hopper@example.com', 'must not be built from your e-mail address'],
      ['GraceHopper1906', 'must not be built from your name'],
      ['Siteward2026', "must not be built from the service's name (siteward)"],
      ['zzzzzzzzzz', 'must not be one character repeated'],
      ['abcdefghij', 'must not be a simple sequence, like abcdefgh, 12345678 or qwerty'],
    ] as const) {
      const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'Grace.Hopper@example.com', password, name: 'Grace Hopper' } });
      assert.equal(response.statusCode, 400, password);
      assert.equal(response.json().code, 'validation_failed');
      assert.deepEqual(response.json().errors, [{ path: '/password', message }]);
    }
    assert.equal((await t.database.db.selectFrom('users').select('id').execute()).length, 0);
  });

  test('is limited per address: the 11th sign-up within an hour is 429 with Retry-After', async () => {
    for (let i = 0; i < 10; i++) await signUp(t.app, `many${i}@example.com`);
    const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: 'many10@example.com', password: STRONG_PASSWORD } });
    assert.equal(response.statusCode, 429);
    assert.equal(response.json().code, 'rate_limited');
    assert.ok(Number(response.headers['retry-after']) > 0);
    t.clock.advance(60 * 60 * 1000);
    await signUp(t.app, 'many10@example.com');
  });

  test('accepts only JSON bodies (415 otherwise)', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/signup', headers: { 'content-type': 'text/plain' }, payload: 'email=a' });
    assert.equal(response.statusCode, 415);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(response.json().code, 'unsupported_media_type');
  });
});

describe('login', () => {
  test('returns a JWT for the right password', async () => {
    const user = await signUp(t.app, 'login@example.com');
    const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'LOGIN@example.com', password: STRONG_PASSWORD } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().user.id, user.id);
    assert.equal((await getMe(`Bearer ${response.json().token}`)).statusCode, 200);
  });

  test('gives the same 401 for a wrong password and an unknown e-mail', async () => {
    await signUp(t.app, 'known@example.com');
    const wrong = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'known@example.com', password: 'not-the-password' } });
    const unknown = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'nobody@example.com', password: 'not-the-password' } });
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.deepEqual(wrong.json(), unknown.json());
    assert.equal(wrong.headers['www-authenticate'], unknown.headers['www-authenticate']);
  });

  test('locks an account after 10 failures in 15 minutes, even for the right password, then recovers', async () => {
    await signUp(t.app, 'victim@example.com');
    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'victim@example.com', password: `guess-${i}` } });
      assert.equal(response.statusCode, 401);
    }
    const locked = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'victim@example.com', password: STRONG_PASSWORD } });
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.headers['retry-after'], String(15 * 60));
    t.clock.advance(15 * 60 * 1000);
    const after = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'victim@example.com', password: STRONG_PASSWORD } });
    assert.equal(after.statusCode, 200);
  });

  test('limits unknown e-mails exactly like known ones, so the limit reveals nothing', async () => {
    for (let i = 0; i < 10; i++) await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'ghost@example.com', password: `guess-${i}` } });
    const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'ghost@example.com', password: 'again' } });
    assert.equal(response.statusCode, 429);
  });

  test('limits one address trying many accounts', async () => {
    for (let i = 0; i < 50; i++) {
      await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: `spray${i}@example.com`, password: 'Summer2026!' } });
    }
    const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'spray-last@example.com', password: 'Summer2026!' } });
    assert.equal(response.statusCode, 429);
  });

  test('keeps its counters in the database, so a second app server on it sees them', async () => {
    for (let i = 0; i < 10; i++) await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'shared@example.com', password: `guess-${i}` } });
    const rows = await t.database.db.selectFrom('rate_limits').selectAll().where('key', '=', 'login:account:shared@example.com').execute();
    assert.equal(rows[0]?.count, 10);
  });

  test('rejects a missing field and wrong types with 400', async () => {
    const missing = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@example.com' } });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json().errors, [{ path: '/password', message: 'is required' }]);
    const wrongType = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@example.com', password: 12345678 } });
    assert.equal(wrongType.statusCode, 400);
    assert.equal(wrongType.json().errors[0].path, '/password');
  });
});

describe('JWT authentication', () => {
  test('refuses "alg: none"', async () => {
    const user = await signUp(t.app);
    const token = craftJwt({ alg: 'none', typ: 'JWT' }, validClaims(user.id, Math.floor(t.clock.now().getTime() / 1000)), null);
    const response = await getMe(`Bearer ${token}`);
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'invalid_token');
    assert.match(String(response.headers['www-authenticate']), /Bearer/);
  });

  test('refuses a token signed with another key', async () => {
    const user = await signUp(t.app);
    const token = craftJwt({ alg: 'HS256', typ: 'JWT' }, validClaims(user.id, Math.floor(t.clock.now().getTime() / 1000)), 'another-secret-that-is-long-enough-1234');
    assert.equal((await getMe(`Bearer ${token}`)).statusCode, 401);
  });

  test('accepts a token made with the right key by hand, proving the checks below are the real ones', async () => {
    const user = await signUp(t.app);
    const token = craftJwt({ alg: 'HS256', typ: 'JWT' }, validClaims(user.id, Math.floor(t.clock.now().getTime() / 1000)), t.config.jwtSecret);
    assert.equal((await getMe(`Bearer ${token}`)).statusCode, 200);
  });

  test('refuses HS384/HS512 and RS256 headers even with the right key', async () => {
    const user = await signUp(t.app);
    const claims = validClaims(user.id, Math.floor(t.clock.now().getTime() / 1000));
    for (const alg of ['HS384', 'RS256']) {
      const token = craftJwt({ alg, typ: 'JWT' }, claims, t.config.jwtSecret);
      assert.equal((await getMe(`Bearer ${token}`)).statusCode, 401, alg);
    }
  });

  test('refuses a token without exp, iat or gen, or with the wrong issuer', async () => {
    const user = await signUp(t.app);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const { exp: _exp, ...noExp } = validClaims(user.id, now);
    const { iat: _iat, ...noIat } = validClaims(user.id, now);
    const { gen: _gen, ...noGen } = validClaims(user.id, now);
    for (const claims of [noExp, noIat, noGen, { ...validClaims(user.id, now), iss: 'https://evil.example' }]) {
      const token = craftJwt({ alg: 'HS256', typ: 'JWT' }, claims, t.config.jwtSecret);
      assert.equal((await getMe(`Bearer ${token}`)).statusCode, 401, JSON.stringify(claims));
    }
  });

  test('refuses a token living longer than 7 days', async () => {
    const user = await signUp(t.app);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const token = craftJwt({ alg: 'HS256', typ: 'JWT' }, { ...validClaims(user.id, now), exp: now + 8 * 24 * 3600 }, t.config.jwtSecret);
    assert.equal((await getMe(`Bearer ${token}`)).statusCode, 401);
  });

  test('expires 7 days after issue: valid a second before, refused at the moment', async () => {
    const user = await signUp(t.app);
    t.clock.advance(7 * 24 * 3600 * 1000 - 1000);
    assert.equal((await getMe(user.bearer)).statusCode, 200);
    t.clock.advance(1000);
    assert.equal((await getMe(user.bearer)).statusCode, 401);
  });

  test('refuses a token whose payload (sub) was altered', async () => {
    const alice = await signUp(t.app);
    const bob = await signUp(t.app);
    const [header, payload, signature] = alice.jwt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${base64url({ ...claims, sub: bob.id })}.${signature}`;
    assert.equal((await getMe(`Bearer ${tampered}`)).statusCode, 401);
  });

  test('refuses the token of a deleted user', async () => {
    const user = await signUp(t.app);
    await t.database.db.deleteFrom('users').where('id', '=', user.id).execute();
    assert.equal((await getMe(user.bearer)).statusCode, 401);
  });

  test('refuses tokens of an older JWT generation (sign out everywhere)', async () => {
    const user = await signUp(t.app);
    await t.database.db.updateTable('users').set({ jwt_generation: 1 }).where('id', '=', user.id).execute();
    assert.equal((await getMe(user.bearer)).statusCode, 401);
    const fresh = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } });
    assert.equal((await getMe(`Bearer ${fresh.json().token}`)).statusCode, 200);
  });

  test('a JWT sent with the Token scheme is 401 and says to use Bearer', async () => {
    const user = await signUp(t.app);
    const response = await getMe(`Token ${user.jwt}`);
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'wrong_scheme');
    assert.match(response.json().detail, /Bearer/);
  });

  test('garbage, an empty header and unknown schemes are 401 with WWW-Authenticate', async () => {
    for (const authorization of ['Bearer', 'Bearer not.a.jwt', 'Basic dXNlcjpwYXNz', 'Bearer a.b.c', '']) {
      const response = await getMe(authorization);
      assert.equal(response.statusCode, 401, authorization);
      assert.match(String(response.headers['www-authenticate']), /Bearer realm="siteward"/);
    }
    const none = await t.app.inject({ method: 'GET', url: '/api/v1/me' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, 'unauthenticated');
  });
});

describe('logs', () => {
  test('never contain a password or a JWT', async () => {
    const user = await signUp(t.app, 'logged@example.com');
    await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'logged@example.com', password: 'wrong-password-value' } });
    await getMe(user.bearer);
    const logs = t.logs();
    assert.ok(logs.includes('/auth/login'), 'requests are logged');
    assert.ok(!logs.includes(STRONG_PASSWORD));
    assert.ok(!logs.includes('wrong-password-value'));
    assert.ok(!logs.includes(user.jwt));
    assert.ok(!logs.includes(user.jwt.split('.')[2] ?? 'unreachable'));
  });
});
