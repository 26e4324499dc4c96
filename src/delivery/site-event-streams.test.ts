import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { EventStreamClient } from '../../test/event-stream.js';
import { buildTestApp, createAccessToken, createSite, enableTotp, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { openDatabase } from '../db/connect.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { SITE_ERRORS } from '../sites/errors.js';
import type { SiteVersionEvent } from './site-event-streams.js';

// GET /api/v1/sites/{id}/events over real HTTP, on SQLite and (with TEST_DATABASE_URL) PostgreSQL:
// members of the site's workspace hear of each new version with who made it; nobody else hears
// anything of it.

interface Running {
  t: TestApp;
  base: string;
  owner: SignedUpUser;
  /** A second member of the owner's team workspace, an editor, named Olivia. */
  olivia: SignedUpUser;
  workspaceId: string;
}

async function start(): Promise<Running> {
  const t = await buildTestApp({ delivery: { heartbeatMs: 100, pollIntervalMs: 50, databasePollIntervalMs: 50 } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const owner = await signUp(t.app);
  const olivia = await signUp(t.app);
  const named = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: { authorization: olivia.bearer }, payload: { name: 'Olivia' } });
  assert.equal(named.statusCode, 200, named.body);
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
  const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
  await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspaceId, olivia.id, 'editor');
  return { t, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, owner, olivia, workspaceId };
}

let running: Running;
before(async () => {
  running = await start();
});
after(async () => {
  await running.t.close();
});

function events(siteId: string, headers: Record<string, string>): Promise<EventStreamClient> {
  return EventStreamClient.open(`${running.base}/api/v1/sites/${siteId}/events`, headers);
}

async function teamSite(name: string): Promise<string> {
  return (await createSite(running.t.app, running.owner.bearer, { name, workspace_id: running.workspaceId })).id;
}

async function put(user: SignedUpUser, siteId: string, payload: Record<string, unknown>): Promise<void> {
  const response = await running.t.app.inject({ method: 'PUT', url: `/api/v1/sites/${siteId}`, headers: { authorization: user.bearer }, payload });
  assert.equal(response.statusCode, 200, response.body);
}

function parsed(data: string): SiteVersionEvent {
  return JSON.parse(data) as SiteVersionEvent;
}

async function problemCode(stream: EventStreamClient): Promise<string> {
  await stream.closes();
  return (JSON.parse(stream.body()) as { code: string }).code;
}

