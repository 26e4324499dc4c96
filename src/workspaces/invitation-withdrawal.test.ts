import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, createUserAsOperator, type SignedUpUser, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpClient, listenOnLoopback } from '../../test/http.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from './service.js';

/**
 * An invitation is sent with its sender's right to invite. When the sender leaves, is removed or
 * drops to a role that could not have sent it, the invitation is withdrawn in the same transaction:
 * a removed admin's accomplice cannot join afterwards with the link. Over real HTTP.
 */

const LINK = /\/invitations\/accept\?token=([A-Za-z0-9_-]+)/;

let smtp: TestSmtpServer;
let t: TestApp;
let http: HttpClient;
beforeEach(async () => {
  ({ t, smtp } = await buildTestAppWithMail());
  http = await listenOnLoopback(t);
});
afterEach(() => t.close());

/** A verified account made as `users:create` makes it, signed in by the API. */
async function operatorUser(email: string): Promise<SignedUpUser> {
  const { id } = await createUserAsOperator(t, email);
  const login = await http.request('POST', '/auth/login', { json: { email, password: STRONG_PASSWORD } });
  assert.equal(login.status, 200, login.text);
  const jwt = login.json<{ token: string }>().token;
  return { id, email, jwt, bearer: `Bearer ${jwt}` };
}

async function team(owner: SignedUpUser, members: Array<[SignedUpUser, WorkspaceRole]>): Promise<string> {
  const created = await http.request('POST', '/api/v1/workspaces', { headers: { authorization: owner.bearer }, json: { name: 'Support team' } });
  assert.equal(created.status, 201, created.text);
  const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
  const service = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  for (const [member, role] of members) assert.equal(await service.addMember(workspaceId, member.id, role), true);
  return workspaceId;
}

/** Invites the address and reads the token out of its mail, as its holder would. */
async function invited(workspaceId: string, sender: SignedUpUser, email: string, role: WorkspaceRole): Promise<string> {
  const from = smtp.messages.length;
  const answer = await http.request('POST', `/api/v1/workspaces/${workspaceId}/invitations`, { headers: { authorization: sender.bearer }, json: { email, role } });
  assert.equal(answer.status, 201, answer.text);
  const mail = await smtp.waitForMessage(from, (message) => message.to.includes(email) && LINK.test(message.text));
  return LINK.exec(mail.text)?.[1] ?? assert.fail(mail.text);
}

async function pendingEmails(workspaceId: string, reader: SignedUpUser): Promise<string[]> {
  const listed = await http.request('GET', `/api/v1/workspaces/${workspaceId}/invitations`, { headers: { authorization: reader.bearer } });
  assert.equal(listed.status, 200, listed.text);
  return listed.json<{ invitations: Array<{ email: string }> }>().invitations.map((invitation) => invitation.email).sort();
}

/** The invited person, signed up with the invited address, tries the link: by the API and by its page. */
async function assertInvitationDead(token: string, email: string): Promise<void> {
  const person = await signUpConfirmed(t.app, smtp, email);
  assertProblem(await http.request('POST', '/api/v1/invitations/accept', { headers: { authorization: person.bearer }, json: { token } }), 410, WORKSPACE_ERRORS.INVITATION_INVALID);
  assert.equal((await http.request('GET', `/invitations/accept?token=${token}`)).status, 410);
}

async function acceptWorks(token: string, email: string): Promise<void> {
  const person = await signUpConfirmed(t.app, smtp, email);
  const accepted = await http.request('POST', '/api/v1/invitations/accept', { headers: { authorization: person.bearer }, json: { token } });
  assert.equal(accepted.status, 200, accepted.text);
}

