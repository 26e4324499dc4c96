import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, createAccessToken, createSite, signUp, type TestApp } from '../../test/helpers.js';
import { isWellFormedAccessToken } from '../auth/tokens.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

async function listTokens(authorization: string) {
  return t.app.inject({ method: 'GET', url: '/api/v1/access-tokens', headers: { authorization } });
}

test('a new token is shown once, in the swd_ format, and stored only as a SHA-256 hash', async () => {
  const user = await signUp(t.app);
  const response = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: user.bearer }, payload: { name: 'CI deploy' } });
  assert.equal(response.statusCode, 201);
  assert.equal(response.headers['cache-control'], 'no-store');
  const created = response.json().access_token;
  assert.match(created.token, /^swd_[0-9A-Za-z]{49}$/);
  assert.ok(isWellFormedAccessToken(created.token));
  assert.equal(created.name, 'CI deploy');
  assert.deepEqual(created.scopes, ['sites:read', 'sites:write']);
  assert.equal(created.last_four, created.token.slice(-4));
  assert.equal(created.last_used_at, null);

  const listed = (await listTokens(user.bearer)).json().access_tokens;
  assert.equal(listed.length, 1);
  assert.equal(listed[0].token, undefined);
  assert.ok(!JSON.stringify(listed).includes(created.token));
  assert.equal(listed[0].last_four, created.last_four);
  assert.equal(listed[0].workspace_id, null, 'a token made without a workspace reaches every workspace of its user');

  const row = await t.database.db.selectFrom('access_tokens').selectAll().executeTakeFirstOrThrow();
  assert.match(row.token_hash, /^[0-9a-f]{64}$/);
  assert.ok(!Object.values(row).some((value) => typeof value === 'string' && value.includes(created.token.slice(4, 30))));
  assert.ok(!t.logs().includes(created.token));
});

test('a token authenticates the sites API with the Token scheme', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  await createSite(t.app, pat.header, { name: 'Made with a token' });
  const list = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: pat.header } });
  assert.equal(list.statusCode, 200);
  assert.equal(list.json().sites[0].name, 'Made with a token');
});

test('a token sent with the Bearer scheme is 401 and says to use Token', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: `Bearer ${pat.token}` } });
  assert.equal(response.statusCode, 401);
  assert.equal(response.json().code, 'wrong_scheme');
  assert.match(response.json().detail, /Token/);
});

test('an altered, truncated or made-up token is 401', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  const flipped = pat.token.slice(0, 10) + (pat.token[10] === 'a' ? 'b' : 'a') + pat.token.slice(11);
  const candidates = [flipped, pat.token.slice(0, -1), `${pat.token}x`, 'swd_' + '0'.repeat(49), 'garbage', pat.token.toUpperCase()];
  for (const candidate of candidates) {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: `Token ${candidate}` } });
    assert.equal(response.statusCode, 401, candidate);
    assert.equal(response.json().code, 'invalid_token');
  }
});

test('a well-formed token that was never issued is 401', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  await t.database.db.deleteFrom('access_tokens').execute();
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: pat.header } });
  assert.equal(response.statusCode, 401);
});

test('revocation takes effect on the very next request', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: pat.header } })).statusCode, 200);
  const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v1/access-tokens/${pat.id}`, headers: { authorization: user.bearer } });
  assert.equal(revoke.statusCode, 204);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: pat.header } })).statusCode, 401);
  assert.equal((await listTokens(user.bearer)).json().access_tokens.length, 0);
});

test('a token cannot list, create or revoke tokens (403)', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  const list = await listTokens(pat.header);
  const create = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: pat.header }, payload: { name: 'escalate' } });
  const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v1/access-tokens/${pat.id}`, headers: { authorization: pat.header } });
  for (const response of [list, create, revoke]) {
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().code, 'access_token_not_allowed');
  }
  assert.equal((await listTokens(user.bearer)).json().access_tokens.length, 1);
});

