import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, createAccessToken, createSite, sessionCookie, signUp, type SignedUpUser, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { ACCOUNT_ERRORS } from './errors.js';

const ORIGIN = 'http://localhost:3000';
const WINDOW_MS = 600_000;

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

function send(method: Method, url: string, headers: Record<string, string>, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

function assertProblem(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  assert.equal(response.json().code, code, response.body);
}

function deleteAccount(headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return send('DELETE', '/api/v1/me', headers);
}

async function createWorkspace(owner: SignedUpUser, name: string): Promise<string> {
  const response = await send('POST', '/api/v1/workspaces', { authorization: owner.bearer }, { name });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ workspace: { id: string } }>().workspace.id;
}

/** Adds a member as the operator's command line does (invitations live elsewhere). */
async function addMember(workspaceId: string, user: { id: string }, role: WorkspaceRole): Promise<void> {
  const service = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  assert.equal(await service.addMember(workspaceId, user.id, role), true);
}

async function personalWorkspaceId(user: SignedUpUser): Promise<string> {
  const list = (await send('GET', '/api/v1/workspaces', { authorization: user.bearer })).json<{ workspaces: Array<{ id: string; personal: boolean }> }>().workspaces;
  const personal = list.find((workspace) => workspace.personal);
  assert.ok(personal !== undefined);
  return personal.id;
}

async function signInCookie(email: string): Promise<LightMyRequestResponse> {
  return send('POST', '/auth/session', { origin: ORIGIN }, { email, password: STRONG_PASSWORD });
}

async function countRows(table: 'users' | 'workspaces' | 'sites' | 'access_tokens' | 'sessions' | 'workspace_members'): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function snapshot(): Promise<Record<string, number>> {
  const tables = ['users', 'workspaces', 'sites', 'access_tokens', 'sessions', 'workspace_members'] as const;
  return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await countRows(table)] as const)));
}