describe('invitations go with their sender\'s right to invite', () => {
  test('an admin removed by the owner: every invitation they sent is withdrawn (410), the owner\'s own stays', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const admin = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[admin, 'admin']]);
    const accomplice = await invited(workspaceId, admin, 'accomplice@example.net', 'admin');
    const helper = await invited(workspaceId, admin, 'helper@example.net', 'viewer');
    const colleague = await invited(workspaceId, owner, 'colleague@example.net', 'editor');

    const removed = await http.request('DELETE', `/api/v1/workspaces/${workspaceId}/members/${admin.id}`, { headers: { authorization: owner.bearer } });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await pendingEmails(workspaceId, owner), ['colleague@example.net']);
    await assertInvitationDead(accomplice, 'accomplice@example.net');
    await assertInvitationDead(helper, 'helper@example.net');
    await acceptWorks(colleague, 'colleague@example.net');

    // The audit log says what happened to them, and why.
    const log = await http.request('GET', `/api/v1/workspaces/${workspaceId}/audit-log?action=invitation.revoked`, { headers: { authorization: owner.bearer } });
    const events = log.json<{ events: Array<{ target: { name: string }; details: Record<string, unknown> }> }>().events;
    assert.deepEqual(events.map((event) => [event.target.name, event.details.withdrawn_because]).sort(), [
      ['accomplice@example.net', 'inviter_removed'],
      ['helper@example.net', 'inviter_removed'],
    ]);
  });

  test('an admin who leaves, or whose account is deleted, leaves no invitation behind', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const leaving = await signUpConfirmed(t.app, smtp);
    const deleted = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[leaving, 'admin'], [deleted, 'admin']]);
    const fromLeaving = await invited(workspaceId, leaving, 'from-leaving@example.net', 'editor');
    const fromDeleted = await invited(workspaceId, deleted, 'from-deleted@example.net', 'editor');

    assert.equal((await http.request('DELETE', `/api/v1/workspaces/${workspaceId}/members/${leaving.id}`, { headers: { authorization: leaving.bearer } })).status, 204);
    const gone = await http.request('DELETE', '/api/v1/me', { headers: { authorization: deleted.bearer } });
    assert.equal(gone.status, 204, gone.text);
    assert.deepEqual(await pendingEmails(workspaceId, owner), []);
    await assertInvitationDead(fromLeaving, 'from-leaving@example.net');
    await assertInvitationDead(fromDeleted, 'from-deleted@example.net');
  });

  test('a sender dropped below admin loses every invitation; an owner dropped to admin only those inviting owners', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const admin = await signUpConfirmed(t.app, smtp);
    const coOwner = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[admin, 'admin'], [coOwner, 'owner']]);
    const byAdmin = await invited(workspaceId, admin, 'by-admin@example.net', 'viewer');
    const ownerInvite = await invited(workspaceId, coOwner, 'new-owner@example.net', 'owner');
    const adminInvite = await invited(workspaceId, coOwner, 'new-admin@example.net', 'admin');

    const demote = (member: SignedUpUser, role: WorkspaceRole) =>
      http.request('PATCH', `/api/v1/workspaces/${workspaceId}/members/${member.id}`, { headers: { authorization: owner.bearer }, json: { role } });
    assert.equal((await demote(admin, 'editor')).status, 200);
    assert.equal((await demote(coOwner, 'admin')).status, 200);
    assert.deepEqual(await pendingEmails(workspaceId, owner), ['new-admin@example.net']);
    await assertInvitationDead(byAdmin, 'by-admin@example.net');
    await assertInvitationDead(ownerInvite, 'new-owner@example.net');
    await acceptWorks(adminInvite, 'new-admin@example.net');
  });

  test('removing the sender and accepting fired together: the invited person either joined first or is refused, never joins after', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    for (let round = 0; round < 4; round++) {
      // Made as the operator's command line makes them: sign-ups from one address are limited.
      const admin = await operatorUser(`race-admin-${round}@example.net`);
      const workspaceId = await team(owner, [[admin, 'admin']]);
      const email = `race-${round}@example.net`;
      const token = await invited(workspaceId, admin, email, 'editor');
      const person = await operatorUser(email);
      const session = await http.webSession(email);
      const [removed, accepted] = await Promise.all([
        http.request('DELETE', `/api/v1/workspaces/${workspaceId}/members/${admin.id}`, { headers: { authorization: owner.bearer } }),
        http.request('POST', '/invitations/accept', { headers: session, form: { token } }),
      ]);
      assert.equal(removed.status, 204, removed.text);
      const row = await t.database.db.selectFrom('invitations').select(['accepted_at', 'revoked_at']).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
      const member = await t.database.db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', person.id).executeTakeFirst();
      if (accepted.status === 200) {
        assert.ok(row.accepted_at !== null && row.revoked_at === null, 'joined before the removal committed');
        assert.equal(member?.role, 'editor');
      } else {
        assert.equal(accepted.status, 410, accepted.text);
        assert.ok(row.accepted_at === null && row.revoked_at !== null, 'withdrawn with the removal');
        assert.equal(member, undefined);
      }
    }
  });
});
