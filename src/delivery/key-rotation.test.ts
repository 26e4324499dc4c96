import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestAppWithOwner, createAccessToken, createPostgresDatabase, createSite, enableTotp, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { assertProblem as httpProblem, type HttpAnswer, type HttpClient, listenOnLoopback } from '../../test/http.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connect.js';
import { migrateTo, migrateToLatest } from '../db/migrate.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { isPublicKey } from '../lib/public-keys.js';
import { PUBLIC_KEY_PATTERN } from './contract.js';
import { DELIVERY_ERRORS } from './errors.js';

// POST /api/v1/sites/{id}/public-key/rotate, on SQLite and (with TEST_DATABASE_URL) PostgreSQL;
// what the old and new keys answer on /public/v1 is proven in public-config.test.ts.

let t: TestApp;
let owner: SignedUpUser;
beforeEach(async () => ({ t, owner } = await buildTestAppWithOwner()));
afterEach(() => t.close());

function rotate(siteId: string, authorization: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url: `/api/v1/sites/${siteId}/public-key/rotate`, headers: { authorization } });
}

function assertProblem(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  assert.equal(response.json<{ code: string }>().code, code);
}

async function teamWith(role: WorkspaceRole): Promise<{ workspaceId: string; member: SignedUpUser }> {
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
  const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
  const member = await signUp(t.app);
  const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  assert.equal(await workspaces.addMember(workspaceId, member.id, role), true);
  return { workspaceId, member };
}

describe('a site’s public key', () => {
  test('every new site has its own key of the documented shape, and a PUT cannot set it', async () => {
    const first = await createSite(t.app, owner.bearer);
    const second = await createSite(t.app, owner.bearer, { name: 'Other' });
    for (const site of [first, second]) assert.match(String(site.public_key), new RegExp(PUBLIC_KEY_PATTERN));
    assert.notEqual(first.public_key, second.public_key);

    const put = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${first.id}`, headers: { authorization: owner.bearer }, payload: { ...first, public_key: 'spk_AAAAAAAAAAAAAAAAAAAAAAAA' } });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json<{ site: { public_key: string } }>().site.public_key, first.public_key);
  });

  test('rotating answers the site with a new key and a new ETag; the change is audited, and is no version of the site', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer } });
    const rotated = await rotate(site.id, owner.bearer);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(rotated.headers['cache-control'], 'no-store');
    const body = rotated.json<{ site: { public_key: string; updated_at: string } }>().site;
    assert.ok(isPublicKey(body.public_key));
    assert.notEqual(body.public_key, site.public_key);
    assert.equal(body.updated_at, site.updated_at, 'the configuration did not change');
    assert.notEqual(rotated.headers.etag, before.headers.etag);

    // A client holding the old representation must not be told it is current.
    const revalidated = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer, 'if-none-match': String(before.headers.etag) } });
    assert.equal(revalidated.statusCode, 200);
    assert.equal(revalidated.json<{ site: { public_key: string } }>().site.public_key, body.public_key);

    const versions = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}/versions`, headers: { authorization: owner.bearer } });
    assert.deepEqual(
      versions.json<{ versions: Array<{ version: number }> }>().versions.map((version) => version.version),
      [1],
      'a rotation is no version of the configuration',
    );
    const events = await t.database.db.selectFrom('audit_events').select(['action', 'actor_id', 'target_id', 'details']).where('target_id', '=', site.id).orderBy('id').execute();
    assert.deepEqual(
      events.map((event) => [event.action, event.actor_id]),
      [
        ['site.created', owner.id],
        ['site.public_key_rotated', owner.id],
      ],
    );
    const details = JSON.parse(events[1]?.details ?? '{}') as { previous_key_expires_at: string };
    assert.equal(details.previous_key_expires_at, new Date(t.clock.now().getTime() + 24 * 60 * 60 * 1000).toISOString());
  });

  test('editors rotate, viewers may not, and a stranger learns nothing', async () => {
    const { workspaceId, member: editor } = await teamWith('editor');
    const site = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: workspaceId });
    assert.equal((await rotate(site.id, editor.bearer)).statusCode, 200);

    const viewer = await signUp(t.app);
    const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
    await workspaces.addMember(workspaceId, viewer.id, 'viewer');
    assertProblem(await rotate(site.id, viewer.bearer), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);

    const stranger = await signUp(t.app);
    assertProblem(await rotate(site.id, stranger.bearer), 404, SITE_ERRORS.SITE_NOT_FOUND);
    assertProblem(await rotate('00000000-0000-7000-8000-000000000000', owner.bearer), 404, SITE_ERRORS.SITE_NOT_FOUND);
    assertProblem(await rotate(site.id, ''), 401, AUTH_ERRORS.UNAUTHENTICATED);
    assertProblem(await t.app.inject({ method: 'POST', url: `/api/v1/sites/${'x'.repeat(100)}/public-key/rotate`, headers: { authorization: owner.bearer } }), 400, 'validation_failed');
  });

  test('an access token rotates as it updates sites: with sites:write, within its workspace', async () => {
    const site = await createSite(t.app, owner.bearer);
    const writer = await createAccessToken(t.app, owner, ['sites:read', 'sites:write']);
    const reader = await createAccessToken(t.app, owner, ['sites:read']);
    assert.equal((await rotate(site.id, writer.header)).statusCode, 200);
    assertProblem(await rotate(site.id, reader.header), 403, AUTH_ERRORS.INSUFFICIENT_SCOPE);
    const events = await t.database.db.selectFrom('audit_events').select(['via_type', 'via_token_id']).where('action', '=', 'site.public_key_rotated').execute();
    assert.deepEqual(events, [{ via_type: 'access_token', via_token_id: writer.id }]);
  });

  test('of rotations fired together one lands; the others are 409 while the key it replaced still answers', async () => {
    const site = await createSite(t.app, owner.bearer);
    const answers = await Promise.all(Array.from({ length: 5 }, () => rotate(site.id, owner.bearer)));
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [200, 409, 409, 409, 409]);
    for (const refused of answers.filter((answer) => answer.statusCode === 409)) assertProblem(refused, 409, DELIVERY_ERRORS.PREVIOUS_KEY_STILL_ANSWERING);
    const landed = answers.find((answer) => answer.statusCode === 200)?.json<{ site: { public_key: string } }>().site.public_key;
    const row = await t.database.db.selectFrom('sites').select(['public_key', 'previous_public_key', 'version']).where('id', '=', site.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { public_key: landed, previous_public_key: site.public_key, version: 2 });
  });
});

