import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, createAccessToken, sessionCookie, signUp, signUpConfirmed, type SignedUpUser, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../test/smtp.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { RATE_LIMIT_ERRORS } from '../rate-limit/errors.js';
import { EMAIL_VERIFICATION_ERRORS } from '../email-verification/errors.js';
import { sha256 } from '../lib/crypto.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from './service.js';

/**
 * Invitations, over real HTTP on loopback and a real SMTP server: the token travels only in the
 * mail, the link's page never uses it, and only the invited address's account joins, once.
 */

const ORIGIN = 'http://localhost:3000';
const LINK = /https?:\/\/\S+\/invitations\/accept\?token=([A-Za-z0-9_-]+)/;

let t: TestApp;
let smtp: TestSmtpServer;
let base: string;
/** Every body the server answered in the test, to prove where the token never appears. */
let bodies: Array<{ url: string; type: string; body: string }>;

beforeEach(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  bodies = [];
});
afterEach(async () => {
  await t.close();
  await smtp.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed, typed as the other tests' injected answers are. */
  json: LightMyRequestResponse['json'];
}

async function call(method: string, url: string, options: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await fetch(`${base}${url}`, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  bodies.push({ url, type: response.headers.get('content-type') ?? '', body: text });
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

function assertProblem(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(answer.json().code, code, answer.text);
}

function workspaceService(): WorkspaceService {
  return new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
}

async function createWorkspace(owner: SignedUpUser, name = 'Support team'): Promise<string> {
  const created = await call('POST', '/api/v1/workspaces', { headers: { authorization: owner.bearer }, json: { name } });
  assert.equal(created.status, 201, created.text);
  return created.json().workspace.id;
}

function invite(workspaceId: string, authorization: string, email: string, role: WorkspaceRole = 'editor'): Promise<Answer> {
  return call('POST', `/api/v1/workspaces/${workspaceId}/invitations`, { headers: { authorization }, json: { email, role } });
}

function invitationMailTo(email: string, from = 0): Promise<ReceivedMail> {
  return smtp.waitForMessage(from, (mail) => mail.to.includes(email) && LINK.test(mail.text));
}

/** Invites the address and reads the token out of the mail it gets, as its holder would. */
async function invited(workspaceId: string, authorization: string, email: string, role: WorkspaceRole = 'editor'): Promise<{ id: string; token: string; link: URL }> {
  const before = smtp.messages.length;
  const answer = await invite(workspaceId, authorization, email, role);
  assert.equal(answer.status, 201, answer.text);
  const mail = await invitationMailTo(email, before);
  const match = LINK.exec(mail.text);
  assert.ok(match !== null, mail.text);
  return { id: answer.json().invitation.id, token: match[1] ?? '', link: new URL(match[0]) };
}

function acceptByApi(authorization: string, token: string): Promise<Answer> {
  return call('POST', '/api/v1/invitations/accept', { headers: { authorization }, json: { token } });
}

function openLink(token: string, headers: Record<string, string> = {}): Promise<Answer> {
  return call('GET', `/invitations/accept?token=${encodeURIComponent(token)}`, { headers });
}

async function webSession(email: string): Promise<string> {
  const answer = await call('POST', '/auth/session', { headers: { origin: ORIGIN }, json: { email, password: STRONG_PASSWORD } });
  assert.equal(answer.status, 200, answer.text);
  const cookie = sessionCookie(answer.headers.getSetCookie());
  assert.ok(cookie !== undefined);
  return cookie.header;
}

async function roleIn(workspaceId: string, userId: string): Promise<string | undefined> {
  const row = await t.database.db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role;
}

async function invitationRow(id: string) {
  return t.database.db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('inviting', () => {
  test('an admin invites an address: 201 with the invitation, a mailed link valid 7 days, and only the token\'s hash stored', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const answer = await invite(workspace, owner.bearer, '  New.Person@Example.com ', 'viewer');
    assert.equal(answer.status, 201, answer.text);
    const { invitation } = answer.json();
    assert.deepEqual(Object.keys(invitation).sort(), ['email', 'expires_at', 'id', 'role']);
    assert.equal(invitation.email, 'new.person@example.com');
    assert.equal(invitation.role, 'viewer');
    assert.equal(invitation.expires_at, new Date(t.clock.now().getTime() + 7 * 24 * 3_600_000).toISOString());

    const mail = await invitationMailTo('new.person@example.com');
    assert.match(mail.text, /invited you to join the workspace "Support team" on Siteward as viewer/);
    assert.match(mail.text, new RegExp(owner.email.replace(/[.+]/g, '\\$&')));
    const match = LINK.exec(mail.text);
    assert.ok(match !== null);
    assert.ok(match[0].startsWith(`${ORIGIN}/invitations/accept?token=`));
    const token = match[1] ?? '';
    const row = await invitationRow(invitation.id);
    assert.equal(row.token_hash, sha256(token));
    assert.equal(row.invited_by, owner.id);

    const listed = await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: owner.bearer } });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.json(), { invitations: [invitation] });
    for (const { body } of bodies) assert.ok(!body.includes(token), 'no answer carries the token');
    assert.ok(!t.logs().includes(token), 'the log never holds the token');
  });

  test('an owner may invite an owner; an admin may not, and a viewer or editor may not invite at all; a non-member learns nothing', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const members: Partial<Record<WorkspaceRole, SignedUpUser>> = {};
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const member = await signUpConfirmed(t.app, smtp);
      assert.equal(await workspaceService().addMember(workspace, member.id, role), true);
      members[role] = member;
    }
    const outsider = await signUpConfirmed(t.app, smtp);
    assertProblem(await invite(workspace, members.viewer?.bearer ?? '', 'a@example.com'), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await invite(workspace, members.editor?.bearer ?? '', 'a@example.com'), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await invite(workspace, outsider.bearer, 'a@example.com'), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    assertProblem(await invite(workspace, members.admin?.bearer ?? '', 'a@example.com', 'owner'), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: members.editor?.bearer ?? '' } }), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: outsider.bearer } }), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    assert.equal((await invite(workspace, members.admin?.bearer ?? '', 'a@example.com', 'admin')).status, 201);
    assert.equal((await invite(workspace, owner.bearer, 'b@example.com', 'owner')).status, 201);
    // Refused requests mailed nothing: two invitations, two mails.
    const rows = await t.database.db.selectFrom('invitations').select('email').execute();
    assert.deepEqual(rows.map((row) => row.email).sort(), ['a@example.com', 'b@example.com']);
  });

  test('an inviter whose address is not verified is refused (403 email_not_verified), and nothing is mailed', async () => {
    const owner = await signUp(t.app);
    const workspace = await createWorkspace(owner);
    assertProblem(await invite(workspace, owner.bearer, 'someone@example.com'), 403, EMAIL_VERIFICATION_ERRORS.EMAIL_NOT_VERIFIED);
    assert.equal((await t.database.db.selectFrom('invitations').select('id').execute()).length, 0);
  });

  test('an address that is already a member is refused (409 already_member)', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const member = await signUp(t.app, 'Member@example.com');
    const workspace = await createWorkspace(owner);
    assert.equal(await workspaceService().addMember(workspace, member.id, 'viewer'), true);
    assertProblem(await invite(workspace, owner.bearer, 'MEMBER@example.com'), 409, WORKSPACE_ERRORS.ALREADY_MEMBER);
  });

  test('an access token cannot manage invitations or accept one', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const token = await createAccessToken(t.app, owner);
    assertProblem(await invite(workspace, token.header, 'a@example.com'), 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
    assertProblem(await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: token.header } }), 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
    assertProblem(await acceptByApi(token.header, 'x'.repeat(43)), 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
  });

  test('invitations per user are limited, counted before anything is mailed', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const answers = await Promise.all(Array.from({ length: 25 }, (_, index) => invite(workspace, owner.bearer, `person${index}@example.com`)));
    assert.equal(answers.filter((answer) => answer.status === 201).length, 20);
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
      assertProblem(answer, 429, RATE_LIMIT_ERRORS.RATE_LIMITED);
      assert.ok(Number(answer.headers.get('retry-after')) > 0);
    }
    assert.equal((await t.database.db.selectFrom('invitations').select('id').execute()).length, 20);
  });

  test('inviting an address again withdraws its earlier invitation: the newest link is the one that works', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const first = await invited(workspace, owner.bearer, 'again@example.com', 'viewer');
    const second = await invited(workspace, owner.bearer, 'again@example.com', 'editor');
    const listed = (await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: owner.bearer } })).json();
    assert.deepEqual(listed.invitations.map((invitation: { id: string }) => invitation.id), [second.id]);
    const person = await signUp(t.app, 'again@example.com');
    assertProblem(await acceptByApi(person.bearer, first.token), 410, WORKSPACE_ERRORS.INVITATION_INVALID);
    assert.equal((await acceptByApi(person.bearer, second.token)).status, 200);
    assert.equal(await roleIn(workspace, person.id), 'editor');
  });
});

