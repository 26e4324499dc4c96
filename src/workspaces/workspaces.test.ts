import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, createAccessToken, createSite, createUserAsOperator, sessionCookie, signUp, type SignedUpUser, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { MAX_WORKSPACES_PER_USER, WorkspaceService } from './service.js';
import type { WorkspaceRole } from '../memberships/permissions.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function send(method: Method, url: string, authorization: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

function assertProblem(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  assert.equal(response.json().code, code, response.body);
}

/** The service the app uses, on its database and cache: adds members as the CLI does. */
function workspaceService(): WorkspaceService {
  return new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
}

async function createWorkspace(owner: SignedUpUser, name = 'Support team'): Promise<string> {
  const response = await send('POST', '/api/v1/workspaces', owner.bearer, { name });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ workspace: { id: string } }>().workspace.id;
}

async function addMember(workspaceId: string, user: { id: string }, role: WorkspaceRole): Promise<void> {
  assert.equal(await workspaceService().addMember(workspaceId, user.id, role), true);
}

async function roleOf(workspaceId: string, authorization: string): Promise<string | undefined> {
  const list = (await send('GET', '/api/v1/workspaces', authorization)).json<{ workspaces: Array<{ id: string; role: string }> }>().workspaces;
  return list.find((workspace) => workspace.id === workspaceId)?.role;
}

async function ownerCount(workspaceId: string): Promise<number> {
  const rows = await t.database.db.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', workspaceId).where('role', '=', 'owner').execute();
  return rows.length;
}

describe('personal workspaces', () => {
  test('sign-up and the operator each give the new user a personal workspace, as its owner', async () => {
    const signedUp = await signUp(t.app);
    const listed = (await send('GET', '/api/v1/workspaces', signedUp.bearer)).json();
    assert.equal(listed.workspaces.length, 1);
    assert.deepEqual(Object.keys(listed.workspaces[0]).sort(), ['created_at', 'id', 'name', 'personal', 'require_two_factor', 'review', 'role']);
    assert.equal(listed.workspaces[0].role, 'owner');
    assert.equal(listed.workspaces[0].personal, true);

    const operated = await createUserAsOperator(t, 'operated@example.com');
    const rows = await t.database.db
      .selectFrom('workspaces')
      .innerJoin('workspace_members', 'workspace_members.workspace_id', 'workspaces.id')
      .select(['workspaces.personal_user_id', 'workspace_members.role'])
      .where('workspace_members.user_id', '=', operated.id)
      .execute();
    assert.deepEqual(rows, [{ personal_user_id: operated.id, role: 'owner' }]);
  });

  test('a sign-up refused for a taken address leaves no workspace behind', async () => {
    const first = await signUp(t.app);
    const before = (await t.database.db.selectFrom('workspaces').select('id').execute()).length;
    const again = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { email: first.email, password: STRONG_PASSWORD } });
    assert.equal(again.statusCode, 409);
    assert.equal((await t.database.db.selectFrom('workspaces').select('id').execute()).length, before);
  });

  test('a site created without workspace_id lands in the personal workspace; with one, in that workspace', async () => {
    const owner = await signUp(t.app);
    const personal = (await send('GET', '/api/v1/workspaces', owner.bearer)).json().workspaces[0].id;
    const team = await createWorkspace(owner);
    const mine = await createSite(t.app, owner.bearer, { name: 'Mine' });
    // Ids are made from the clock: a later one lists after.
    t.clock.advance(1000);
    const shared = await createSite(t.app, owner.bearer, { name: 'Shared', workspace_id: team });
    assert.equal(mine.workspace_id, personal);
    assert.equal(shared.workspace_id, team);
    const filtered = (await send('GET', `/api/v1/sites?workspace_id=${team}`, owner.bearer)).json();
    assert.deepEqual(filtered.sites.map((site: { name: string }) => site.name), ['Shared']);
    const all = (await send('GET', '/api/v1/sites', owner.bearer)).json();
    assert.deepEqual(all.sites.map((site: { name: string }) => site.name), ['Mine', 'Shared']);
    const summaries = (await send('GET', `/api/v1/sites?fields=summary&workspace_id=${personal}`, owner.bearer)).json();
    assert.equal(summaries.total, 1);
    assert.equal(summaries.sites[0].workspace_id, personal);
  });

  test('workspace_id in a PUT is accepted and ignored: a site stays in its workspace', async () => {
    const owner = await signUp(t.app);
    const other = await signUp(t.app);
    const elsewhere = await createWorkspace(other);
    const site = await createSite(t.app, owner.bearer, { name: 'Stays' });
    const put = await send('PUT', `/api/v1/sites/${site.id}`, owner.bearer, { ...site, name: 'Still here', workspace_id: elsewhere });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().site.workspace_id, site.workspace_id);
    assertProblem(await send('GET', `/api/v1/sites/${site.id}`, other.bearer), 404, SITE_ERRORS.SITE_NOT_FOUND);
  });

  test('the personal workspace cannot be deleted, nor left or handed over by its own user', async () => {
    const owner = await signUp(t.app);
    const helper = await signUp(t.app);
    const personal = (await send('GET', '/api/v1/workspaces', owner.bearer)).json().workspaces[0].id;
    await addMember(personal, helper, 'owner');
    assertProblem(await send('DELETE', `/api/v1/workspaces/${personal}`, owner.bearer), 409, WORKSPACE_ERRORS.PERSONAL_WORKSPACE);
    assertProblem(await send('DELETE', `/api/v1/workspaces/${personal}/members/${owner.id}`, owner.bearer), 409, WORKSPACE_ERRORS.PERSONAL_WORKSPACE);
    assertProblem(await send('DELETE', `/api/v1/workspaces/${personal}/members/${owner.id}`, helper.bearer), 409, WORKSPACE_ERRORS.PERSONAL_WORKSPACE);
    assertProblem(await send('PATCH', `/api/v1/workspaces/${personal}/members/${owner.id}`, helper.bearer, { role: 'admin' }), 409, WORKSPACE_ERRORS.PERSONAL_WORKSPACE);
    assert.equal(await roleOf(personal, owner.bearer), 'owner');
    // The other owner may go.
    assert.equal((await send('DELETE', `/api/v1/workspaces/${personal}/members/${helper.id}`, helper.bearer)).statusCode, 204);
  });
});

