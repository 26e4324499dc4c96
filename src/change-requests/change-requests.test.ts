import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, createAccessToken, createSite, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { HTTP_ERRORS } from '../http/errors.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { CHANGE_REQUEST_ERRORS } from './errors.js';
import type { ChangeRequestJson } from './schema.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

type Person = 'owner' | 'admin' | 'reviewer' | 'author' | 'editor' | 'viewer' | 'outsider';

interface Team {
  workspace: string;
  site: string;
  people: Record<Person, SignedUpUser>;
}

/** A workspace with a member in each role (two admins: one reviews, one is a spare), and a site. */
async function newTeam(review: { required: boolean; approvals: number } = { required: true, approvals: 1 }): Promise<Team> {
  const people = {} as Record<Person, SignedUpUser>;
  for (const person of ['owner', 'admin', 'reviewer', 'author', 'editor', 'viewer', 'outsider'] as const) people[person] = await signUp(t.app);
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: people.owner.bearer }, payload: { name: 'Review' } });
  const workspace = created.json<{ workspace: { id: string } }>().workspace.id;
  const members = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  const roles = { admin: 'admin', reviewer: 'admin', author: 'editor', editor: 'editor', viewer: 'viewer' } as const;
  for (const [person, role] of Object.entries(roles)) await members.addMember(workspace, people[person as keyof typeof roles].id, role);
  const site = await createSite(t.app, people.owner.bearer, { name: 'Help centre', workspace_id: workspace });
  const policy = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspace}`, headers: { authorization: people.owner.bearer }, payload: { review } });
  assert.equal(policy.statusCode, 200, policy.body);
  return { workspace, site: site.id, people };
}

function call(authorization: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) });
}

async function propose(team: Team, changes: Record<string, unknown>, by: Person = 'author'): Promise<ChangeRequestJson> {
  const response = await call(team.people[by].bearer, 'POST', `/api/v1/sites/${team.site}/change-requests`, { title: 'Friendlier greeting', description: 'As discussed', changes });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ change_request: ChangeRequestJson }>().change_request;
}

function assertProblem(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.json().code, code);
}

const requestUrl = (team: Team, request: { id: string }, action = '') => `/api/v1/sites/${team.site}/change-requests/${request.id}${action}`;

async function siteNow(team: Team): Promise<Record<string, unknown> & { ai_settings: string; widget: string; name: string }> {
  const response = await call(team.people.owner.bearer, 'GET', `/api/v1/sites/${team.site}`);
  return response.json<{ site: Record<string, unknown> & { ai_settings: string; widget: string; name: string } }>().site;
}

async function versionsOf(team: Team): Promise<Array<{ version: number; via: Record<string, unknown>; changes: Array<{ path: string }> }>> {
  return (await call(team.people.owner.bearer, 'GET', `/api/v1/sites/${team.site}/versions`)).json<{ versions: Array<{ version: number; via: Record<string, unknown>; changes: Array<{ path: string }> }> }>().versions;
}

test('the review policy is set by admins and owners, within 1-5 approvals; the name stays the owners\'', async () => {
  const team = await newTeam({ required: false, approvals: 1 });
  const url = `/api/v1/workspaces/${team.workspace}`;
  const byAdmin = await call(team.people.admin.bearer, 'PATCH', url, { review: { required: true, approvals: 2 } });
  assert.equal(byAdmin.statusCode, 200, byAdmin.body);
  assert.deepEqual(byAdmin.json().workspace.review, { required: true, approvals: 2 });
  assert.deepEqual((await call(team.people.viewer.bearer, 'GET', url)).json().workspace.review, { required: true, approvals: 2 });
  const byEditor = await call(team.people.editor.bearer, 'PATCH', url, { review: { required: false } });
  assert.equal(byEditor.statusCode, 403);
  assert.equal(byEditor.json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  assert.equal((await call(team.people.outsider.bearer, 'PATCH', url, { review: { required: false } })).statusCode, 404);
  assert.equal((await call(team.people.admin.bearer, 'PATCH', url, { name: 'Renamed', review: { approvals: 3 } })).json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  for (const review of [{ approvals: 0 }, { approvals: 6 }, { approvals: 1.5 }, { approvals: '2' }, { required: 'yes' }, { other: true }, null, []]) {
    const response = await call(team.people.owner.bearer, 'PATCH', url, { review });
    assert.equal(response.statusCode, 400, JSON.stringify(review));
    assert.equal(response.json().code, HTTP_ERRORS.VALIDATION_FAILED);
  }
  // Nothing refused changed the policy; the change that landed is in the audit log.
  assert.deepEqual((await call(team.people.owner.bearer, 'GET', url)).json().workspace.review, { required: true, approvals: 2 });
  const events = (await call(team.people.owner.bearer, 'GET', `/api/v1/workspaces/${team.workspace}/audit-log?action=workspace.updated`)).json<{ events: Array<{ details: Record<string, unknown> }> }>().events;
  assert.deepEqual(events[0]?.details.review, { before: { required: false, approvals: 1 }, after: { required: true, approvals: 2 } });
});

test('while review is required, editors and admins change sites only by request; owners bypass it on the record; creating, deleting and trash restores are not reviewed', async () => {
  const team = await newTeam();
  for (const person of ['editor', 'admin'] as const) {
    const put = await call(team.people[person].bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'direct' });
    assert.equal(put.statusCode, 403, put.body);
    assert.equal(put.json().code, SITE_ERRORS.REVIEW_REQUIRED);
    const restore = await call(team.people[person].bearer, 'POST', `/api/v1/sites/${team.site}/versions/1/restore`);
    assert.equal(restore.json().code, SITE_ERRORS.REVIEW_REQUIRED);
  }
  assert.equal((await siteNow(team)).ai_settings, '');
  // A viewer is still told their role is too low, and an outsider learns nothing.
  assert.equal((await call(team.people.viewer.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'x' })).json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  assert.equal((await call(team.people.outsider.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'x' })).json().code, SITE_ERRORS.SITE_NOT_FOUND);
  const byOwner = await call(team.people.owner.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'urgent fix' });
  assert.equal(byOwner.statusCode, 200, byOwner.body);
  const restored = await call(team.people.owner.bearer, 'POST', `/api/v1/sites/${team.site}/versions/1/restore`);
  assert.equal(restored.statusCode, 200, restored.body);
  const [restoreVersion, putVersion] = await versionsOf(team);
  assert.equal(putVersion?.via.review_bypassed, true);
  assert.equal(restoreVersion?.via.review_bypassed, true);
  const created = await call(team.people.editor.bearer, 'POST', '/api/v1/sites', { name: 'Another', workspace_id: team.workspace });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().site.id as string;
  assert.equal((await call(team.people.admin.bearer, 'DELETE' as 'GET', `/api/v1/sites/${id}`)).statusCode, 204);
  assert.equal((await call(team.people.admin.bearer, 'POST', `/api/v1/trash/${id}/restore`)).statusCode, 200);
  // Without review, nobody's direct change says anything of it.
  await call(team.people.owner.bearer, 'PATCH', `/api/v1/workspaces/${team.workspace}`, { review: { required: false } });
  assert.equal((await call(team.people.editor.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'free again' })).statusCode, 200);
  assert.equal((await versionsOf(team))[0]?.via.review_bypassed, undefined);
});

test('a proposal is a PUT body, checked as PUT checks it; a partner access token and bad input of every shape are refused and nothing is stored', async () => {
  const team = await newTeam();
  const url = `/api/v1/sites/${team.site}/change-requests`;
  const bad: Array<[Record<string, unknown> | unknown[] | string, string]> = [
    [{ title: 'x', changes: { partner_settings: { access_token: 'secret-token' } } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { partner_settings: { access_token: null } } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { partner_settings: { access_token: '' } } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ changes: { ai_settings: 'x' } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: '', changes: { ai_settings: 'x' } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x'.repeat(201), changes: { ai_settings: 'x' } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x' }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { unknown_field: 1 } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { color: 'red' } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { name: '   ' } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { partner_settings: { base_url: 'ftp://example.com' } } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: { ai_settings: 42 } }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: 'ai_settings' }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: {}, extra: true }, HTTP_ERRORS.VALIDATION_FAILED],
    [{ title: 'x', changes: {} }, CHANGE_REQUEST_ERRORS.NOTHING_TO_CHANGE],
    [{ title: 'x', changes: { name: 'Help centre', id: 'ignored', updated_at: 'ignored' } }, CHANGE_REQUEST_ERRORS.NOTHING_TO_CHANGE],
    [[], HTTP_ERRORS.VALIDATION_FAILED],
  ];
  for (const [payload, code] of bad) {
    const response = await t.app.inject({ method: 'POST', url, headers: { authorization: team.people.author.bearer }, payload: payload as Record<string, unknown> });
    assert.equal(response.statusCode, 400, `${JSON.stringify(payload)}: ${response.body}`);
    assert.equal(response.json().code, code, JSON.stringify(payload));
  }
  const tooLarge = await call(team.people.author.bearer, 'POST', url, { title: 'x', changes: { ai_settings: 'x'.repeat(70_000) } });
  assert.equal(tooLarge.statusCode, 413);
  assert.equal(tooLarge.json().code, SITE_ERRORS.FIELD_TOO_LARGE);
  // The token's value is never echoed back.
  const refused = await call(team.people.author.bearer, 'POST', url, { title: 'x', changes: { partner_settings: { access_token: 'secret-token' } } });
  assert.equal(refused.body.includes('secret-token'), false);
  assert.equal((await t.database.db.selectFrom('change_requests').select('id').execute()).length, 0);
  assert.equal((await call(team.people.author.bearer, 'GET', `${url}?status=pending`)).json().code, HTTP_ERRORS.VALIDATION_FAILED);
  assert.equal((await call(team.people.author.bearer, 'GET', '/api/v1/change-requests')).json().code, HTTP_ERRORS.VALIDATION_FAILED);
});

test('a request is opened with its diff, base version and preview token; it is listed for its site and in the workspace queue; another workspace\'s ids are 404', async () => {
  const team = await newTeam();
  const request = await propose(team, { ai_settings: 'Be kind', partner_settings: { base_url: 'https://partner.example' } });
  assert.equal(request.status, 'open');
  assert.equal(request.base_version, 1);
  assert.equal(request.author?.id, team.people.author.id);
  assert.deepEqual(request.changes, [
    { path: '/ai_settings', before: '', after: 'Be kind' },
    { path: '/partner_settings/base_url', before: '', after: 'https://partner.example' },
  ]);
  assert.match(request.preview_token ?? '', /^swp_[A-Za-z0-9_-]{43}$/);
  // The site did not change, and the token is stored only as its hash and encrypted.
  assert.equal((await siteNow(team)).ai_settings, '');
  const stored = await t.database.db.selectFrom('change_requests').selectAll().executeTakeFirstOrThrow();
  assert.equal(JSON.stringify(stored).includes(request.preview_token ?? 'none'), false);
  const viewer = team.people.viewer.bearer;
  assert.deepEqual((await call(viewer, 'GET', `/api/v1/sites/${team.site}/change-requests`)).json().change_requests.map((r: ChangeRequestJson) => r.id), [request.id]);
  assert.deepEqual((await call(viewer, 'GET', `/api/v1/change-requests?workspace_id=${team.workspace}`)).json().change_requests.map((r: ChangeRequestJson) => r.id), [request.id]);
  assert.deepEqual((await call(viewer, 'GET', `/api/v1/change-requests?workspace_id=${team.workspace}&status=applied`)).json().change_requests, []);
  assert.equal((await call(viewer, 'GET', requestUrl(team, request))).json().change_request.title, 'Friendlier greeting');

  const strangerUser = await signUp(t.app);
  const other = { site: (await createSite(t.app, strangerUser.bearer)).id };
  const stranger = strangerUser.bearer;
  assert.equal((await call(stranger, 'GET', requestUrl(team, request))).json().code, SITE_ERRORS.SITE_NOT_FOUND);
  assert.equal((await call(stranger, 'GET', `/api/v1/change-requests?workspace_id=${team.workspace}`)).json().code, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
  // The request's id under another site, even one the caller may read, names nothing.
  const elsewhere = await call(stranger, 'POST', `/api/v1/sites/${other.site}/change-requests/${request.id}/apply`, {});
  assert.equal(elsewhere.statusCode, 404);
  assert.equal(elsewhere.json().code, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_NOT_FOUND);
  for (const action of ['/approve', '/close', '/decline']) {
    assert.equal((await call(stranger, 'POST', requestUrl(team, request, action), {})).statusCode, 404, action);
  }
  assert.equal((await call(viewer, 'GET', requestUrl(team, request))).json().change_request.status, 'open');
});

test('If-Match opens a request only from the version it names: 412 once the site moved, and against a change fired at the same time exactly one order wins', async () => {
  const team = await newTeam();
  const url = `/api/v1/sites/${team.site}/change-requests`;
  const open = (ifMatch: string, greeting: string) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: team.people.author.bearer, 'if-match': ifMatch }, payload: { title: greeting, changes: { ai_settings: greeting } } });
  const opened = await open('"1"', 'From version 1');
  assert.equal(opened.statusCode, 201, opened.body);
  assert.equal(opened.json().change_request.base_version, 1);
  for (const stale of ['"2"', 'W/"1"', '"one"']) assertProblem(await open(stale, 'Stale'), 412, SITE_ERRORS.PRECONDITION_FAILED);

  // The owner's direct change and proposals from version 1, fired together, many times over.
  for (let round = 1; round <= 5; round++) {
    const version = round;
    const [change, ...proposals] = await Promise.all([
      t.app.inject({ method: 'PUT', url: `/api/v1/sites/${team.site}`, headers: { authorization: team.people.owner.bearer, 'if-match': `"${version}"` }, payload: { name: `Round ${round}` } }),
      ...Array.from({ length: 4 }, (_, index) => open(`"${version}"`, `Round ${round} proposal ${index}`)),
    ]);
    assert.equal(change?.statusCode, 200, change?.body);
    for (const proposal of proposals) {
      if (proposal.statusCode === 201) assert.equal(proposal.json().change_request.base_version, version, 'opened before the change: based on the version named');
      else assertProblem(proposal, 412, SITE_ERRORS.PRECONDITION_FAILED);
    }
  }
  const stored = await t.database.db.selectFrom('change_requests').select(['title', 'base_version']).where('site_id', '=', team.site).execute();
  for (const row of stored) {
    const round = /^Round (\d+)/.exec(row.title)?.[1];
    if (round !== undefined) assert.equal(row.base_version, Number(round), `${row.title} is based on the version it named`);
  }
  assert.ok(!stored.some((row) => row.title === 'Stale'), 'a refused proposal stores nothing');
  // No If-Match: opened from whatever the site is at, as before.
  const anyVersion = await call(team.people.author.bearer, 'POST', url, { title: 'Any', changes: { ai_settings: 'Any' } });
  assert.equal(anyVersion.statusCode, 201, anyVersion.body);
  assert.equal(anyVersion.json().change_request.base_version, 6);
});

test('approvals: admins and owners other than the author; approving twice counts once; an edit by the author withdraws them; apply waits for them', async () => {
  const team = await newTeam({ required: true, approvals: 2 });
  const byAdmin = await propose(team, { ai_settings: 'Admin idea' }, 'admin');
  const self = await call(team.people.admin.bearer, 'POST', requestUrl(team, byAdmin, '/approve'));
  assert.equal(self.statusCode, 403);
  assert.equal(self.json().code, CHANGE_REQUEST_ERRORS.SELF_APPROVAL);
  const request = await propose(team, { ai_settings: 'Be kind' });
  for (const person of ['editor', 'viewer', 'author'] as const) {
    const refused = await call(team.people[person].bearer, 'POST', requestUrl(team, request, '/approve'));
    assert.equal(refused.statusCode, 403, person);
    assert.equal(refused.json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  }
  assert.equal((await call(team.people.reviewer.bearer, 'POST', requestUrl(team, request, '/approve'))).statusCode, 200);
  const twice = await call(team.people.reviewer.bearer, 'POST', requestUrl(team, request, '/approve'));
  assert.equal(twice.json().change_request.approvals.length, 1);
  const missing = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {});
  assert.equal(missing.statusCode, 409);
  assert.equal(missing.json().code, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
  t.clock.advance(1000);
  const approved = await call(team.people.owner.bearer, 'POST', requestUrl(team, request, '/approve'));
  assert.deepEqual(approved.json().change_request.approvals.map((a: { user: { id: string } }) => a.user.id), [team.people.reviewer.id, team.people.owner.id]);

  // Only the author edits, and an edit withdraws every approval.
  assert.equal((await call(team.people.editor.bearer, 'PATCH', requestUrl(team, request), { title: 'Mine now' })).json().code, CHANGE_REQUEST_ERRORS.NOT_THE_AUTHOR);
  assert.equal((await call(team.people.owner.bearer, 'PATCH', requestUrl(team, request), { title: 'Mine now' })).json().code, CHANGE_REQUEST_ERRORS.NOT_THE_AUTHOR);
  const edited = await call(team.people.author.bearer, 'PATCH', requestUrl(team, request), { changes: { ai_settings: 'Be very kind' } });
  assert.equal(edited.statusCode, 200, edited.body);
  assert.deepEqual(edited.json().change_request.approvals, []);
  assert.deepEqual(edited.json().change_request.changes, [{ path: '/ai_settings', before: '', after: 'Be very kind' }]);
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {})).json().code, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
  assert.equal((await call(team.people.author.bearer, 'PATCH', requestUrl(team, request), {})).json().code, HTTP_ERRORS.VALIDATION_FAILED);

  // An approver demoted since approves nothing.
  await call(team.people.reviewer.bearer, 'POST', requestUrl(team, request, '/approve'));
  await call(team.people.admin.bearer, 'POST', requestUrl(team, request, '/approve'));
  await call(team.people.owner.bearer, 'PATCH', `/api/v1/workspaces/${team.workspace}/members/${team.people.admin.id}`, { role: 'editor' });
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {})).json().code, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
  await call(team.people.owner.bearer, 'POST', requestUrl(team, request, '/approve'));
  const applied = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {});
  assert.equal(applied.statusCode, 200, applied.body);
  assert.equal(applied.json().change_request.status, 'applied');
  assert.equal(applied.json().change_request.preview_token, null);
  assert.equal((await siteNow(team)).ai_settings, 'Be very kind');
  // Once applied, a request changes no more.
  for (const action of ['/approve', '/apply', '/close', '/decline']) {
    const ended = await call(team.people.owner.bearer, 'POST', requestUrl(team, request, action), {});
    assert.equal(ended.statusCode, 409, action);
    assert.equal(ended.json().code, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_NOT_OPEN, action);
  }
});

test('apply merges path by path: paths changed elsewhere since the base stay, and the version names the request', async () => {
  const team = await newTeam({ required: false, approvals: 1 });
  const request = await propose(team, { ai_settings: 'Proposed AI', partner_settings: { collections: ['docs'] } });
  assert.equal((await call(team.people.editor.bearer, 'PUT', `/api/v1/sites/${team.site}`, { widget: '{"position":"left"}', name: 'Renamed meanwhile' })).statusCode, 200);
  const applied = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {});
  assert.equal(applied.statusCode, 200, applied.body);
  assert.equal(applied.json().change_request.applied_version, 3);
  const site = await siteNow(team);
  assert.deepEqual([site.ai_settings, site.widget, site.name, (site.partner_settings as { collections: string[] }).collections], ['Proposed AI', '{"position":"left"}', 'Renamed meanwhile', ['docs']]);
  const [version] = await versionsOf(team);
  assert.deepEqual(version?.via.change_request, { id: request.id, title: 'Friendlier greeting' });
  assert.deepEqual(version?.changes.map((change) => change.path), ['/ai_settings', '/partner_settings/collections']);
  const actions = (await call(team.people.owner.bearer, 'GET', `/api/v1/workspaces/${team.workspace}/audit-log`)).json<{ events: Array<{ action: string }> }>().events.map((event) => event.action);
  assert.ok(actions.includes('change_request.opened') && actions.includes('change_request.applied') && actions.includes('site.updated'), actions.join());
});

test('a path changed since the base to another value is a conflict: 409 with every such path, nothing changes; settled path by path it applies', async () => {
  const team = await newTeam({ required: false, approvals: 1 });
  await call(team.people.owner.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'Base', widget: 'w0' });
  const request = await propose(team, { ai_settings: 'Proposed', widget: 'w1', branding: 'b1' });
  await call(team.people.owner.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'Current', widget: 'w1', portal: 'p1' });
  const before = await siteNow(team);
  const versionsBefore = (await versionsOf(team)).length;
  const conflict = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {});
  assert.equal(conflict.statusCode, 409);
  assert.equal(conflict.json().code, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT);
  // widget moved to the proposal's own value: no conflict there.
  assert.deepEqual(conflict.json().conflicts, [{ path: '/ai_settings', base: 'Base', current: 'Current', proposed: 'Proposed' }]);
  assert.deepEqual(await siteNow(team), before);
  assert.equal((await versionsOf(team)).length, versionsBefore);
  assert.equal((await call(team.people.author.bearer, 'GET', requestUrl(team, request))).json().change_request.status, 'open');
  const typo = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), { resolve: { '/ai_setting': 'proposed' } });
  assert.equal(typo.json().code, HTTP_ERRORS.VALIDATION_FAILED);
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), { resolve: { '/ai_settings': 'mine' } })).json().code, HTTP_ERRORS.VALIDATION_FAILED);
  const settled = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), { resolve: { '/ai_settings': 'current' } });
  assert.equal(settled.statusCode, 200, settled.body);
  const site = await siteNow(team);
  assert.deepEqual([site.ai_settings, site.widget, site.branding, site.portal], ['Current', 'w1', 'b1', 'p1']);

  const second = await propose(team, { ai_settings: 'Second' });
  await call(team.people.owner.bearer, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'Owner again' });
  const kept = await call(team.people.author.bearer, 'POST', requestUrl(team, second, '/apply'), { resolve: { '/ai_settings': 'proposed' } });
  assert.equal(kept.statusCode, 200, kept.body);
  assert.equal((await siteNow(team)).ai_settings, 'Second');
});

test('two requests applied at once, on different paths: one version each, no path lost', async () => {
  const team = await newTeam({ required: true, approvals: 1 });
  const first = await propose(team, { ai_settings: 'First' });
  const second = await propose(team, { widget: 'Second' }, 'editor');
  for (const request of [first, second]) await call(team.people.reviewer.bearer, 'POST', requestUrl(team, request, '/approve'));
  const answers = await Promise.all([
    call(team.people.admin.bearer, 'POST', requestUrl(team, first, '/apply'), {}),
    call(team.people.owner.bearer, 'POST', requestUrl(team, second, '/apply'), {}),
  ]);
  assert.deepEqual(answers.map((answer) => answer.statusCode), [200, 200], answers.map((answer) => answer.body).join('\n'));
  const site = await siteNow(team);
  assert.deepEqual([site.ai_settings, site.widget], ['First', 'Second']);
  const versions = await versionsOf(team);
  assert.equal(versions.length, 3);
  assert.deepEqual(new Set(versions.slice(0, 2).map((version) => (version.via.change_request as { id: string }).id)), new Set([first.id, second.id]));
  assert.deepEqual(new Set(answers.map((answer) => answer.json().change_request.applied_version)), new Set([2, 3]));
  // The same request fired twice at once is applied once.
  const third = await propose(team, { portal: 'Third' });
  await call(team.people.reviewer.bearer, 'POST', requestUrl(team, third, '/approve'));
  const twice = await Promise.all([0, 1].map(() => call(team.people.owner.bearer, 'POST', requestUrl(team, third, '/apply'), {})));
  assert.deepEqual(twice.map((answer) => answer.statusCode).sort(), [200, 409]);
  assert.equal((await versionsOf(team)).length, 4);
});

test('a request whose site is in the trash cannot be applied; declined and closed requests end, with their preview token', async () => {
  const team = await newTeam({ required: false, approvals: 1 });
  const request = await propose(team, { ai_settings: 'Too late' });
  assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${team.site}`, headers: { authorization: team.people.admin.bearer } })).statusCode, 204);
  const refused = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {});
  assert.equal(refused.statusCode, 409);
  assert.equal(refused.json().code, CHANGE_REQUEST_ERRORS.SITE_IN_TRASH);
  assert.equal((await call(team.people.outsider.bearer, 'POST', requestUrl(team, request, '/apply'), {})).json().code, SITE_ERRORS.SITE_NOT_FOUND);
  assert.deepEqual((await call(team.people.owner.bearer, 'GET', `/api/v1/change-requests?workspace_id=${team.workspace}`)).json().change_requests, []);
  await call(team.people.admin.bearer, 'POST', `/api/v1/trash/${team.site}/restore`);

  const declined = await call(team.people.reviewer.bearer, 'POST', requestUrl(team, request, '/decline'), { comment: 'Not now' });
  assert.equal(declined.statusCode, 200, declined.body);
  assert.equal(declined.json().change_request.status, 'declined');
  assert.equal(declined.json().change_request.preview_token, null);
  assert.equal(declined.json().change_request.comments[0].body, 'Not now');
  const other = await propose(team, { ai_settings: 'Again' });
  assert.equal((await call(team.people.editor.bearer, 'POST', requestUrl(team, other, '/close'))).json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, other, '/decline'), {})).json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  const closed = await call(team.people.author.bearer, 'POST', requestUrl(team, other, '/close'));
  assert.equal(closed.json().change_request.status, 'closed');
  assert.equal((await siteNow(team)).ai_settings, '');
});