describe('the link and accepting', () => {
  test('opening the link (GET, HEAD, twice, signed in or out) accepts nothing; then accepting joins with the invited role', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const person = await signUp(t.app, 'joiner@example.com');
    const { id, token } = await invited(workspace, owner.bearer, 'joiner@example.com', 'editor');
    const cookie = await webSession('joiner@example.com');

    const first = await openLink(token);
    const second = await openLink(token, { cookie });
    const head = await call('HEAD', `/invitations/accept?token=${token}`, { headers: { cookie } });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(head.status, 200);
    assert.match(second.text, /<form method="post" action="\/invitations\/accept">/);
    assert.match(second.text, /Support team/);
    assert.equal(second.headers.get('cache-control'), 'no-store');
    assert.equal(second.headers.get('referrer-policy'), 'no-referrer');
    assert.equal((await invitationRow(id)).accepted_at, null);
    assert.equal(await roleIn(workspace, person.id), undefined);

    const accepted = await acceptByApi(person.bearer, token);
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(accepted.json().workspace, { id: workspace, name: 'Support team', role: 'editor', personal: false, require_two_factor: false, review: { required: false, approvals: 1 }, created_at: accepted.json().workspace.created_at });
    assert.equal(await roleIn(workspace, person.id), 'editor');
    // The new member sees the workspace at once (the membership caches were told).
    const list = (await call('GET', '/api/v1/workspaces', { headers: { authorization: person.bearer } })).json();
    assert.ok(list.workspaces.some((entry: { id: string }) => entry.id === workspace));
    const row = await invitationRow(id);
    assert.equal(row.accepted_by, person.id);
    assert.notEqual(row.accepted_at, null);
    const pending = (await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: owner.bearer } })).json();
    assert.deepEqual(pending.invitations, []);
  });

  test('a mail scanner (GET with no cookie) sees the sign-in page and changes nothing', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const person = await signUp(t.app, 'scanned@example.com');
    const { id, token } = await invited(workspace, owner.bearer, 'scanned@example.com');
    const before = await invitationRow(id);
    const users = await t.database.db.selectFrom('users').select(['id', 'email_verified_at', 'updated_at']).orderBy('id').execute();
    for (let i = 0; i < 3; i++) {
      const page = await openLink(token, { 'user-agent': 'LinkScanner/1.0' });
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('set-cookie'), null);
      assert.doesNotMatch(page.text, /<form/);
      assert.match(page.text, /href="\/sign-in\?next=%2Finvitations%2Faccept%3Ftoken%3D/);
      assert.match(page.text, /href="\/sign-up\?next=%2Finvitations%2Faccept%3Ftoken%3D/);
    }
    assert.deepEqual(await invitationRow(id), before);
    assert.deepEqual(await t.database.db.selectFrom('users').select(['id', 'email_verified_at', 'updated_at']).orderBy('id').execute(), users);
    assert.equal(await roleIn(workspace, person.id), undefined);
  });

  test('a used invitation cannot be used again: 410 invitation_invalid, and its page says so', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const person = await signUp(t.app, 'once@example.com');
    const { token } = await invited(workspace, owner.bearer, 'once@example.com');
    assert.equal((await acceptByApi(person.bearer, token)).status, 200);
    assertProblem(await acceptByApi(person.bearer, token), 410, WORKSPACE_ERRORS.INVITATION_INVALID);
    assert.equal((await openLink(token)).status, 410);
    const cookie = await webSession('once@example.com');
    const form = await call('POST', '/invitations/accept', { headers: { cookie, origin: ORIGIN }, form: { token } });
    assert.equal(form.status, 410);
    assert.match(form.text, /no longer works/);
    assertProblem(await acceptByApi(person.bearer, 'not-a-token'), 410, WORKSPACE_ERRORS.INVITATION_INVALID);
  });

  test('an invitation expires after 7 days', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const { token } = await invited(workspace, owner.bearer, 'late@example.com');
    t.clock.advance(7 * 24 * 3_600_000 - 1000);
    assert.equal((await openLink(token)).status, 200);
    t.clock.advance(1000);
    assert.equal((await openLink(token)).status, 410);
    // Signed up now: a JWT of a week ago has expired too.
    const person = await signUp(t.app, 'late@example.com');
    assertProblem(await acceptByApi(person.bearer, token), 410, WORKSPACE_ERRORS.INVITATION_INVALID);
    const listed = (await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { cookie: await webSession(owner.email) } })).json();
    assert.deepEqual(listed.invitations, []);
    assert.equal(await roleIn(workspace, person.id), undefined);
  });

  test('a revoked invitation no longer works; another workspace\'s invitation id is 404', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const otherOwner = await signUpConfirmed(t.app, smtp);
    const otherWorkspace = await createWorkspace(otherOwner, 'Elsewhere');
    const person = await signUp(t.app, 'revoked@example.com');
    const { id, token } = await invited(workspace, owner.bearer, 'revoked@example.com');
    // The other workspace's owner cannot reach it through their own workspace's path.
    assertProblem(await call('DELETE', `/api/v1/workspaces/${otherWorkspace}/invitations/${id}`, { headers: { authorization: otherOwner.bearer } }), 404, WORKSPACE_ERRORS.INVITATION_NOT_FOUND);
    assertProblem(await call('DELETE', `/api/v1/workspaces/${workspace}/invitations/${id}`, { headers: { authorization: otherOwner.bearer } }), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    assert.equal((await call('DELETE', `/api/v1/workspaces/${workspace}/invitations/${id}`, { headers: { authorization: owner.bearer } })).status, 204);
    assertProblem(await call('DELETE', `/api/v1/workspaces/${workspace}/invitations/${id}`, { headers: { authorization: owner.bearer } }), 404, WORKSPACE_ERRORS.INVITATION_NOT_FOUND);
    assert.equal((await openLink(token)).status, 410);
    assertProblem(await acceptByApi(person.bearer, token), 410, WORKSPACE_ERRORS.INVITATION_INVALID);
    assert.equal(await roleIn(workspace, person.id), undefined);
  });

  test('someone signed in with another address is refused (403 invitation_email_mismatch) and does not use the invitation up', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const intruder = await signUpConfirmed(t.app, smtp);
    const person = await signUp(t.app, 'rightful@example.com');
    const { token } = await invited(workspace, owner.bearer, 'rightful@example.com');
    assertProblem(await acceptByApi(intruder.bearer, token), 403, WORKSPACE_ERRORS.INVITATION_EMAIL_MISMATCH);
    const cookie = await webSession(intruder.email);
    const page = await openLink(token, { cookie });
    assert.match(page.text, /for another address/);
    assert.doesNotMatch(page.text, /<form/);
    const form = await call('POST', '/invitations/accept', { headers: { cookie, origin: ORIGIN }, form: { token } });
    assert.equal(form.status, 403);
    assert.equal(await roleIn(workspace, intruder.id), undefined);
    assert.equal((await acceptByApi(person.bearer, token)).status, 200);
    assert.equal(await roleIn(workspace, person.id), 'editor');
  });

  test('a member already keeps their role; the invitation is used', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const person = await signUp(t.app, 'early@example.com');
    const { id, token } = await invited(workspace, owner.bearer, 'early@example.com', 'viewer');
    assert.equal(await workspaceService().addMember(workspace, person.id, 'admin'), true);
    const accepted = await acceptByApi(person.bearer, token);
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.json().workspace.role, 'admin');
    assert.equal(await roleIn(workspace, person.id), 'admin');
    assert.notEqual((await invitationRow(id)).accepted_at, null);
  });

  test('accepts of one token fired together: exactly one succeeds, the rest are 410', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const person = await signUp(t.app, 'racer@example.com');
    const { token } = await invited(workspace, owner.bearer, 'racer@example.com');
    const answers = await Promise.all(Array.from({ length: 8 }, () => acceptByApi(person.bearer, token)));
    assert.deepEqual(answers.map((answer) => answer.status).filter((status) => status === 200), [200]);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) assertProblem(answer, 410, WORKSPACE_ERRORS.INVITATION_INVALID);
    assert.equal(await roleIn(workspace, person.id), 'editor');
  });

  test('the accept form refuses a cross-site post, and sends a signed-out browser back to the page', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    await signUp(t.app, 'form@example.com');
    const { id, token } = await invited(workspace, owner.bearer, 'form@example.com');
    const cookie = await webSession('form@example.com');
    const forged = await call('POST', '/invitations/accept', { headers: { cookie, origin: 'https://evil.example' }, form: { token } });
    assertProblem(forged, 403, AUTH_ERRORS.CROSS_SITE_REQUEST);
    const signedOut = await call('POST', '/invitations/accept', { headers: { origin: ORIGIN }, form: { token } });
    assert.equal(signedOut.status, 303);
    assert.equal(signedOut.headers.get('location'), `/invitations/accept?token=${token}`);
    assert.equal((await invitationRow(id)).accepted_at, null);
  });

  test('signing up through an invitation: the page leads to sign-up and back, and accepting verifies the address and joins', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const { token, link } = await invited(workspace, owner.bearer, 'newcomer@example.com', 'viewer');
    const page = await call('GET', `${link.pathname}${link.search}`);
    const signUpHref = /href="(\/sign-up\?next=[^"]+)"/.exec(page.text)?.[1];
    assert.ok(signUpHref !== undefined, page.text);
    const signUpUrl = new URL(signUpHref.replaceAll('&#38;', '&'), ORIGIN);
    assert.equal(signUpUrl.searchParams.get('next'), `/invitations/accept?token=${token}`);
    // The form starts with the invited address, as does the sign-in form the page links to.
    assert.equal(signUpUrl.searchParams.get('email'), 'newcomer@example.com');
    const signInHref = /href="(\/sign-in\?[^"]+)"/.exec(page.text)?.[1] ?? '';
    assert.equal(new URL(signInHref.replaceAll('&#38;', '&'), ORIGIN).searchParams.get('email'), 'newcomer@example.com');

    // The dashboard's sign-up: the account, then a web session with the same password.
    const created = await call('POST', '/auth/signup', { json: { email: 'newcomer@example.com', password: STRONG_PASSWORD } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json().user.email_verified, false);
    const cookie = await webSession('newcomer@example.com');
    const back = await call('GET', signUpUrl.searchParams.get('next') ?? '', { headers: { cookie } });
    assert.equal(back.status, 200);
    assert.match(back.text, /<button type="submit">Join<\/button>/);
    const joined = await call('POST', '/invitations/accept', { headers: { cookie, origin: ORIGIN }, form: { token } });
    assert.equal(joined.status, 200, joined.text);
    assert.match(joined.text, /You joined <strong>Support team<\/strong> as <strong>viewer<\/strong>/);

    const me = (await call('GET', '/api/v1/me', { headers: { cookie } })).json();
    assert.equal(me.user.email_verified, true);
    assert.equal(await roleIn(workspace, me.user.id), 'viewer');
    // Verified now, the newcomer may invite others in turn.
    const ownWorkspace = (await call('GET', '/api/v1/workspaces', { headers: { cookie } })).json().workspaces.find((entry: { personal: boolean }) => entry.personal).id;
    assert.equal((await call('POST', `/api/v1/workspaces/${ownWorkspace}/invitations`, { headers: { cookie, origin: ORIGIN }, json: { email: 'friend@example.com', role: 'viewer' } })).status, 201);
  });

  test('the token appears in no JSON answer and never in the log; the page echoes it only to the one who opened the link', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await createWorkspace(owner);
    const person = await signUp(t.app, 'quiet@example.com');
    const { token } = await invited(workspace, owner.bearer, 'quiet@example.com');
    await call('GET', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: owner.bearer } });
    await openLink(token);
    await acceptByApi(person.bearer, token);
    await acceptByApi(person.bearer, token);
    await openLink(token);
    for (const answer of bodies) {
      if (answer.type.startsWith('text/html') && answer.url.includes(token)) continue;
      assert.ok(!answer.body.includes(token), `${answer.url} answered the token`);
    }
    assert.ok(!t.logs().includes(token), 'the log never holds the token');
  });
});