describe('DELETE /api/v1/me', () => {
  test('needs a recent authentication, and a signed-in person rather than an access token', async () => {
    const user = await signUp(t.app);
    const token = await createAccessToken(t.app, user);
    assertProblem(await deleteAccount({ authorization: token.header }), 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
    t.clock.advance(WINDOW_MS + 1000);
    assertProblem(await deleteAccount({ authorization: user.bearer }), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assert.equal((await send('GET', '/api/v1/me', { authorization: user.bearer })).statusCode, 200, 'the account is still there');
  });

  test('is refused with the workspaces to hand over while the caller is their only owner and others are members; nothing changes', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const shared = await createWorkspace(owner, 'Support team');
    await createWorkspace(owner, 'Scratch');
    await addMember(shared, member, 'editor');
    await createSite(t.app, owner.bearer, { name: 'Personal site' });
    await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: shared });
    const before = await snapshot();

    const refused = await deleteAccount({ authorization: owner.bearer });
    assertProblem(refused, 409, ACCOUNT_ERRORS.OWNERSHIP_TRANSFER_REQUIRED);
    assert.deepEqual(refused.json().workspaces, [{ id: shared, name: 'Support team' }]);
    assert.match(refused.json().detail, /"Support team"/);

    assert.deepEqual(await snapshot(), before);
    assert.equal((await send('GET', '/api/v1/me', { authorization: owner.bearer })).statusCode, 200);
  });

  test('once another member is an owner: the account, its credentials, its personal and sole-member workspaces go; shared sites stay', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const bystander = await signUp(t.app);
    const shared = await createWorkspace(owner, 'Support team');
    const scratch = await createWorkspace(owner, 'Scratch');
    await addMember(shared, member, 'editor');
    // Someone let into the personal workspace loses it with the account.
    await addMember(await personalWorkspaceId(owner), member, 'viewer');
    const personalSite = await createSite(t.app, owner.bearer, { name: 'Personal site' });
    const scratchSite = await createSite(t.app, owner.bearer, { name: 'Scratch site', workspace_id: scratch });
    const teamSite = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: shared });
    const bystanderSite = await createSite(t.app, bystander.bearer, { name: 'Not theirs' });
    const bystanderToken = await createAccessToken(t.app, bystander);
    const token = await createAccessToken(t.app, owner);
    const signIn = await signInCookie(owner.email);
    assert.equal(signIn.statusCode, 200, signIn.body);
    const cookie = sessionCookie(signIn.headers['set-cookie']);
    assert.ok(cookie !== undefined);
    const credentials: Array<Record<string, string>> = [{ authorization: owner.bearer }, { authorization: token.header }, { cookie: cookie.header }];
    // Each credential is used first, so this process holds what it resolved to.
    for (const headers of credentials) {
      assert.equal((await send('GET', '/api/v1/sites', headers)).statusCode, 200);
    }
    assert.equal((await send('GET', `/api/v1/sites/${personalSite.id}`, { authorization: member.bearer })).statusCode, 200);

    const promoted = await send('PATCH', `/api/v1/workspaces/${shared}/members/${member.id}`, { authorization: owner.bearer }, { role: 'owner' });
    assert.equal(promoted.statusCode, 200, promoted.body);

    const deleted = await deleteAccount({ cookie: cookie.header, origin: ORIGIN });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.match(String(deleted.headers['set-cookie']), /siteward_session=;/, 'the cookie is cleared');

    for (const headers of credentials) {
      assert.equal((await send('GET', '/api/v1/sites', headers)).statusCode, 401, JSON.stringify(headers));
    }
    assertProblem(await signInCookie(owner.email), 401, AUTH_ERRORS.INVALID_CREDENTIALS);
    assertProblem(await send('POST', '/auth/login', {}, { email: owner.email, password: STRONG_PASSWORD }), 401, AUTH_ERRORS.INVALID_CREDENTIALS);

    for (const site of [personalSite, scratchSite]) {
      assertProblem(await send('GET', `/api/v1/sites/${site.id}`, { authorization: member.bearer }), 404, SITE_ERRORS.SITE_NOT_FOUND);
    }
    const kept = await send('GET', `/api/v1/sites/${teamSite.id}`, { authorization: member.bearer });
    assert.equal(kept.statusCode, 200, kept.body);
    const creator = await t.database.db.selectFrom('sites').select('user_id').where('id', '=', teamSite.id).executeTakeFirstOrThrow();
    assert.equal(creator.user_id, null);
    const memberWorkspaces = (await send('GET', '/api/v1/workspaces', { authorization: member.bearer })).json<{ workspaces: Array<{ id: string; role: string }> }>().workspaces;
    assert.deepEqual(memberWorkspaces.filter((workspace) => workspace.id === shared), [{ ...memberWorkspaces.find((workspace) => workspace.id === shared), role: 'owner' }]);
    assert.equal(memberWorkspaces.length, 2, 'their own personal workspace and the shared one');

    for (const table of ['sessions', 'access_tokens', 'workspace_members', 'one_time_tokens', 'passkeys', 'user_totp', 'recovery_codes'] as const) {
      const left = await t.database.db.selectFrom(table).select('user_id').where('user_id', '=', owner.id).execute();
      assert.deepEqual(left, [], `${table} of the deleted account`);
    }
    const workspacesLeft = await t.database.db.selectFrom('workspaces').select('id').where('id', 'in', [scratch, shared]).execute();
    assert.deepEqual(workspacesLeft, [{ id: shared }]);

    assert.equal((await send('GET', `/api/v1/sites/${bystanderSite.id}`, { authorization: bystanderToken.header })).statusCode, 200, "another user's data is untouched");
    assert.equal((await send('GET', `/api/v1/sites/${bystanderSite.id}`, { authorization: bystander.bearer })).statusCode, 200);
    assert.match(t.logs(), /"security_event":"account.deleted"/);
  });

  test('an owner stepping down while the other owner deletes their account never leaves the workspace without an owner', async () => {
    for (let round = 0; round < 4; round++) {
      // Past the hourly sign-up limit of one address, so each round signs up its own people.
      t.clock.advance(60 * 60 * 1000);
      const leaving = await signUp(t.app);
      const staying = await signUp(t.app);
      const member = await signUp(t.app);
      const shared = await createWorkspace(leaving, `Team ${round}`);
      await addMember(shared, staying, 'owner');
      await addMember(shared, member, 'viewer');
      const [deleted, demoted] = await Promise.all([
        deleteAccount({ authorization: leaving.bearer }),
        send('PATCH', `/api/v1/workspaces/${shared}/members/${staying.id}`, { authorization: staying.bearer }, { role: 'admin' }),
      ]);
      // Whichever ran second saw the first: the deletion finds itself the only owner, or the step down the last owner.
      assert.ok((deleted.statusCode === 204) !== (demoted.statusCode === 200), `${deleted.statusCode} ${deleted.body} / ${demoted.statusCode} ${demoted.body}`);
      if (deleted.statusCode !== 204) assertProblem(deleted, 409, ACCOUNT_ERRORS.OWNERSHIP_TRANSFER_REQUIRED);
      const owners = await t.database.db.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', shared).where('role', '=', 'owner').execute();
      assert.equal(owners.length, 1);
    }
  });

  test('parallel deletions of one account: one 204, the rest 401 or 404, never a 500', async () => {
    const user = await signUp(t.app);
    await createSite(t.app, user.bearer, { name: 'Goes' });
    const other = await signUp(t.app);
    const otherSite = await createSite(t.app, other.bearer, { name: 'Stays' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => fetch(`http://127.0.0.1:${port}/api/v1/me`, { method: 'DELETE', headers: { authorization: user.bearer } })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.equal(statuses.filter((status) => status === 204).length, 1, statuses.join(' '));
    assert.ok(statuses.every((status) => status === 204 || status === 401 || status === 404), statuses.join(' '));
    for (const answer of answers) if (answer.status !== 204) assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal((await send('GET', `/api/v1/sites/${otherSite.id}`, { authorization: other.bearer })).statusCode, 200);
    assert.deepEqual(await t.database.db.selectFrom('users').select('id').where('id', '=', user.id).execute(), []);
  });
});