test('comments: editors and above while the request is open or scheduled; a viewer reads them', async () => {
  const team = await newTeam();
  const request = await propose(team, { ai_settings: 'x' });
  assert.equal((await call(team.people.viewer.bearer, 'POST', requestUrl(team, request, '/comments'), { body: 'Hmm' })).json().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
  for (const body of ['', 'x'.repeat(10_001)]) assert.equal((await call(team.people.editor.bearer, 'POST', requestUrl(team, request, '/comments'), { body })).statusCode, 400);
  const commented = await call(team.people.editor.bearer, 'POST', requestUrl(team, request, '/comments'), { body: 'Looks good' });
  assert.equal(commented.statusCode, 200, commented.body);
  const read = (await call(team.people.viewer.bearer, 'GET', requestUrl(team, request))).json().change_request;
  assert.deepEqual(read.comments.map((c: { user: { id: string }; body: string }) => [c.user.id, c.body]), [[team.people.editor.id, 'Looks good']]);
});

test('scheduling: {at} in the future makes the request scheduled once approved; a past or malformed time is refused', async () => {
  const team = await newTeam();
  const request = await propose(team, { ai_settings: 'Later' });
  const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), { at })).json().code, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
  await call(team.people.reviewer.bearer, 'POST', requestUrl(team, request, '/approve'));
  for (const bad of [t.clock.now().toISOString(), '2020-01-01T00:00:00Z', 'tomorrow', new Date(t.clock.now().getTime() + 400 * 86_400_000).toISOString()]) {
    const refused = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), { at: bad });
    assert.equal(refused.statusCode, 400, bad);
    assert.equal(refused.json().code, HTTP_ERRORS.VALIDATION_FAILED);
  }
  const scheduled = await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), { at });
  assert.equal(scheduled.statusCode, 200, scheduled.body);
  assert.deepEqual([scheduled.json().change_request.status, scheduled.json().change_request.scheduled_at], ['scheduled', at]);
  assert.equal((await siteNow(team)).ai_settings, '');
  // A scheduled request no longer changes; it can still be withdrawn.
  assert.equal((await call(team.people.author.bearer, 'PATCH', requestUrl(team, request), { title: 'x' })).json().code, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_NOT_OPEN);
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/close'))).json().change_request.scheduled_at, null);
});

