import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AdminService } from '../src/admin/service.js';
import { PAGINATION_ERRORS } from '../src/pagination/errors.js';
import { encodeCursor } from '../src/pagination/cursor.js';
import { SITE_ERRORS } from '../src/sites/errors.js';
import { buildTestApp, createSite, signUp, type SignedUpUser, type TestApp } from './helpers.js';
import { assertProblem, type HttpClient, listenOnLoopback, TEST_ORIGIN } from './http.js';

// Ids, numbers and cursors in paths and query strings are judged by schema before any query: the
// same 400 on SQLite and PostgreSQL, where PostgreSQL refused a NUL or a number past its integer
// column with a 500 of its own ("invalid byte sequence", "out of range for type integer").

let t: TestApp;
let http: HttpClient;
let owner: SignedUpUser;
let admin: SignedUpUser;
let siteId: string;
let workspaceId: string;

before(async () => {
  t = await buildTestApp();
  http = await listenOnLoopback(t);
  owner = await signUp(t.app);
  admin = await signUp(t.app);
  await new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).promote(admin.email);
  siteId = (await createSite(t.app, owner.bearer)).id;
  const workspaces = await http.request('GET', '/api/v1/workspaces', { headers: { authorization: owner.bearer } });
  workspaceId = workspaces.json<{ workspaces: Array<{ id: string }> }>().workspaces[0]?.id ?? '';
});
after(() => t.close());

async function assertRefused(method: string, url: string, path: string, options: { as?: SignedUpUser; json?: unknown } = {}): Promise<void> {
  const answer = await http.request(method, url, { headers: { authorization: (options.as ?? owner).bearer, origin: TEST_ORIGIN }, json: options.json });
  assertProblem(answer, 400, 'validation_failed');
  const errors = answer.json<{ errors: Array<{ path: string; message: string }> }>().errors;
  assert.equal(errors[0]?.path, path, `${method} ${url}: ${answer.text}`);
}

describe('a NUL in a path or query parameter is a 400 naming it, on both databases', () => {
  test('in an id of every kind of resource', async () => {
    const cases: Array<[string, string, string, unknown?]> = [
      ['GET', '/api/v1/sites/%00', '/params/id'],
      ['GET', '/api/v1/sites/abc%00def', '/params/id'],
      ['GET', '/api/v1/workspaces/%00', '/params/id'],
      ['DELETE', '/api/v1/me/sessions/%00', '/params/id'],
      ['POST', `/api/v1/sites/${siteId}/change-requests/%00/apply`, '/params/cr_id', {}],
      ['GET', `/api/v1/workspaces/${workspaceId}/webhooks/%00`, '/params/webhook_id'],
      ['DELETE', `/api/v1/workspaces/${workspaceId}/invitations/%00`, '/params/invitation_id'],
      ['PATCH', `/api/v1/workspaces/${workspaceId}/members/%00`, '/params/user_id', { role: 'viewer' }],
      ['POST', '/api/v1/trash/%00/restore', '/params/site_id'],
    ];
    for (const [method, url, path, json] of cases) await assertRefused(method, url, path, { json });
  });

  test('in search text and filters', async () => {
    await assertRefused('GET', '/api/v1/admin/users?query=%00', '/querystring/query', { as: admin });
    await assertRefused('GET', '/api/v1/sites?q=a%00b', '/querystring/q');
    await assertRefused('GET', `/api/v1/workspaces/${workspaceId}/audit-log?actor_id=%00`, '/querystring/actor_id');
  });

  test('an id of another shape names nothing: refused before any query, not looked up', async () => {
    for (const odd of ['not-an-id', '0190d6a0-0000-7000-8000-00000000000G', "'; drop table sites; --", 'A'.repeat(64)]) {
      await assertRefused('GET', `/api/v1/sites/${encodeURIComponent(odd)}`, '/params/id');
    }
    const message = (await http.request('GET', '/api/v1/workspaces/nope', { headers: { authorization: owner.bearer } })).json<{ errors: Array<{ message: string }> }>().errors[0]?.message;
    assert.equal(message, 'must be an id (a UUID, as the API answered it)');
  });
});

describe('numbers are bounded by the integer column they are compared with', () => {
  test('a version number past 2147483647 is a 400; the largest one is simply not found', async () => {
    await assertRefused('GET', `/api/v1/sites/${siteId}/versions/2147483648`, '/params/version');
    await assertRefused('POST', `/api/v1/sites/${siteId}/versions/99999999999999999999/restore`, '/params/version');
    assertProblem(await http.request('GET', `/api/v1/sites/${siteId}/versions/2147483647`, { headers: { authorization: owner.bearer } }), 404, SITE_ERRORS.VERSION_NOT_FOUND);
  });

  test('a version cursor past 2147483647 is a 400; the largest one pages from the top', async () => {
    await assertRefused('GET', `/api/v1/sites/${siteId}/versions?cursor=2147483648`, '/querystring/cursor');
    await assertRefused('GET', `/api/v1/sites/${siteId}/versions?cursor=-1`, '/querystring/cursor');
    const page = await http.request('GET', `/api/v1/sites/${siteId}/versions?cursor=2147483647`, { headers: { authorization: owner.bearer } });
    assert.equal(page.status, 200, page.text);
    assert.equal(page.json<{ versions: unknown[] }>().versions.length, 1);
  });
});

describe('a cursor is the client\'s text: what it carries is checked before a query uses it', () => {
  test('a name cursor holding a NUL is a cursor the list did not issue', async () => {
    const cursor = encodeCursor(['name', '', 'a\u0000b', '0190d6a0-0000-7000-8000-000000000000']);
    assertProblem(await http.request('GET', `/api/v1/sites?sort=name&cursor=${cursor}`, { headers: { authorization: owner.bearer } }), 400, PAGINATION_ERRORS.INVALID_CURSOR);
  });

  test('a trash cursor whose time is not a timestamp the list wrote is refused', async () => {
    const cursor = encodeCursor(['2026-01-15 10:00:00\u0000', '0190d6a0-0000-7000-8000-000000000000']);
    assertProblem(await http.request('GET', `/api/v1/trash?cursor=${cursor}`, { headers: { authorization: owner.bearer } }), 400, PAGINATION_ERRORS.INVALID_CURSOR);
  });
});