describe('a site’s new versions as events, for its members', () => {
  test('the newest version at once, then another member’s save with their name, version and time', async () => {
    const siteId = await teamSite('Shared');
    const stream = await events(siteId, { authorization: running.owner.bearer });
    try {
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      assert.equal(stream.headers['cache-control'], 'no-store');
      assert.equal(stream.headers['x-content-type-options'], 'nosniff', 'the security headers of every answer');
      const first = await stream.event(0);
      assert.equal(first.event, 'version');
      assert.equal(first.id, '1');
      assert.equal(parsed(first.data).version, 1);

      await put(running.olivia, siteId, { name: 'Shared by Olivia' });
      const saved = await stream.event(1);
      assert.equal(saved.id, '2');
      const read = await running.t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: running.owner.bearer } });
      assert.deepEqual(parsed(saved.data), { version: 2, updated_at: read.json<{ site: { updated_at: string } }>().site.updated_at, actor_id: running.olivia.id, actor_name: 'Olivia' });
    } finally {
      stream.close();
    }
  });

  test('Last-Event-ID naming the newest version sends nothing until the next one; an access token opens a stream too', async () => {
    const siteId = await teamSite('Resumed');
    const token = await createAccessToken(running.t.app, running.olivia, ['sites:read']);
    const stream = await events(siteId, { authorization: token.header, 'last-event-id': '1' });
    try {
      assert.equal(stream.status, 200);
      await stream.commentsReach(1);
      assert.equal(stream.events.length, 0, 'the version held is not sent again');
      await put(running.owner, siteId, { color: '#123456' });
      assert.equal((await stream.event(0)).id, '2');
    } finally {
      stream.close();
    }
  });

  test('someone who is not a member gets 404, as for the site itself; no credential gets 401', async () => {
    const siteId = await teamSite('Private');
    const stranger = await signUp(running.t.app);
    const refused = await events(siteId, { authorization: stranger.bearer });
    assert.equal(refused.status, 404);
    assert.equal(await problemCode(refused), SITE_ERRORS.SITE_NOT_FOUND);
    const anonymous = await events(siteId, {});
    assert.equal(anonymous.status, 401);
    await anonymous.closes();
    const unknown = await events('00000000-0000-7000-8000-000000000000', { authorization: running.owner.bearer });
    assert.equal(unknown.status, 404);
    await unknown.closes();
  });

  test('a member removed from the workspace stops hearing at once, and cannot open the stream again', async () => {
    const siteId = await teamSite('Leaving');
    const member = await signUp(running.t.app);
    await new WorkspaceService({ db: running.t.database.db, dialect: running.t.database.dialect, clock: running.t.clock, cache: running.t.cache }).addMember(running.workspaceId, member.id, 'viewer');
    const stream = await events(siteId, { authorization: member.bearer });
    await stream.event(0);
    const removed = await running.t.app.inject({ method: 'DELETE', url: `/api/v1/workspaces/${running.workspaceId}/members/${member.id}`, headers: { authorization: running.owner.bearer } });
    assert.equal(removed.statusCode, 204, removed.body);
    await stream.closes();
    await put(running.owner, siteId, { name: 'After leaving' });
    assert.equal(stream.events.length, 1, 'nothing after the removal');
    const again = await events(siteId, { authorization: member.bearer });
    assert.equal(again.status, 404);
    await again.closes();
  });

  test('the workspace’s two-factor rule applies: turning it on ends the streams of members without a second factor, who are then refused', async () => {
    const strictOwner = await signUp(running.t.app);
    await enableTotp(running.t, strictOwner);
    const created = await running.t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: strictOwner.bearer }, payload: { name: 'Strict' } });
    const strictId = created.json<{ workspace: { id: string } }>().workspace.id;
    const member = await signUp(running.t.app);
    await new WorkspaceService({ db: running.t.database.db, dialect: running.t.database.dialect, clock: running.t.clock, cache: running.t.cache }).addMember(strictId, member.id, 'editor');
    const siteId = (await createSite(running.t.app, strictOwner.bearer, { name: 'Strict site', workspace_id: strictId })).id;
    const stream = await events(siteId, { authorization: member.bearer });
    assert.equal(stream.status, 200);
    await stream.event(0);
    const required = await running.t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${strictId}`, headers: { authorization: strictOwner.bearer }, payload: { require_two_factor: true } });
    assert.equal(required.statusCode, 200, required.body);
    await stream.closes();
    const refused = await events(siteId, { authorization: member.bearer });
    assert.equal(refused.status, 403);
    assert.equal(await problemCode(refused), WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
    const owners = await events(siteId, { authorization: strictOwner.bearer });
    try {
      assert.equal(owners.status, 200, 'a member with a second factor still hears');
      await owners.event(0);
    } finally {
      owners.close();
    }
  });

  test('a site moved to the trash ends its streams', async () => {
    const siteId = await teamSite('Trashed');
    const stream = await events(siteId, { authorization: running.olivia.bearer });
    await stream.event(0);
    const deleted = await running.t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${siteId}`, headers: { authorization: running.owner.bearer } });
    assert.equal(deleted.statusCode, 204);
    await stream.closes();
    assert.ok(stream.ended, 'ended cleanly');
  });

  test('a version committed by another app server reaches the stream through the change feed', async () => {
    const siteId = await teamSite('Elsewhere');
    const stream = await events(siteId, { authorization: running.owner.bearer });
    // Another app server's commit, on another connection: this process learns of it only through
    // the change feed (SQLite: the data_version counter; PostgreSQL: the triggers' NOTIFY).
    const other = openDatabase(running.t.config.database);
    try {
      await stream.event(0);
      const first = await other.db.selectFrom('site_versions').selectAll().where('site_id', '=', siteId).executeTakeFirstOrThrow();
      await other.db.transaction().execute(async (trx) => {
        await trx.insertInto('site_versions').values({ ...first, version: 2, created_at: '2030-01-02T03:04:05.000Z', actor_id: running.olivia.id, actor_name: 'Olivia' }).execute();
        await trx.updateTable('sites').set({ name: 'Changed elsewhere', version: 2 }).where('id', '=', siteId).execute();
      });
      const changed = await stream.event(1);
      assert.deepEqual(parsed(changed.data), { version: 2, updated_at: '2030-01-02T03:04:05.000Z', actor_id: running.olivia.id, actor_name: 'Olivia' });
    } finally {
      stream.close();
      await other.close();
    }
  });
});