describe('rotating again, over HTTP', () => {
  let http: HttpClient;
  beforeEach(async () => {
    http = await listenOnLoopback(t);
  });

  function rotateOverHttp(siteId: string, authorization: string): Promise<HttpAnswer> {
    return http.request('POST', `/api/v1/sites/${siteId}/public-key/rotate`, { headers: { authorization } });
  }

  async function publicStatus(key: string): Promise<number> {
    return (await http.request('GET', `/public/v1/sites/${key}`)).status;
  }

  test('a second rotation while the replaced key still answers is 409 and changes nothing; once it has stopped, rotating works again', async () => {
    const site = await createSite(t.app, owner.bearer);
    const first = await rotateOverHttp(site.id, owner.bearer);
    assert.equal(first.status, 200, first.text);
    const firstKey = first.json<{ site: { public_key: string } }>().site.public_key;
    const expiresAt = new Date(t.clock.now().getTime() + 24 * 60 * 60 * 1000).toISOString();

    t.clock.advance(24 * 60 * 60 * 1000 - 1);
    const refused = await rotateOverHttp(site.id, owner.bearer);
    httpProblem(refused, 409, DELIVERY_ERRORS.PREVIOUS_KEY_STILL_ANSWERING);
    assert.match(refused.json<{ detail: string }>().detail, new RegExp(expiresAt.replace(/\./g, '\\.')));
    // Both keys still answer: no page was broken.
    assert.equal(await publicStatus(String(site.public_key)), 200);
    assert.equal(await publicStatus(firstKey), 200);
    const events = await t.database.db.selectFrom('audit_events').select('action').where('action', '=', 'site.public_key_rotated').execute();
    assert.equal(events.length, 1, 'the refused rotation is not audited');

    t.clock.advance(1);
    const second = await rotateOverHttp(site.id, owner.bearer);
    assert.equal(second.status, 200, second.text);
    assert.equal(await publicStatus(String(site.public_key)), 404);
    assert.equal(await publicStatus(firstKey), 200, 'the key the second rotation replaced answers for its own 24 hours');
  });

  test('a member without a second factor in a workspace that requires one cannot rotate (403 two_factor_required); nothing of the site is answered', async () => {
    const { workspaceId, member } = await teamWith('owner');
    const site = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: workspaceId });
    await enableTotp(t, owner);
    const required = await http.request('PATCH', `/api/v1/workspaces/${workspaceId}`, { headers: { authorization: owner.bearer }, json: { require_two_factor: true } });
    assert.equal(required.status, 200, required.text);
    const token = await createAccessToken(t.app, member, ['sites:read', 'sites:write']);

    for (const authorization of [member.bearer, token.header]) {
      const refused = await rotateOverHttp(site.id, authorization);
      httpProblem(refused, 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
      assert.doesNotMatch(refused.text, /ai_settings|knowledge_sources|public_key/);
    }
    const row = await t.database.db.selectFrom('sites').select(['public_key', 'previous_public_key']).where('id', '=', site.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { public_key: site.public_key, previous_public_key: null });

    await enableTotp(t, member);
    assert.equal((await rotateOverHttp(site.id, member.bearer)).status, 200, 'with a second factor the member rotates');
  });

  test('while the workspace requires review, editors may not rotate (403 insufficient_role); admins and owners may', async () => {
    const { workspaceId, member: editor } = await teamWith('editor');
    const admin = await signUp(t.app);
    const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
    await workspaces.addMember(workspaceId, admin.id, 'admin');
    const site = await createSite(t.app, owner.bearer, { name: 'Reviewed', workspace_id: workspaceId });
    const other = await createSite(t.app, owner.bearer, { name: 'Reviewed too', workspace_id: workspaceId });
    const policy = await http.request('PATCH', `/api/v1/workspaces/${workspaceId}`, { headers: { authorization: owner.bearer }, json: { review: { required: true, approvals: 1 } } });
    assert.equal(policy.status, 200, policy.text);

    const refused = await rotateOverHttp(site.id, editor.bearer);
    httpProblem(refused, 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assert.match(refused.json<{ detail: string }>().detail, /requires review, rotating a public key is for admins and owners/);
    assert.equal((await t.database.db.selectFrom('sites').select('public_key').where('id', '=', site.id).executeTakeFirstOrThrow()).public_key, site.public_key);
    assert.equal((await rotateOverHttp(site.id, admin.bearer)).status, 200);
    assert.equal((await rotateOverHttp(other.id, owner.bearer)).status, 200);
  });
});