test('access tokens read and propose changes, but review needs a signed-in person', async () => {
  const team = await newTeam();
  const token = (await createAccessToken(t.app, team.people.author)).header;
  const opened = await call(token, 'POST', `/api/v1/sites/${team.site}/change-requests`, { title: 'From CI', changes: { ai_settings: 'pipeline' } });
  assert.equal(opened.statusCode, 201, opened.body);
  const request = opened.json<{ change_request: ChangeRequestJson }>().change_request;
  assert.equal((await call(token, 'GET', requestUrl(team, request))).statusCode, 200);
  assert.equal((await call(token, 'GET', `/api/v1/change-requests?workspace_id=${team.workspace}`)).statusCode, 200);
  const adminToken = (await createAccessToken(t.app, team.people.reviewer)).header;
  for (const [authorization, method, action, payload] of [
    [adminToken, 'POST', '/approve', undefined],
    [adminToken, 'POST', '/decline', {}],
    [token, 'POST', '/apply', {}],
    [token, 'POST', '/close', undefined],
    [token, 'POST', '/comments', { body: 'x' }],
    [token, 'PATCH', '', { title: 'x' }],
  ] as const) {
    const refused = await call(authorization, method, requestUrl(team, request, action), payload);
    assert.equal(refused.statusCode, 403, action);
    assert.equal(refused.json().code, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED, action);
  }
  const readOnly = (await createAccessToken(t.app, team.people.author, ['sites:read'])).header;
  assert.equal((await call(readOnly, 'POST', `/api/v1/sites/${team.site}/change-requests`, { title: 'x', changes: { ai_settings: 'y' } })).json().code, AUTH_ERRORS.INSUFFICIENT_SCOPE);
  // Tokens stay off PUT too while review is required.
  assert.equal((await call(token, 'PUT', `/api/v1/sites/${team.site}`, { ai_settings: 'direct' })).json().code, SITE_ERRORS.REVIEW_REQUIRED);
});

