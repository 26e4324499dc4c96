import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, type SignedUpUser, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpClient, listenOnLoopback } from '../../test/http.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { WorkspaceService } from './service.js';

/**
 * Granting admin or owner is a grant like a new access token: the person made admin keeps the
 * workspace after its owner signs out everywhere. So a stale session or JWT (older than
 * REAUTH_WINDOW_SECONDS) can neither invite someone with either role nor raise a member to it.
 * Over real HTTP; the clock moves instead of anyone waiting.
 */

const WINDOW_MS = 600_000;

let smtp: TestSmtpServer;
let t: TestApp;
let http: HttpClient;
beforeEach(async () => {
  ({ t, smtp } = await buildTestAppWithMail());
  http = await listenOnLoopback(t);
});
afterEach(() => t.close());

async function teamWith(owner: SignedUpUser, members: Array<[SignedUpUser, WorkspaceRole]>): Promise<string> {
  const created = await http.request('POST', '/api/v1/workspaces', { headers: { authorization: owner.bearer }, json: { name: 'Support team' } });
  assert.equal(created.status, 201, created.text);
  const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
  const service = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  for (const [member, role] of members) assert.equal(await service.addMember(workspaceId, member.id, role), true);
  return workspaceId;
}

function invite(workspaceId: string, headers: Record<string, string>, email: string, role: WorkspaceRole) {
  return http.request('POST', `/api/v1/workspaces/${workspaceId}/invitations`, { headers, json: { email, role } });
}

function changeRole(workspaceId: string, headers: Record<string, string>, memberId: string, role: WorkspaceRole) {
  return http.request('PATCH', `/api/v1/workspaces/${workspaceId}/members/${memberId}`, { headers, json: { role } });
}

async function invitedAddresses(workspaceId: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom('invitations').select('email').where('workspace_id', '=', workspaceId).execute();
  return rows.map((row) => row.email).sort();
}

async function roleOf(workspaceId: string, userId: string): Promise<string | undefined> {
  const row = await t.database.db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role;
}

describe('granting admin or owner needs a recent sign-in', () => {
  test('an admin with a stale session cannot invite an outsider as admin; an editor invitation still goes; after re-authenticating the admin one does', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const admin = await signUpConfirmed(t.app, smtp);
    const workspaceId = await teamWith(owner, [[admin, 'admin']]);
    const session = await http.webSession(admin.email);
    t.clock.advance(WINDOW_MS + 1000);

    assertProblem(await invite(workspaceId, session, 'accomplice@example.net', 'admin'), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assert.deepEqual(await invitedAddresses(workspaceId), [], 'nothing stored or mailed');
    assert.equal((await invite(workspaceId, session, 'colleague@example.net', 'editor')).status, 201, 'a role below admin grants no administration');

    const reauthenticated = await http.request('POST', '/api/v1/me/reauthenticate', { headers: session, json: { password: STRONG_PASSWORD } });
    assert.equal(reauthenticated.status, 200, reauthenticated.text);
    const renewed = { ...session, cookie: (reauthenticated.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '' };
    assert.equal((await invite(workspaceId, renewed, 'accomplice@example.net', 'admin')).status, 201);
    assert.deepEqual(await invitedAddresses(workspaceId), ['accomplice@example.net', 'colleague@example.net']);
  });

  test('an owner with a stale JWT cannot invite an owner or an admin', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspaceId = await teamWith(owner, []);
    t.clock.advance(WINDOW_MS + 1000);
    for (const role of ['owner', 'admin'] as const) {
      assertProblem(await invite(workspaceId, { authorization: owner.bearer }, `${role}@example.net`, role), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    }
    assert.equal((await invite(workspaceId, { authorization: owner.bearer }, 'viewer@example.net', 'viewer')).status, 201);
  });

  test('raising a member to admin (by an admin) or to owner (by an owner) with a stale sign-in is refused; lowering and lateral changes are not', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const admin = await signUpConfirmed(t.app, smtp);
    const viewer = await signUpConfirmed(t.app, smtp);
    const editor = await signUpConfirmed(t.app, smtp);
    const workspaceId = await teamWith(owner, [[admin, 'admin'], [viewer, 'viewer'], [editor, 'editor']]);
    t.clock.advance(WINDOW_MS + 1000);

    assertProblem(await changeRole(workspaceId, { authorization: admin.bearer }, viewer.id, 'admin'), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assertProblem(await changeRole(workspaceId, { authorization: owner.bearer }, viewer.id, 'admin'), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assertProblem(await changeRole(workspaceId, { authorization: owner.bearer }, admin.id, 'owner'), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assert.deepEqual([await roleOf(workspaceId, viewer.id), await roleOf(workspaceId, admin.id)], ['viewer', 'admin']);

    // Below admin nothing is granted that outlives a sign-out, and lowering takes access away.
    assert.equal((await changeRole(workspaceId, { authorization: admin.bearer }, viewer.id, 'editor')).status, 200);
    assert.equal((await changeRole(workspaceId, { authorization: owner.bearer }, admin.id, 'viewer')).status, 200);
    assert.equal((await changeRole(workspaceId, { authorization: owner.bearer }, editor.id, 'editor')).status, 200, 'an unchanged role grants nothing');

    // A fresh sign-in makes the grant go through.
    const login = await http.request('POST', '/auth/login', { json: { email: owner.email, password: STRONG_PASSWORD } });
    const fresh = { authorization: `Bearer ${login.json<{ token: string }>().token}` };
    assert.equal((await changeRole(workspaceId, fresh, viewer.id, 'admin')).status, 200);
    assert.equal(await roleOf(workspaceId, viewer.id), 'admin');
  });

  test('an editor with a stale session is told their role is too low, not to re-authenticate for what they could never do', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const editor = await signUpConfirmed(t.app, smtp);
    const workspaceId = await teamWith(owner, [[editor, 'editor']]);
    t.clock.advance(WINDOW_MS + 1000);
    assertProblem(await invite(workspaceId, { authorization: editor.bearer }, 'someone@example.net', 'admin'), 403, 'insufficient_role');
  });
});