test("another user's token cannot be revoked or seen (404, not 403)", async () => {
  const alice = await signUp(t.app);
  const bob = await signUp(t.app);
  const pat = await createAccessToken(t.app, alice);
  const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v1/access-tokens/${pat.id}`, headers: { authorization: bob.bearer } });
  assert.equal(revoke.statusCode, 404);
  assert.equal(revoke.json().code, 'access_token_not_found');
  assert.equal((await listTokens(bob.bearer)).json().access_tokens.length, 0);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: pat.header } })).statusCode, 200);
});

test('last_used_at is recorded on use and refreshed at most once a minute', async () => {
  const user = await signUp(t.app);
  const pat = await createAccessToken(t.app, user);
  const use = () => t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: pat.header } });
  const lastUsed = async () => (await listTokens(user.bearer)).json().access_tokens[0].last_used_at;

  await use();
  const first = await lastUsed();
  assert.equal(first, t.clock.now().toISOString());
  t.clock.advance(30_000);
  await use();
  assert.equal(await lastUsed(), first);
  t.clock.advance(30_000);
  await use();
  assert.equal(await lastUsed(), t.clock.now().toISOString());
});

test('a read-only token can read sites but every write is 403', async () => {
  const user = await signUp(t.app);
  const site = await createSite(t.app, user.bearer);
  const pat = await createAccessToken(t.app, user, ['sites:read']);
  const headers = { authorization: pat.header };
  assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers })).statusCode, 200);
  const writes = [
    await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers, payload: { name: 'changed' } }),
    await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers, payload: { name: 'new' } }),
    await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${site.id}`, headers }),
  ];
  for (const response of writes) {
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().code, 'insufficient_scope');
  }
  const after = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers });
  assert.equal(after.json().site.name, site.name);
});

test('name and scopes are validated', async () => {
  const user = await signUp(t.app);
  const cases = [
    { payload: { name: '' }, path: '/name' },
    { payload: { name: '   ' }, path: '/name' },
    { payload: { name: 'x'.repeat(101) }, path: '/name' },
    { payload: { name: 'ok', scopes: ['sites:admin'] }, path: '/scopes/0' },
    { payload: { name: 'ok', scopes: [] }, path: '/scopes' },
    { payload: {}, path: '/name' },
  ];
  for (const { payload, path } of cases) {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: user.bearer }, payload });
    assert.equal(response.statusCode, 400, JSON.stringify(payload));
    assert.equal(response.json().errors[0].path, path, JSON.stringify(payload));
  }
});

test('an account holds at most 100 tokens', async () => {
  const user = await signUp(t.app);
  for (let i = 0; i < 100; i++) await createAccessToken(t.app, user);
  const response = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: user.bearer }, payload: { name: 'one too many' } });
  assert.equal(response.statusCode, 409);
  assert.equal(response.json().code, 'too_many_access_tokens');
});

test('the list tells each token\'s workspace: the one it was limited to, or null for all', async () => {
  const user = await signUp(t.app);
  const workspaces = (await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { authorization: user.bearer } })).json<{ workspaces: Array<{ id: string }> }>().workspaces;
  const personal = workspaces[0]?.id ?? assert.fail('a personal workspace');
  for (const payload of [{ name: 'everywhere' }, { name: 'personal only', workspace_id: personal }]) {
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: user.bearer }, payload });
    assert.equal(created.statusCode, 201, created.body);
  }
  const listed = (await listTokens(user.bearer)).json<{ access_tokens: Array<{ name: string; workspace_id: string | null; token?: string }> }>().access_tokens;
  assert.deepEqual(
    // Made in the same millisecond of the test's clock: their order is not the point.
    listed.map((token) => [token.name, token.workspace_id]).sort(),
    [
      ['everywhere', null],
      ['personal only', personal],
    ],
  );
  assert.ok(listed.every((token) => token.token === undefined), 'the secret is never listed');
});