describe('workspaces and members', () => {
  test('create, read, rename, list members, and delete with its sites', async () => {
    const owner = await signUp(t.app);
    const editor = await signUp(t.app);
    const created = await send('POST', '/api/v1/workspaces', owner.bearer, { name: '  Docs team  ' });
    assert.equal(created.statusCode, 201);
    const workspace = created.json().workspace;
    assert.equal(created.headers.location, `/api/v1/workspaces/${workspace.id}`);
    assert.deepEqual(workspace, { id: workspace.id, name: 'Docs team', role: 'owner', personal: false, require_two_factor: false, review: { required: false, approvals: 1 }, created_at: t.clock.now().toISOString() });
    // Members are listed in the order they joined.
    t.clock.advance(1000);
    await addMember(workspace.id, editor, 'editor');

    assert.deepEqual((await send('GET', `/api/v1/workspaces/${workspace.id}`, editor.bearer)).json().workspace, { ...workspace, role: 'editor' });
    const renamed = await send('PATCH', `/api/v1/workspaces/${workspace.id}`, owner.bearer, { name: 'Docs' });
    assert.equal(renamed.json().workspace.name, 'Docs');
    const members = (await send('GET', `/api/v1/workspaces/${workspace.id}/members`, editor.bearer)).json().members;
    assert.deepEqual(
      members.map((member: { user: { id: string; email: string }; role: string }) => [member.user.email, member.role]),
      [
        [owner.email, 'owner'],
        [editor.email, 'editor'],
      ],
    );
    assert.deepEqual(Object.keys(members[0]).sort(), ['joined_at', 'role', 'user']);
    assert.deepEqual(Object.keys(members[0].user).sort(), ['email', 'id', 'name']);

    const site = await createSite(t.app, editor.bearer, { name: 'Team site', workspace_id: workspace.id });
    // The editor read it, so it is held in the cache for them: the deletion must drop it.
    assert.equal((await send('GET', `/api/v1/sites/${site.id}`, editor.bearer)).statusCode, 200);
    assert.equal((await send('DELETE', `/api/v1/workspaces/${workspace.id}`, owner.bearer)).statusCode, 204);
    assertProblem(await send('GET', `/api/v1/sites/${site.id}`, editor.bearer), 404, SITE_ERRORS.SITE_NOT_FOUND);
    assertProblem(await send('GET', `/api/v1/workspaces/${workspace.id}`, owner.bearer), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    assert.equal((await t.database.db.selectFrom('sites').select('id').where('id', '=', site.id).execute()).length, 0);
    assert.equal((await t.database.db.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', workspace.id).execute()).length, 0);
    assert.equal(await roleOf(workspace.id, editor.bearer), undefined);
  });

  test('deleting a workspace and raising a member to owner or admin need a recent sign-in; other role changes do not', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    await addMember(workspace, member, 'viewer');
    t.clock.advance(t.config.reauthWindowSeconds * 1000 + 1000);
    assertProblem(await send('DELETE', `/api/v1/workspaces/${workspace}`, owner.bearer), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer, { role: 'owner' }), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assert.equal(await roleOf(workspace, owner.bearer), 'owner');
    assert.equal(await roleOf(workspace, member.bearer), 'viewer');
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer, { role: 'admin' }), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assert.equal((await send('PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer, { role: 'editor' })).statusCode, 200);
  });

  test('the last owner cannot leave or be demoted; with a second owner, either can', async () => {
    const first = await signUp(t.app);
    const second = await signUp(t.app);
    const admin = await signUp(t.app);
    const workspace = await createWorkspace(first);
    await addMember(workspace, admin, 'admin');
    assertProblem(await send('DELETE', `/api/v1/workspaces/${workspace}/members/${first.id}`, first.bearer), 409, WORKSPACE_ERRORS.LAST_OWNER);
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${first.id}`, first.bearer, { role: 'admin' }), 409, WORKSPACE_ERRORS.LAST_OWNER);
    // An admin can neither make an owner nor touch one.
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${admin.id}`, admin.bearer, { role: 'owner' }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await send('DELETE', `/api/v1/workspaces/${workspace}/members/${first.id}`, admin.bearer), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${first.id}`, admin.bearer, { role: 'viewer' }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);

    await addMember(workspace, second, 'viewer');
    const promoted = await send('PATCH', `/api/v1/workspaces/${workspace}/members/${second.id}`, first.bearer, { role: 'owner' });
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.deepEqual(promoted.json().member.user, { id: second.id, email: second.email, name: '' });
    assert.equal(promoted.json().member.role, 'owner');
    assert.equal((await send('PATCH', `/api/v1/workspaces/${workspace}/members/${first.id}`, first.bearer, { role: 'editor' })).statusCode, 200);
    assertProblem(await send('DELETE', `/api/v1/workspaces/${workspace}/members/${second.id}`, second.bearer), 409, WORKSPACE_ERRORS.LAST_OWNER);
    assert.equal(await ownerCount(workspace), 1);
    // The editor that was an owner now manages nothing.
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${admin.id}`, first.bearer, { role: 'viewer' }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    // Anyone may leave.
    assert.equal((await send('DELETE', `/api/v1/workspaces/${workspace}/members/${first.id}`, first.bearer)).statusCode, 204);
    assertProblem(await send('GET', `/api/v1/workspaces/${workspace}`, first.bearer), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
  });

  test('an admin manages members below owner, up to admin', async () => {
    const owner = await signUp(t.app);
    const admin = await signUp(t.app);
    const viewer = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    await addMember(workspace, admin, 'admin');
    await addMember(workspace, viewer, 'viewer');
    assert.equal((await send('PATCH', `/api/v1/workspaces/${workspace}/members/${viewer.id}`, admin.bearer, { role: 'admin' })).statusCode, 200);
    assert.equal((await send('PATCH', `/api/v1/workspaces/${workspace}/members/${viewer.id}`, admin.bearer, { role: 'editor' })).statusCode, 200);
    assert.equal(await roleOf(workspace, viewer.bearer), 'editor');
    assert.equal((await send('DELETE', `/api/v1/workspaces/${workspace}/members/${viewer.id}`, admin.bearer)).statusCode, 204);
    assert.equal(await roleOf(workspace, viewer.bearer), undefined);
    assertProblem(await send('DELETE', `/api/v1/workspaces/${workspace}/members/${viewer.id}`, admin.bearer), 404, WORKSPACE_ERRORS.MEMBER_NOT_FOUND);
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${viewer.id}`, admin.bearer, { role: 'viewer' }), 404, WORKSPACE_ERRORS.MEMBER_NOT_FOUND);
  });

  test("another user's ids: workspaces, members and sites of a workspace one is not in are 404", async () => {
    const owner = await signUp(t.app);
    const outsider = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    const site = await createSite(t.app, owner.bearer, { name: 'Private', workspace_id: workspace });
    const outsiderPersonal = (await send('GET', '/api/v1/workspaces', outsider.bearer)).json().workspaces[0].id;
    const notFound: Array<[Method, string, unknown?]> = [
      ['GET', `/api/v1/workspaces/${workspace}`],
      ['PATCH', `/api/v1/workspaces/${workspace}`, { name: 'Mine now' }],
      ['DELETE', `/api/v1/workspaces/${workspace}`],
      ['GET', `/api/v1/workspaces/${workspace}/members`],
      ['PATCH', `/api/v1/workspaces/${workspace}/members/${owner.id}`, { role: 'viewer' }],
      ['PATCH', `/api/v1/workspaces/${workspace}/members/${outsider.id}`, { role: 'owner' }],
      ['DELETE', `/api/v1/workspaces/${workspace}/members/${owner.id}`],
      ['DELETE', `/api/v1/workspaces/${workspace}/members/${outsider.id}`],
      ['GET', `/api/v1/sites?workspace_id=${workspace}`],
      ['GET', `/api/v1/sites?workspace_id=${workspace}&sort=name`],
      ['POST', '/api/v1/sites', { name: 'Planted', workspace_id: workspace }],
    ];
    for (const [method, url, payload] of notFound) assertProblem(await send(method, url, outsider.bearer, payload), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    for (const [method, url, payload] of [
      ['GET', `/api/v1/sites/${site.id}`],
      ['PUT', `/api/v1/sites/${site.id}`, { name: 'Taken' }],
      ['DELETE', `/api/v1/sites/${site.id}`],
      ['GET', `/api/v1/sites/${site.id}/partner/checks`],
      ['POST', `/api/v1/sites/${site.id}/partner/check`],
      ['POST', `/api/v1/sites/${site.id}/partner/test`, { partner_settings: {} }],
    ] as Array<[Method, string, unknown?]>) {
      assertProblem(await send(method, url, outsider.bearer, payload), 404, SITE_ERRORS.SITE_NOT_FOUND);
    }
    // The owner's member id in the outsider's own workspace is no member there.
    assertProblem(await send('DELETE', `/api/v1/workspaces/${outsiderPersonal}/members/${owner.id}`, outsider.bearer), 404, WORKSPACE_ERRORS.MEMBER_NOT_FOUND);
    assert.deepEqual((await send('GET', '/api/v1/sites', outsider.bearer)).json().sites, []);
    assert.equal((await send('GET', `/api/v1/sites/${site.id}`, owner.bearer)).json().site.name, 'Private');
    assert.equal(await roleOf(workspace, owner.bearer), 'owner');
    assert.equal(await ownerCount(workspace), 1);
  });

  test('access tokens reach sites by their user\'s role, and no workspace route', async () => {
    const owner = await signUp(t.app);
    const viewer = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    await addMember(workspace, viewer, 'viewer');
    const site = await createSite(t.app, owner.bearer, { name: 'Read only for some', workspace_id: workspace });
    const pat = await createAccessToken(t.app, viewer);
    assert.equal((await send('GET', `/api/v1/sites/${site.id}`, pat.header)).statusCode, 200);
    assertProblem(await send('PUT', `/api/v1/sites/${site.id}`, pat.header, { name: 'No' }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    for (const [method, url, payload] of [
      ['GET', '/api/v1/workspaces'],
      ['POST', '/api/v1/workspaces', { name: 'By token' }],
      ['GET', `/api/v1/workspaces/${workspace}`],
      ['GET', `/api/v1/workspaces/${workspace}/members`],
      ['DELETE', `/api/v1/workspaces/${workspace}/members/${viewer.id}`],
      ['DELETE', `/api/v1/workspaces/${workspace}`],
    ] as Array<[Method, string, unknown?]>) {
      assertProblem(await send(method, url, pat.header, payload), 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
    }
    assert.equal(await roleOf(workspace, viewer.bearer), 'viewer');
  });

  test('bad input of every shape is 400 naming the field, never a 500', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    await addMember(workspace, member, 'viewer');
    const cases: Array<[Method, string, unknown, string]> = [
      ['POST', '/api/v1/workspaces', {}, '/name'],
      ['POST', '/api/v1/workspaces', { name: '' }, '/name'],
      ['POST', '/api/v1/workspaces', { name: '    ' }, '/name'],
      ['POST', '/api/v1/workspaces', { name: 'x'.repeat(101) }, '/name'],
      ['POST', '/api/v1/workspaces', { name: 42 }, '/name'],
      ['POST', '/api/v1/workspaces', { name: 'ok', personal: true }, '/personal'],
      ['PATCH', `/api/v1/workspaces/${workspace}`, { name: null }, '/name'],
      ['PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, { role: 'superuser' }, '/role'],
      ['PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, { role: 'Owner' }, '/role'],
      ['PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, {}, '/role'],
      ['PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, { role: ['owner'] }, '/role'],
      ['POST', '/api/v1/sites', { name: 'x', workspace_id: 7 }, '/workspace_id'],
      ['POST', '/api/v1/sites', { name: 'x', workspace_id: 'w'.repeat(65) }, '/workspace_id'],
    ];
    for (const [method, url, payload, path] of cases) {
      const response = await send(method, url, owner.bearer, payload);
      assertProblem(response, 400, 'validation_failed');
      assert.equal(response.json().errors[0].path, path, `${method} ${url} ${JSON.stringify(payload)}: ${response.body}`);
    }
    const longId = 'a'.repeat(65);
    assertProblem(await send('GET', `/api/v1/workspaces/${longId}`, owner.bearer), 400, 'validation_failed');
    assertProblem(await send('GET', `/api/v1/sites?workspace_id=${longId}`, owner.bearer), 400, 'validation_failed');
    // An id of another shape than the API's ids names nothing, and is refused before any query.
    for (const odd of ['not-a-uuid', "'; drop table workspaces; --", '%00', '\u0000', '.x']) {
      const id = encodeURIComponent(odd);
      assertProblem(await send('GET', `/api/v1/workspaces/${id}`, owner.bearer), 400, 'validation_failed');
      assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${id}`, owner.bearer, { role: 'viewer' }), 400, 'validation_failed');
    }
    const unknown = '0190d6a0-0000-7000-8000-000000000000';
    assertProblem(await send('GET', `/api/v1/workspaces/${unknown}`, owner.bearer), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    assertProblem(await send('PATCH', `/api/v1/workspaces/${workspace}/members/${unknown}`, owner.bearer, { role: 'viewer' }), 404, WORKSPACE_ERRORS.MEMBER_NOT_FOUND);
    assert.equal(await roleOf(workspace, member.bearer), 'viewer');
  });
});

describe('changes take effect at once on this server', () => {
  test('a removed member, kept in the cache with the site and the list, is refused at the next request', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    await addMember(workspace, member, 'editor');
    const site = await createSite(t.app, owner.bearer, { name: 'Shared', workspace_id: workspace });
    const pat = await createAccessToken(t.app, member);
    for (const authorization of [member.bearer, pat.header]) {
      for (let i = 0; i < 2; i++) {
        assert.equal((await send('GET', `/api/v1/sites/${site.id}`, authorization)).statusCode, 200);
        assert.deepEqual((await send('GET', '/api/v1/sites', authorization)).json().sites.map((s: { id: string }) => s.id), [site.id]);
        assert.equal((await send('GET', `/api/v1/sites?workspace_id=${workspace}&fields=summary`, authorization)).json().total, 1);
      }
    }
    assert.ok(t.cache.size > 0, 'answers are held');
    assert.equal((await send('DELETE', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer)).statusCode, 204);
    for (const authorization of [member.bearer, pat.header]) {
      assertProblem(await send('GET', `/api/v1/sites/${site.id}`, authorization), 404, SITE_ERRORS.SITE_NOT_FOUND);
      assert.deepEqual((await send('GET', '/api/v1/sites', authorization)).json().sites, []);
      assertProblem(await send('GET', `/api/v1/sites?workspace_id=${workspace}&fields=summary`, authorization), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
      assertProblem(await send('PUT', `/api/v1/sites/${site.id}`, authorization, { name: 'Too late' }), 404, SITE_ERRORS.SITE_NOT_FOUND);
    }
  });

  test('a lowered role is refused at the next write; a new membership shows its sites at once', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    const site = await createSite(t.app, owner.bearer, { name: 'Team', workspace_id: workspace });
    // Held before the member joins: the join must drop the list.
    assert.deepEqual((await send('GET', '/api/v1/sites', member.bearer)).json().sites, []);
    await addMember(workspace, member, 'editor');
    assert.deepEqual((await send('GET', '/api/v1/sites', member.bearer)).json().sites.map((s: { id: string }) => s.id), [site.id]);
    assert.equal((await send('PUT', `/api/v1/sites/${site.id}`, member.bearer, { name: 'Edited' })).statusCode, 200);
    assert.equal((await send('PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer, { role: 'viewer' })).statusCode, 200);
    assertProblem(await send('PUT', `/api/v1/sites/${site.id}`, member.bearer, { name: 'Again' }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await send('POST', `/api/v1/sites/${site.id}/partner/test`, member.bearer, { partner_settings: {} }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assert.equal((await send('GET', `/api/v1/sites/${site.id}`, member.bearer)).json().site.name, 'Edited');
    assert.equal(await roleOf(workspace, member.bearer), 'viewer');
  });
});

describe('parallel changes', () => {
  test('owners demoting and removing each other at once never leave the workspace without an owner', async () => {
    const founder = await signUp(t.app);
    const workspace = await createWorkspace(founder);
    const owners = [founder];
    for (let i = 0; i < 4; i++) {
      const owner = await signUp(t.app);
      await addMember(workspace, owner, 'owner');
      owners.push(owner);
    }
    // Every owner demotes itself and removes the next one, all at once.
    const requests = owners.flatMap((owner, i) => {
      const next = owners[(i + 1) % owners.length] ?? founder;
      return [
        send('PATCH', `/api/v1/workspaces/${workspace}/members/${owner.id}`, owner.bearer, { role: 'viewer' }),
        send('DELETE', `/api/v1/workspaces/${workspace}/members/${next.id}`, owner.bearer),
      ];
    });
    const answers = await Promise.all(requests);
    for (const answer of answers) assert.ok([200, 204, 403, 404, 409].includes(answer.statusCode), `${answer.statusCode} ${answer.body}`);
    assert.ok(answers.some((answer) => answer.statusCode === 409), 'some change was refused to keep an owner');
    assert.equal(await ownerCount(workspace), 1);
    const remaining = await t.database.db.selectFrom('workspace_members').select(['user_id', 'role']).where('workspace_id', '=', workspace).execute();
    assert.ok(remaining.length >= 1);
  });

  test('role changes, site creations, updates and deletions at once never fail with a server error', async () => {
    const owner = await signUp(t.app);
    const members = [await signUp(t.app), await signUp(t.app)];
    const workspace = await createWorkspace(owner);
    for (const member of members) await addMember(workspace, member, 'admin');
    const sites = [];
    for (let i = 0; i < 4; i++) sites.push(await createSite(t.app, owner.bearer, { name: `Busy ${i}`, workspace_id: workspace }));
    const requests: Array<Promise<LightMyRequestResponse>> = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, member] of members.entries()) {
        requests.push(send('PATCH', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer, { role: round % 2 === 0 ? 'editor' : 'admin' }));
        requests.push(send('POST', '/api/v1/sites', member.bearer, { name: `Made ${round}-${i}`, workspace_id: workspace }));
        requests.push(send('PUT', `/api/v1/sites/${sites[(round + i) % sites.length]?.id}`, member.bearer, { ai_settings: `round ${round}` }));
      }
    }
    requests.push(send('DELETE', `/api/v1/sites/${sites[0]?.id}`, members[0]?.bearer ?? ''));
    const answers = await Promise.all(requests);
    for (const answer of answers) assert.ok(answer.statusCode < 500, `${answer.statusCode} ${answer.body}`);
    assert.ok(answers.filter((answer) => answer.statusCode === 201).length > 0);
    assert.equal(await ownerCount(workspace), 1);
  });

  test('a workspace deleted while its members create and update sites: no server error, and no site outlives it', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    await addMember(workspace, member, 'editor');
    const site = await createSite(t.app, owner.bearer, { name: 'Doomed', workspace_id: workspace });
    const requests: Array<Promise<LightMyRequestResponse>> = [];
    for (let i = 0; i < 8; i++) {
      requests.push(send('POST', '/api/v1/sites', member.bearer, { name: `Late ${i}`, workspace_id: workspace }));
      requests.push(send('PUT', `/api/v1/sites/${site.id}`, member.bearer, { name: `Late ${i}` }));
      if (i === 3) requests.push(send('DELETE', `/api/v1/workspaces/${workspace}`, owner.bearer));
    }
    const answers = await Promise.all(requests);
    for (const answer of answers) assert.ok(answer.statusCode < 500, `${answer.statusCode} ${answer.body}`);
    assert.equal((await t.database.db.selectFrom('sites').select('id').where('workspace_id', '=', workspace).execute()).length, 0);
    assert.equal((await t.database.db.selectFrom('workspaces').select('id').where('id', '=', workspace).execute()).length, 0);
  });

  test('the last two owners leaving at once: exactly one of them leaves', async () => {
    const first = await signUp(t.app);
    const second = await signUp(t.app);
    const workspace = await createWorkspace(first);
    await addMember(workspace, second, 'owner');
    const answers = await Promise.all([
      send('DELETE', `/api/v1/workspaces/${workspace}/members/${first.id}`, first.bearer),
      send('DELETE', `/api/v1/workspaces/${workspace}/members/${second.id}`, second.bearer),
    ]);
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [204, 409]);
    assert.equal(await ownerCount(workspace), 1);
  });
});

describe('access tokens limited to a workspace', () => {
  test('reach that workspace alone, with their user\'s role, and go with it', async () => {
    const owner = await signUp(t.app);
    const personal = (await send('GET', '/api/v1/workspaces', owner.bearer)).json().workspaces[0].id;
    const team = await createWorkspace(owner);
    const mine = await createSite(t.app, owner.bearer, { name: 'Personal site' });
    const shared = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: team });
    const created = await send('POST', '/api/v1/access-tokens', owner.bearer, { name: 'team only', workspace_id: team });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().access_token.workspace_id, team);
    const scoped = `Token ${created.json().access_token.token}`;
    // The user's own answers are held first: the token must not be given them.
    assert.equal((await send('GET', `/api/v1/sites/${mine.id}`, owner.bearer)).statusCode, 200);
    assert.equal((await send('GET', '/api/v1/sites', owner.bearer)).json().sites.length, 2);

    assert.equal((await send('GET', `/api/v1/sites/${shared.id}`, scoped)).statusCode, 200);
    assert.deepEqual((await send('GET', '/api/v1/sites', scoped)).json().sites.map((site: { id: string }) => site.id), [shared.id]);
    assert.equal((await send('GET', '/api/v1/sites?fields=summary', scoped)).json().total, 1);
    for (const [method, url, payload] of [
      ['GET', `/api/v1/sites/${mine.id}`],
      ['PUT', `/api/v1/sites/${mine.id}`, { name: 'Reached' }],
      ['DELETE', `/api/v1/sites/${mine.id}`],
      ['GET', `/api/v1/sites/${mine.id}/partner/checks`],
      ['POST', `/api/v1/sites/${mine.id}/partner/test`, { partner_settings: {} }],
    ] as Array<[Method, string, unknown?]>) {
      assertProblem(await send(method, url, scoped, payload), 404, SITE_ERRORS.SITE_NOT_FOUND);
    }
    assertProblem(await send('GET', `/api/v1/sites?workspace_id=${personal}`, scoped), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    assertProblem(await send('POST', '/api/v1/sites', scoped, { name: 'Elsewhere', workspace_id: personal }), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    const made = await send('POST', '/api/v1/sites', scoped, { name: 'Made by the token' });
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(made.json().site.workspace_id, team);
    assert.equal((await send('GET', `/api/v1/sites/${mine.id}`, owner.bearer)).json().site.name, 'Personal site');

    assert.equal((await send('DELETE', `/api/v1/workspaces/${team}`, owner.bearer)).statusCode, 204);
    assertProblem(await send('GET', '/api/v1/sites', scoped), 401, AUTH_ERRORS.INVALID_TOKEN);
    const listed = (await send('GET', '/api/v1/access-tokens', owner.bearer)).json().access_tokens;
    assert.equal(listed.length, 0);
  });

  test('a token for a workspace one is not in is refused, and one made before a demotion writes nothing after it', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const team = await createWorkspace(owner);
    const site = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: team });
    assertProblem(await send('POST', '/api/v1/access-tokens', member.bearer, { name: 'not mine', workspace_id: team }), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    const bad = await send('POST', '/api/v1/access-tokens', member.bearer, { name: 'odd', workspace_id: 5 });
    assertProblem(bad, 400, 'validation_failed');
    await addMember(team, member, 'editor');
    const created = await send('POST', '/api/v1/access-tokens', member.bearer, { name: 'editor token', workspace_id: team });
    assert.equal(created.statusCode, 201, created.body);
    const scoped = `Token ${created.json().access_token.token}`;
    assert.equal((await send('PUT', `/api/v1/sites/${site.id}`, scoped, { name: 'By token' })).statusCode, 200);
    assert.equal((await send('PATCH', `/api/v1/workspaces/${team}/members/${member.id}`, owner.bearer, { role: 'viewer' })).statusCode, 200);
    assertProblem(await send('PUT', `/api/v1/sites/${site.id}`, scoped, { name: 'Again' }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assert.equal((await send('DELETE', `/api/v1/workspaces/${team}/members/${member.id}`, owner.bearer)).statusCode, 204);
    assertProblem(await send('GET', `/api/v1/sites/${site.id}`, scoped), 404, SITE_ERRORS.SITE_NOT_FOUND);
    assert.deepEqual((await send('GET', '/api/v1/sites', scoped)).json().sites, []);
  });
});

describe('limits and web sessions', () => {
  test(`one can be in at most ${MAX_WORKSPACES_PER_USER} workspaces`, async () => {
    const user = await signUp(t.app);
    // The personal workspace counts: it is one of them.
    for (let i = 1; i < MAX_WORKSPACES_PER_USER; i++) await createWorkspace(user, `Team ${i}`);
    assertProblem(await send('POST', '/api/v1/workspaces', user.bearer, { name: 'One too many' }), 409, WORKSPACE_ERRORS.TOO_MANY_WORKSPACES);
    assert.equal((await send('GET', '/api/v1/workspaces', user.bearer)).json().workspaces.length, MAX_WORKSPACES_PER_USER);
  });

  test('a web session manages workspaces from the dashboard\'s origin only, and loses a removed membership at once', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const signIn = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: 'http://localhost:3000' }, payload: { email: member.email, password: STRONG_PASSWORD } });
    assert.equal(signIn.statusCode, 200, signIn.body);
    const cookie = sessionCookie(signIn.headers['set-cookie'])?.header ?? '';
    const asMember = (method: Method, url: string, payload?: unknown, origin?: string) =>
      t.app.inject({ method, url, headers: { cookie, ...(origin === undefined ? {} : { origin }) }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
    assertProblem(await asMember('POST', '/api/v1/workspaces', { name: 'Forged' }, 'https://evil.example'), 403, AUTH_ERRORS.CROSS_SITE_REQUEST);
    assert.equal((await asMember('POST', '/api/v1/workspaces', { name: 'Mine' }, 'http://localhost:3000')).statusCode, 201);

    const workspace = await createWorkspace(owner);
    const site = await createSite(t.app, owner.bearer, { name: 'Shared', workspace_id: workspace });
    assert.equal((await asMember('GET', `/api/v1/sites/${site.id}`)).statusCode, 404);
    await addMember(workspace, member, 'viewer');
    assert.equal((await asMember('GET', `/api/v1/sites/${site.id}`)).statusCode, 200);
    assert.equal((await asMember('GET', `/api/v1/sites?workspace_id=${workspace}`)).statusCode, 200);
    assert.equal((await send('DELETE', `/api/v1/workspaces/${workspace}/members/${member.id}`, owner.bearer)).statusCode, 204);
    assertProblem(await asMember('GET', `/api/v1/sites/${site.id}`), 404, SITE_ERRORS.SITE_NOT_FOUND);
    assertProblem(await asMember('GET', `/api/v1/sites?workspace_id=${workspace}`), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
  });
});
