import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createAccessToken, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';

// What a JWT or an access token resolved to is kept in the cache (src/cache/cache.ts); these tests
// prove that the process carrying out a revocation refuses the credential at the very next request,
// with the cache warm, and never refuses a credential newer than what it remembers.
describe('revocation on the process that carries it out takes effect at the next request, cache warm', () => {
  const ORIGIN = 'http://localhost:3000';
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const me = (authorization: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization } });
  const sites = (authorization: string) => t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization } });

  test('a revoked access token', async () => {
    const user = await signUp(t.app);
    const pat = await createAccessToken(t.app, user);
    const other = await createAccessToken(t.app, user);
    assert.equal((await sites(pat.header)).statusCode, 200);
    assert.equal((await sites(other.header)).statusCode, 200);
    const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v1/access-tokens/${pat.id}`, headers: { authorization: user.bearer } });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await sites(pat.header)).statusCode, 401);
    assert.equal((await sites(other.header)).statusCode, 200, "the user's other token is untouched");
  });

  test('sign out everywhere, asked with the very JWT it revokes', async () => {
    const user = await signUp(t.app);
    assert.equal((await me(user.bearer)).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/api/v1/me/sessions', headers: { authorization: user.bearer } })).statusCode, 204);
    assert.equal((await me(user.bearer)).statusCode, 401);
    // A JWT issued afterwards carries the new generation and is honoured at once.
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } });
    assert.equal((await me(`Bearer ${login.json().token}`)).statusCode, 200);
    assert.equal((await me(user.bearer)).statusCode, 401);
  });

  test('a password change from a web session revokes a JWT this process had just honoured', async () => {
    const user = await signUp(t.app);
    assert.equal((await me(user.bearer)).statusCode, 200);
    const signIn = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: STRONG_PASSWORD } });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    const change = await t.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: { cookie, origin: ORIGIN },
      payload: { current_password: STRONG_PASSWORD, new_password: 'a-new-and-longer-passphrase-77' },
    });
    assert.equal(change.statusCode, 204, change.body);
    assert.equal((await me(user.bearer)).statusCode, 401);
  });

  test("a JWT newer than what this instance remembers is honoured at once", async () => {
    // Two app instances on one database, as two processes would be: B signs the user out
    // everywhere and in again; A, which remembers the old generation, must not refuse the new JWT.
    const b = await buildTestApp({
      dataDir: t.dataDir,
      ...(t.config.database.kind === 'postgres' ? { databaseUrl: t.config.database.url } : {}),
    });
    try {
      const user = await signUp(t.app);
      assert.equal((await me(user.bearer)).statusCode, 200);
      assert.equal((await b.app.inject({ method: 'DELETE', url: '/api/v1/me/sessions', headers: { authorization: user.bearer } })).statusCode, 204);
      const login = await b.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } });
      assert.equal((await me(`Bearer ${login.json().token}`)).statusCode, 200);
    } finally {
      await b.close();
    }
  });
});
