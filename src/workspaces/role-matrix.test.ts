import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, createSite, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { PERMISSIONS, WORKSPACE_ROLES, type WorkspaceAction, type WorkspaceRole } from '../memberships/permissions.js';
import { WorkspaceService } from './service.js';

/**
 * Every workspace and site route, asked by a member of each role and by someone who is not a
 * member, against real HTTP answers. What each may do is read from the permission table itself,
 * so the table and the routes cannot drift apart.
 */

let t: TestApp;
beforeEach(async () => {
  // Webhooks point at a closed port on loopback: allowed, and never answered.
  t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
afterEach(async () => {
  await t.close();
});

type Actor = WorkspaceRole | 'outsider';
const ACTORS: readonly Actor[] = [...WORKSPACE_ROLES, 'outsider'];

interface Team {
  workspace: string;
  /** The user acting in each role, and one in none. */
  actors: Record<Actor, SignedUpUser>;
  /** A viewer nobody acts as: the subject of member changes. */
  subject: SignedUpUser;
  site: string;
  /** A site of the workspace in its trash. */
  trashed: string;
  /** A pending invitation of the workspace: the subject of revocations. */
  invitation: string;
  /** A webhook of the workspace. */
  webhook: string;
  /** An open change request on the site, proposed by the editor. */
  changeRequest: string;
}

interface Route {
  action: WorkspaceAction;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The success status. */
  status: number;
  /** Whether a site route (its 404 is site_not_found) or a workspace route (workspace_not_found). */
  kind: 'site' | 'workspace';
  url(team: Team): string;
  payload?(team: Team): Record<string, unknown>;
  /** Asked while the workspace requires review of changes. */
  underReview?: true;
}

const ROUTES: Route[] = [
  { action: 'workspace.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}` },
  { action: 'workspace.update', method: 'PATCH', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}`, payload: () => ({ name: 'Renamed' }) },
  { action: 'workspace.delete', method: 'DELETE', status: 204, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}` },
  { action: 'member.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/members` },
  {
    action: 'member.manage',
    method: 'PATCH',
    status: 200,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}/members/${team.subject.id}`,
    payload: () => ({ role: 'editor' }),
  },
  { action: 'member.manage', method: 'DELETE', status: 204, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/members/${team.subject.id}` },
  {
    action: 'owner.grant',
    method: 'PATCH',
    status: 200,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}/members/${team.subject.id}`,
    payload: () => ({ role: 'owner' }),
  },
  { action: 'invitation.manage', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/invitations` },
  { action: 'audit.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/audit-log` },
  {
    action: 'invitation.manage',
    method: 'POST',
    status: 201,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}/invitations`,
    payload: () => ({ email: 'invited@example.com', role: 'editor' }),
  },
  { action: 'invitation.manage', method: 'DELETE', status: 204, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/invitations/${team.invitation}` },
  {
    action: 'owner.grant',
    method: 'POST',
    status: 201,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}/invitations`,
    payload: () => ({ email: 'invited-owner@example.com', role: 'owner' }),
  },
  { action: 'site.read', method: 'GET', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}` },
  { action: 'site.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/sites?workspace_id=${team.workspace}` },
  { action: 'site.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/sites?workspace_id=${team.workspace}&fields=summary&sort=-name` },
  { action: 'site.create', method: 'POST', status: 201, kind: 'workspace', url: () => '/api/v1/sites', payload: (team) => ({ name: 'New', workspace_id: team.workspace }) },
  { action: 'site.update', method: 'PUT', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}`, payload: () => ({ name: 'Changed' }) },
  { action: 'site.read', method: 'GET', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/versions` },
  { action: 'site.read', method: 'GET', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/versions/1` },
  { action: 'site.update', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/versions/1/restore` },
  { action: 'site.delete', method: 'DELETE', status: 204, kind: 'site', url: (team) => `/api/v1/sites/${team.site}` },
  { action: 'site.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/trash?workspace_id=${team.workspace}` },
  { action: 'site.delete', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/trash/${team.trashed}/restore` },
  { action: 'webhook.manage', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks` },
  {
    action: 'webhook.manage',
    method: 'POST',
    status: 201,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks`,
    payload: () => ({ url: 'http://127.0.0.1:9/other', events: ['site.created'] }),
  },
  { action: 'webhook.manage', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks/${team.webhook}` },
  {
    action: 'webhook.manage',
    method: 'PATCH',
    status: 200,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks/${team.webhook}`,
    payload: () => ({ description: 'Changed' }),
  },
  { action: 'webhook.manage', method: 'POST', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks/${team.webhook}/rotate-secret` },
  { action: 'webhook.manage', method: 'POST', status: 202, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks/${team.webhook}/test` },
  { action: 'webhook.manage', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks/${team.webhook}/deliveries` },
  { action: 'webhook.manage', method: 'DELETE', status: 204, kind: 'workspace', url: (team) => `/api/v1/workspaces/${team.workspace}/webhooks/${team.webhook}` },
  {
    action: 'review.manage',
    method: 'PATCH',
    status: 200,
    kind: 'workspace',
    url: (team) => `/api/v1/workspaces/${team.workspace}`,
    payload: () => ({ review: { required: false, approvals: 2 } }),
  },
  {
    action: 'change_request.open',
    method: 'POST',
    status: 201,
    kind: 'site',
    url: (team) => `/api/v1/sites/${team.site}/change-requests`,
    payload: () => ({ title: 'Proposal', changes: { ai_settings: 'proposed' } }),
  },
  {
    action: 'change_request.open',
    method: 'POST',
    status: 200,
    kind: 'site',
    url: (team) => `/api/v1/sites/${team.site}/change-requests/${team.changeRequest}/comments`,
    payload: () => ({ body: 'A comment' }),
  },
  { action: 'change_request.review', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/change-requests/${team.changeRequest}/approve` },
  { action: 'change_request.review', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/change-requests/${team.changeRequest}/decline`, payload: () => ({}) },
  { action: 'site.read', method: 'GET', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/change-requests/${team.changeRequest}` },
  { action: 'site.read', method: 'GET', status: 200, kind: 'workspace', url: (team) => `/api/v1/change-requests?workspace_id=${team.workspace}` },
  { action: 'site.read', method: 'GET', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/install` },
  { action: 'site.update', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/public-key/rotate` },
  { action: 'public_key.rotate_under_review', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/public-key/rotate`, underReview: true },
  { action: 'partner.read', method: 'GET', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/partner/checks` },
  { action: 'partner.check', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/partner/check` },
  { action: 'partner.check', method: 'POST', status: 200, kind: 'site', url: (team) => `/api/v1/sites/${team.site}/partner/test`, payload: () => ({ partner_settings: {} }) },
];

const service = () => new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });

async function signUpActors(): Promise<{ actors: Record<Actor, SignedUpUser>; subject: SignedUpUser }> {
  const actors = {} as Record<Actor, SignedUpUser>;
  for (const actor of ACTORS) actors[actor] = await signUp(t.app);
  // Inviting needs a verified address; that rule has its own tests (invitations.test.ts).
  await t.database.db.updateTable('users').set({ email_verified_at: t.clock.now().toISOString() }).execute();
  return { actors, subject: await signUp(t.app) };
}

/** A fresh workspace, its members in every role, and a site: each request meets the same state. */
async function newTeam(people: { actors: Record<Actor, SignedUpUser>; subject: SignedUpUser }, underReview = false): Promise<Team> {
  const { actors, subject } = people;
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: actors.owner.bearer }, payload: { name: 'Matrix' } });
  assert.equal(created.statusCode, 201);
  const workspace = created.json<{ workspace: { id: string } }>().workspace.id;
  for (const role of WORKSPACE_ROLES) if (role !== 'owner') await service().addMember(workspace, actors[role].id, role);
  await service().addMember(workspace, subject.id, 'viewer');
  const site = await createSite(t.app, actors.owner.bearer, { name: 'Matrix site', workspace_id: workspace });
  const trashed = await createSite(t.app, actors.owner.bearer, { name: 'Trashed site', workspace_id: workspace });
  assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${trashed.id}`, headers: { authorization: actors.owner.bearer } })).statusCode, 204);
  const invited = await t.app.inject({
    method: 'POST',
    url: `/api/v1/workspaces/${workspace}/invitations`,
    headers: { authorization: actors.owner.bearer },
    payload: { email: 'pending@example.com', role: 'viewer' },
  });
  assert.equal(invited.statusCode, 201, invited.body);
  const webhook = await t.app.inject({
    method: 'POST',
    url: `/api/v1/workspaces/${workspace}/webhooks`,
    headers: { authorization: actors.owner.bearer },
    payload: { url: 'http://127.0.0.1:9/', events: ['site.updated'] },
  });
  assert.equal(webhook.statusCode, 201, webhook.body);
  const proposed = await t.app.inject({
    method: 'POST',
    url: `/api/v1/sites/${site.id}/change-requests`,
    headers: { authorization: actors.editor.bearer },
    payload: { title: 'Open request', changes: { widget: 'proposed' } },
  });
  assert.equal(proposed.statusCode, 201, proposed.body);
  if (underReview) {
    const policy = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspace}`, headers: { authorization: actors.owner.bearer }, payload: { review: { required: true } } });
    assert.equal(policy.statusCode, 200, policy.body);
  }
  return {
    workspace,
    actors,
    subject,
    site: site.id,
    trashed: trashed.id,
    invitation: invited.json<{ invitation: { id: string } }>().invitation.id,
    webhook: webhook.json<{ webhook: { id: string } }>().webhook.id,
    changeRequest: proposed.json<{ change_request: { id: string } }>().change_request.id,
  };
}