test('a preview token shows the configuration as the request would leave it, never cached, and dies with its request', async () => {
  const team = await newTeam({ required: false, approvals: 1 });
  const site = await siteNow(team);
  const key = site.public_key as string;
  const request = await propose(team, { widget: '{"greeting":"Hi!"}', color: '#112233', ai_settings: 'secret instructions' });
  const token = request.preview_token ?? '';
  const previewUrl = `/public/v1/sites/${key}?preview=${encodeURIComponent(token)}`;
  const preview = await t.app.inject({ method: 'GET', url: previewUrl });
  assert.equal(preview.statusCode, 200, preview.body);
  assert.equal(preview.headers['cache-control'], 'no-store');
  assert.deepEqual(preview.json().site.widget, { greeting: 'Hi!' });
  assert.equal(preview.json().site.color, '#112233');
  // Only the public groups, as ever: the proposal's AI settings are not there.
  assert.equal(preview.body.includes('secret instructions'), false);
  // The live configuration is unchanged, and the preview did not become it for anyone without the token.
  for (let index = 0; index < 2; index++) {
    const live = await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}` });
    assert.equal(live.json().site.widget, null);
    assert.match(String(live.headers['cache-control']), /^public/);
  }
  // The last character changed (to one it is not: the token is random).
  for (const wrong of [`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'swp_', token.slice(4), 'x'.repeat(100)]) {
    const refused = await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}?preview=${encodeURIComponent(wrong)}` });
    assert.equal(refused.statusCode, 404, wrong);
    assert.equal(refused.headers['cache-control'], 'no-store');
  }
  assert.equal((await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}?preview=${'x'.repeat(101)}` })).statusCode, 400);
  assert.equal((await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}?other=1` })).statusCode, 400);
  // Another site's key with this token shows nothing.
  const other = await createSite(t.app, team.people.owner.bearer, { name: 'Other', workspace_id: team.workspace });
  assert.equal((await t.app.inject({ method: 'GET', url: `/public/v1/sites/${other.public_key as string}?preview=${encodeURIComponent(token)}` })).statusCode, 404);
  // Applied: the token is dead; the live configuration now holds the change.
  assert.equal((await call(team.people.author.bearer, 'POST', requestUrl(team, request, '/apply'), {})).statusCode, 200);
  assert.equal((await t.app.inject({ method: 'GET', url: previewUrl })).statusCode, 404);
  assert.deepEqual((await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}` })).json().site.widget, { greeting: 'Hi!' });
  for (const end of ['/close', '/decline']) {
    const ended = await propose(team, { portal: '{"title":"x"}' });
    assert.equal((await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}?preview=${encodeURIComponent(ended.preview_token ?? '')}` })).statusCode, 200);
    await call(team.people.owner.bearer, 'POST', requestUrl(team, ended, end), {});
    assert.equal((await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}?preview=${encodeURIComponent(ended.preview_token ?? '')}` })).statusCode, 404, end);
  }
});
