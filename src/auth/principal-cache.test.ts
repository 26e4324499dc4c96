import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createAccessToken, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import type { UserRow } from '../users/queries.js';
import type { Principal } from './guard.js';
import { PRINCIPAL_CACHE_TTL_MS, PRINCIPAL_CACHE_TTL_WITH_CHANGE_COUNTER_MS, PrincipalCache } from './principal-cache.js';

function principalOf(id: string, generation = 0): Principal {
  const user: UserRow = { id, email: `${id}@example.com`, name: '', password_hash: '', jwt_generation: generation, email_verified_at: null, created_at: '', updated_at: '' };
  return { user, method: 'jwt', scopes: ['sites:read', 'sites:write'], accessTokenId: null, sessionId: null, authenticatedAt: null };
}

describe('the principal cache on its own', () => {
  test('an entry is used until the bound has passed since its read began, and not after', () => {
    let now = 5_000;
    const cache = new PrincipalCache({ ttlMs: 1000, now: () => now });
    const ticket = cache.readStarted();
    now += 300; // the read itself took a while
    cache.rememberJwtUser(principalOf('u1'), ticket);
    now = 5_999;
    assert.ok(cache.jwtUser('u1') !== undefined);
    now = 6_000;
    assert.equal(cache.jwtUser('u1'), undefined, 'expired 1000 ms after the read began, not after it ended');
  });

  test('a read that began before a revocation is not remembered', () => {
    const cache = new PrincipalCache({ now: () => 0 });
    const ticket = cache.readStarted();
    cache.forgetUser('u1');
    cache.rememberJwtUser(principalOf('u1'), ticket);
    assert.equal(cache.jwtUser('u1'), undefined);
    const later = cache.readStarted();
    cache.rememberJwtUser(principalOf('u1'), later);
    assert.ok(cache.jwtUser('u1') !== undefined);
  });

  test('forgetting a user drops their JWT entry and their access tokens; forgetting a token drops only it', () => {
    const cache = new PrincipalCache({ now: () => 0 });
    const ticket = cache.readStarted();
    cache.rememberJwtUser(principalOf('u1'), ticket);
    cache.rememberJwtUser(principalOf('u2'), ticket);
    const token = (id: string, user: string) => ({ id, principal: { ...principalOf(user), method: 'access_token' as const, accessTokenId: id }, lastUsedMs: 0 });
    cache.rememberAccessToken('hash-a', token('a', 'u1'), ticket);
    cache.rememberAccessToken('hash-b', token('b', 'u2'), ticket);
    cache.rememberAccessToken('hash-c', token('c', 'u2'), ticket);

    cache.forgetUser('u1');
    assert.equal(cache.jwtUser('u1'), undefined);
    assert.equal(cache.accessToken('hash-a'), undefined);
    assert.ok(cache.jwtUser('u2') !== undefined);

    cache.forgetAccessToken('b');
    assert.equal(cache.accessToken('hash-b'), undefined);
    assert.ok(cache.accessToken('hash-c') !== undefined);
  });

  test('holds at most maxEntries per kind; once full, a newcomer gets in at its second read and the oldest goes', () => {
    const cache = new PrincipalCache({ maxEntries: 3, now: () => 0 });
    for (let i = 0; i < 10; i++) cache.rememberJwtUser(principalOf(`u${i}`), cache.readStarted());
    assert.equal(cache.size, 3);
    assert.ok(cache.jwtUser('u0') !== undefined, 'a pass over users read once leaves what is held alone');
    assert.equal(cache.jwtUser('u9'), undefined);

    cache.rememberJwtUser(principalOf('u9'), cache.readStarted());
    assert.equal(cache.size, 3);
    assert.ok(cache.jwtUser('u9') !== undefined, 'read again soon after, u9 is let in');
    assert.equal(cache.jwtUser('u0'), undefined, 'the oldest made room');
    assert.ok(cache.jwtUser('u1') !== undefined);
  });

  test('a held entry read afresh is refreshed, however full the cache is', () => {
    let now = 0;
    const cache = new PrincipalCache({ maxEntries: 2, now: () => now, ttlMs: 100 });
    for (const id of ['u1', 'u2']) cache.rememberJwtUser(principalOf(id), cache.readStarted());
    now = 90;
    cache.rememberJwtUser(principalOf('u1'), cache.readStarted());
    now = 150;
    assert.ok(cache.jwtUser('u1') !== undefined);
    assert.equal(cache.jwtUser('u2'), undefined, 'expired');
  });
});

describe('the principal cache with a change counter (SQLite)', () => {
  test('entries outlive the 1 s bound but not a commit by another connection, nor the 60 s safety net', () => {
    let now = 0;
    let counter = 3;
    const cache = new PrincipalCache({ now: () => now, foreignChanges: () => counter });
    cache.rememberJwtUser(principalOf('u1'), cache.readStarted());
    now = PRINCIPAL_CACHE_TTL_MS * 10;
    assert.ok(cache.jwtUser('u1') !== undefined, 'no foreign commit: still trusted after 10 s');
    now = PRINCIPAL_CACHE_TTL_WITH_CHANGE_COUNTER_MS;
    assert.equal(cache.jwtUser('u1'), undefined, 'expired by the safety net');

    const token = { id: 't1', principal: { ...principalOf('u2'), method: 'access_token' as const, accessTokenId: 't1' }, lastUsedMs: 0 };
    cache.rememberJwtUser(principalOf('u1'), cache.readStarted());
    cache.rememberAccessToken('hash-1', token, cache.readStarted());
    const running = cache.readStarted();
    counter++; // another process committed: a revocation, perhaps
    assert.equal(cache.accessToken('hash-1'), undefined);
    assert.equal(cache.jwtUser('u1'), undefined);
    assert.equal(cache.size, 0);
    cache.rememberJwtUser(principalOf('u1'), running);
    assert.equal(cache.jwtUser('u1'), undefined, 'a read begun before the commit was noticed is not stored');
    cache.rememberJwtUser(principalOf('u1'), cache.readStarted());
    assert.ok(cache.jwtUser('u1') !== undefined);
  });
});

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