test('the migration gives every existing site a key of its own', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-public-key-migration-'));
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const postgres = adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
  try {
    const config = loadConfig({ DATA_DIR: dataDir, ...(postgres === undefined ? {} : { DATABASE_URL: postgres.url }) });
    const database = openDatabase(config.database);
    try {
      await migrateTo(database.db, '019-webhooks');
      const at = '2026-01-01T00:00:00.000Z';
      await sql`insert into users (id, email, name, password_hash, jwt_generation, created_at, updated_at) values ('u', 'u@example.com', '', 'x', 0, ${at}, ${at})`.execute(database.db);
      await sql`insert into workspaces (id, name, personal_user_id, created_at, updated_at) values ('w', 'Personal', 'u', ${at}, ${at})`.execute(database.db);
      for (const id of ['s1', 's2', 's3']) {
        await sql`insert into sites (id, workspace_id, user_id, name, color, ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources, partner_settings, version, created_at, updated_at)
          values (${id}, 'w', 'u', ${id}, '#abcdef', '', '', '', '', '', '', '', '{}', 1, ${at}, ${at})`.execute(database.db);
      }
      await migrateToLatest(database.db);
      const rows = await database.db.selectFrom('sites').select(['public_key', 'previous_public_key']).execute();
      assert.equal(rows.length, 3);
      assert.ok(rows.every((row) => isPublicKey(row.public_key) && row.previous_public_key === null));
      assert.equal(new Set(rows.map((row) => row.public_key)).size, 3);
      // The unique index holds: no second site can be given a key already taken.
      await assert.rejects(database.db.updateTable('sites').set({ public_key: rows[0]?.public_key ?? '' }).where('id', '=', 's2').execute());
    } finally {
      await database.close();
    }
  } finally {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