function expectAnswer(route: Route, actor: Actor, response: LightMyRequestResponse): void {
  const what = `${actor} ${route.method} ${route.url({ workspace: '{id}', site: '{site}', subject: { id: '{user}' } } as unknown as Team)}`;
  if (actor === 'outsider') {
    assert.equal(response.statusCode, 404, `${what}: ${response.body}`);
    assert.equal(response.json().code, route.kind === 'site' ? SITE_ERRORS.SITE_NOT_FOUND : WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND, what);
  } else if (PERMISSIONS[route.action].includes(actor)) {
    assert.equal(response.statusCode, route.status, `${what}: ${response.body}`);
  } else {
    assert.equal(response.statusCode, 403, `${what}: ${response.body}`);
    assert.equal(response.json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE, what);
  }
}

for (const route of ROUTES) {
  test(`${route.method} ${route.url({ workspace: '{id}', site: '{site}', subject: { id: '{user_id}' } } as unknown as Team)} (${route.action}): allowed to ${PERMISSIONS[route.action].join(', ')}; 403 to other members; 404 to others`, async () => {
    const people = await signUpActors();
    for (const actor of ACTORS) {
      const team = await newTeam(people, route.underReview === true);
      const response = await t.app.inject({
        method: route.method,
        url: route.url(team),
        headers: { authorization: team.actors[actor].bearer },
        ...(route.payload === undefined ? {} : { payload: route.payload(team) }),
      });
      expectAnswer(route, actor, response);
      // A refused request changed nothing: the workspace, its site and its members are all there.
      if (response.statusCode >= 400) {
        const site = await t.database.db.selectFrom('sites').select(['name', 'deleted_at']).where('id', '=', team.site).executeTakeFirst();
        assert.deepEqual(site, { name: 'Matrix site', deleted_at: null });
        const trashed = await t.database.db.selectFrom('sites').select('deleted_at').where('id', '=', team.trashed).executeTakeFirst();
        assert.notEqual(trashed?.deleted_at ?? null, null, 'the trashed site is still in the trash');
        const members = await t.database.db.selectFrom('workspace_members').select(['user_id', 'role']).where('workspace_id', '=', team.workspace).execute();
        assert.equal(members.length, WORKSPACE_ROLES.length + 1);
        assert.ok(members.some((member) => member.user_id === team.subject.id && member.role === 'viewer'));
        const workspace = await t.database.db.selectFrom('workspaces').select('name').where('id', '=', team.workspace).executeTakeFirst();
        assert.equal(workspace?.name, 'Matrix');
        const invitations = await t.database.db.selectFrom('invitations').select('email').where('workspace_id', '=', team.workspace).where('revoked_at', 'is', null).execute();
        assert.deepEqual(invitations, [{ email: 'pending@example.com' }]);
        const requests = await t.database.db.selectFrom('change_requests').select(['status', 'title']).where('site_id', '=', team.site).execute();
        assert.deepEqual(requests, [{ status: 'open', title: 'Open request' }]);
        const reviewed = await t.database.db.selectFrom('workspaces').select(['review_required', 'review_approvals']).where('id', '=', team.workspace).executeTakeFirst();
        assert.deepEqual(reviewed, { review_required: route.underReview === true ? 1 : 0, review_approvals: 1 });
        const webhooks = await t.database.db.selectFrom('webhooks').select(['url', 'description']).where('workspace_id', '=', team.workspace).execute();
        assert.deepEqual(webhooks, [{ url: 'http://127.0.0.1:9/', description: '' }]);
      }
    }
  });
}

test('every action of the permission table is exercised by some route above', () => {
  const covered = new Set(ROUTES.map((route) => route.action));
  const untested = Object.keys(PERMISSIONS).filter((action) => !covered.has(action as WorkspaceAction));
  assert.deepEqual(untested, []);
});
