import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, createAccessToken, enableTotp, type SignedUpUser, signUp, TEST_MAIL_RETRY_DELAYS_MS, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpClient, listenOnLoopback } from '../../test/http.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { AdminService } from '../admin/service.js';
import { SecretBox } from '../lib/crypto.js';
import { Mailer, SmtpTransport } from '../mail/mailer.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { SiteService } from '../sites/service.js';
import { WorkspaceService } from '../workspaces/service.js';
import { CHANGE_REQUEST_ERRORS } from './errors.js';
import { ScheduledChanges } from './scheduler.js';
import type { ChangeRequestJson } from './schema.js';
import { ChangeRequestService } from './service.js';

/**
 * Review holds only while the people behind it still stand where they stood: an approval counts
 * while its giver is enabled, a member, and an admin or owner without a break since approving; a
 * scheduled change passes every check of an apply-now when it falls due; an owner's access token
 * does not bypass review. Over real HTTP; the clock moves and schedulers are drained by hand.
 */

let t: TestApp;
let smtp: TestSmtpServer;
let http: HttpClient;
beforeEach(async () => {
  // The app's own scheduler is paced out of the way: the tests drain one as another app server would.
  ({ t, smtp } = await buildTestAppWithMail({ scheduledChanges: { pollIntervalMs: 3_600_000 } }));
  http = await listenOnLoopback(t);
});
afterEach(() => t.close());

/** A scheduler as another app server runs it: its own services over the same database. */
function scheduler(): ScheduledChanges {
  const secrets = new SecretBox(t.config.encryptionKey);
  const deps = { db: t.database.db, dialect: t.database.dialect, clock: t.clock, secrets, cache: t.cache };
  const sites = new SiteService(deps);
  const mailer = new Mailer(new SmtpTransport(smtp.url), t.config.mailFrom, t.app.log, { retryDelaysMs: TEST_MAIL_RETRY_DELAYS_MS });
  const changeRequests = new ChangeRequestService({ ...deps, sites, mailer, publicUrl: t.config.publicUrl });
  return new ScheduledChanges({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, changeRequests, onError: (error) => assert.fail(String(error)) });
}

interface Team {
  workspace: string;
  site: string;
  owner: SignedUpUser;
  approver: SignedUpUser;
  author: SignedUpUser;
}

const auth = (user: SignedUpUser) => ({ authorization: user.bearer });

async function setReview(team: Team, review: { required: boolean; approvals?: number }): Promise<void> {
  const answer = await http.request('PATCH', `/api/v1/workspaces/${team.workspace}`, { headers: auth(team.owner), json: { review } });
  assert.equal(answer.status, 200, answer.text);
}

/** A workspace with its owner, an admin who reviews and an editor who proposes, and a site. */
async function newTeam(review: { required: boolean; approvals: number }): Promise<Team> {
  const [owner, approver, author] = [await signUp(t.app), await signUp(t.app), await signUp(t.app)];
  const created = await http.request('POST', '/api/v1/workspaces', { headers: auth(owner), json: { name: 'Review' } });
  assert.equal(created.status, 201, created.text);
  const workspace = created.json<{ workspace: { id: string } }>().workspace.id;
  const members = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  assert.equal(await members.addMember(workspace, approver.id, 'admin'), true);
  assert.equal(await members.addMember(workspace, author.id, 'editor'), true);
  const site = await http.request('POST', '/api/v1/sites', { headers: auth(owner), json: { name: 'Help centre', workspace_id: workspace } });
  assert.equal(site.status, 201, site.text);
  const team = { workspace, site: site.json<{ site: { id: string } }>().site.id, owner, approver, author };
  await setReview(team, review);
  return team;
}

const requestUrl = (team: Team, id: string, action = '') => `/api/v1/sites/${team.site}/change-requests/${id}${action}`;

async function propose(team: Team, changes: Record<string, unknown>): Promise<string> {
  const opened = await http.request('POST', `/api/v1/sites/${team.site}/change-requests`, { headers: auth(team.author), json: { title: 'Night release', changes } });
  assert.equal(opened.status, 201, opened.text);
  return opened.json<{ change_request: { id: string } }>().change_request.id;
}

async function approve(team: Team, id: string, by: SignedUpUser): Promise<void> {
  const approved = await http.request('POST', requestUrl(team, id, '/approve'), { headers: auth(by) });
  assert.equal(approved.status, 200, approved.text);
}

async function schedule(team: Team, id: string, inMs: number): Promise<void> {
  const at = new Date(t.clock.now().getTime() + inMs).toISOString();
  const scheduled = await http.request('POST', requestUrl(team, id, '/apply'), { headers: auth(team.author), json: { at } });
  assert.equal(scheduled.status, 200, scheduled.text);
  assert.equal(scheduled.json<{ change_request: ChangeRequestJson }>().change_request.status, 'scheduled');
}

async function requestOf(team: Team, id: string): Promise<ChangeRequestJson> {
  const answer = await http.request('GET', requestUrl(team, id), { headers: auth(team.owner) });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ change_request: ChangeRequestJson }>().change_request;
}

async function aiSettings(team: Team): Promise<string> {
  return (await http.request('GET', `/api/v1/sites/${team.site}`, { headers: auth(team.owner) })).json<{ site: { ai_settings: string } }>().site.ai_settings;
}

function changeRole(team: Team, member: SignedUpUser, role: WorkspaceRole) {
  return http.request('PATCH', `/api/v1/workspaces/${team.workspace}/members/${member.id}`, { headers: auth(team.owner), json: { role } });
}

async function removeMember(team: Team, member: SignedUpUser): Promise<void> {
  const removed = await http.request('DELETE', `/api/v1/workspaces/${team.workspace}/members/${member.id}`, { headers: auth(team.owner) });
  assert.equal(removed.status, 204, removed.text);
}

/**
 * Drains a scheduler once the request is due and checks what a refused due change leaves: the
 * request failed with `code`, the site as it was, the audit event, and a mail to its author.
 */
async function assertDueChangeFails(team: Team, id: string, code: string): Promise<void> {
  const mailsBefore = smtp.messages.length;
  const runner = scheduler();
  try {
    t.clock.advance(60_000);
    assert.equal(await runner.drain(), 1);
  } finally {
    await runner.close();
  }
  const request = await requestOf(team, id);
  assert.equal(request.status, 'failed', JSON.stringify(request));
  assert.equal(request.failure?.code, code);
  assert.equal(request.applied_version, null);
  assert.equal(await aiSettings(team), '', 'nothing of the site changed');
  const versions = await t.database.db.selectFrom('site_versions').select('version').where('site_id', '=', team.site).execute();
  assert.equal(versions.length, 1);
  const events = await t.database.db.selectFrom('audit_events').select(['action', 'details']).where('workspace_id', '=', team.workspace).where('action', '=', 'change_request.failed').execute();
  assert.equal(events.length, 1);
  assert.equal((JSON.parse(events[0]?.details ?? '{}') as { reason?: string }).reason, code);
  const mail = await smtp.waitForMessage(mailsBefore, (message) => message.subject === 'Scheduled change not applied: Night release');
  assert.deepEqual(mail.to, [team.author.email]);
}

describe('a scheduled change passes every check of an apply-now when it falls due', () => {
  test('its approver demoted to viewer after it was scheduled: it fails with approvals_missing', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Scheduled' });
    await approve(team, id, team.approver);
    await schedule(team, id, 60_000);
    assert.equal((await changeRole(team, team.approver, 'viewer')).status, 200);
    await assertDueChangeFails(team, id, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
  });

  test('review turned on after it was scheduled without approvals: it fails with approvals_missing', async () => {
    const team = await newTeam({ required: false, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Scheduled' });
    await schedule(team, id, 60_000);
    await setReview(team, { required: true, approvals: 1 });
    await assertDueChangeFails(team, id, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
  });

  test('its author and its approver both removed from the workspace: it fails with author_not_allowed, and the author is still told', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Scheduled' });
    await approve(team, id, team.approver);
    await schedule(team, id, 60_000);
    await removeMember(team, team.author);
    await removeMember(team, team.approver);
    await assertDueChangeFails(team, id, CHANGE_REQUEST_ERRORS.AUTHOR_NOT_ALLOWED);
  });

  test('its author demoted to viewer: it fails with author_not_allowed, though its approval still stands', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Scheduled' });
    await approve(team, id, team.approver);
    await schedule(team, id, 60_000);
    assert.equal((await changeRole(team, team.author, 'viewer')).status, 200);
    assert.equal((await requestOf(team, id)).approvals.length, 1);
    await assertDueChangeFails(team, id, CHANGE_REQUEST_ERRORS.AUTHOR_NOT_ALLOWED);
  });

  test('its workspace requiring two-factor authentication since, of an author without a second factor: it fails with two_factor_required', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Scheduled' });
    await approve(team, id, team.approver);
    await schedule(team, id, 60_000);
    await enableTotp(t, team.owner);
    const required = await http.request('PATCH', `/api/v1/workspaces/${team.workspace}`, { headers: auth(team.owner), json: { require_two_factor: true } });
    assert.equal(required.status, 200, required.text);
    await assertDueChangeFails(team, id, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
  });

  test('one whose author and approver still stand is applied', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Scheduled' });
    await approve(team, id, team.approver);
    await schedule(team, id, 60_000);
    const runner = scheduler();
    t.clock.advance(60_000);
    assert.equal(await runner.drain(), 1);
    await runner.close();
    const request = await requestOf(team, id);
    assert.deepEqual([request.status, request.applied_version, request.failure], ['applied', 2, null]);
    assert.equal(await aiSettings(team), 'Scheduled');
  });
});

describe('an approval counts only while its giver is enabled, a member, and an admin or owner without a break', () => {
  test('an approval by an account since disabled does not count, nor show', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Proposed' });
    await approve(team, id, team.approver);
    assert.equal((await requestOf(team, id)).approvals.length, 1);
    const operator = await signUp(t.app);
    await new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).promote(operator.email);
    const disabled = await http.request('POST', `/api/v1/admin/users/${team.approver.id}/disable`, { headers: auth(operator) });
    assert.equal(disabled.status, 200, disabled.text);
    assert.deepEqual((await requestOf(team, id)).approvals, []);
    assertProblem(await http.request('POST', requestUrl(team, id, '/apply'), { headers: auth(team.author), json: {} }), 409, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
    assert.equal(await aiSettings(team), '');
  });

  test('a demoted and re-promoted admin\'s earlier approval is withdrawn for good; a new one counts', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const id = await propose(team, { ai_settings: 'Proposed' });
    await approve(team, id, team.approver);
    assert.equal((await changeRole(team, team.approver, 'editor')).status, 200);
    assert.equal((await changeRole(team, team.approver, 'admin')).status, 200);
    assert.deepEqual((await requestOf(team, id)).approvals, []);
    assertProblem(await http.request('POST', requestUrl(team, id, '/apply'), { headers: auth(team.author), json: {} }), 409, CHANGE_REQUEST_ERRORS.APPROVALS_MISSING);
    assert.equal(await aiSettings(team), '');
    // Approving again, now, is an approval by an admin who has not lost the role since.
    await approve(team, id, team.approver);
    assert.deepEqual((await requestOf(team, id)).approvals.map((approval) => approval.user?.id), [team.approver.id]);
    const applied = await http.request('POST', requestUrl(team, id, '/apply'), { headers: auth(team.author), json: {} });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(await aiSettings(team), 'Proposed');
  });

  test('an admin raised to owner keeps their approval; a removed and re-added admin\'s is gone', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const kept = await propose(team, { ai_settings: 'Kept' });
    await approve(team, kept, team.approver);
    assert.equal((await changeRole(team, team.approver, 'owner')).status, 200);
    assert.equal((await requestOf(team, kept)).approvals.length, 1, 'admin to owner is no break');

    const other = await propose(team, { widget: 'w' });
    await approve(team, other, team.approver);
    assert.equal((await changeRole(team, team.approver, 'admin')).status, 200);
    assert.equal((await requestOf(team, other)).approvals.length, 1, 'owner to admin is no break either');
    await removeMember(team, team.approver);
    const members = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
    assert.equal(await members.addMember(team.workspace, team.approver.id, 'admin'), true);
    assert.deepEqual((await requestOf(team, other)).approvals, []);
    assert.deepEqual((await requestOf(team, kept)).approvals, []);
  });
});

describe('an owner bypasses review only signed in as a person', () => {
  test('an owner\'s access token is 403 review_required for PUT and version restore; a web session and a JWT bypass on the record', async () => {
    const team = await newTeam({ required: true, approvals: 1 });
    const token = (await createAccessToken(t.app, team.owner)).header;
    assertProblem(await http.request('PUT', `/api/v1/sites/${team.site}`, { headers: { authorization: token }, json: { ai_settings: 'by token' } }), 403, SITE_ERRORS.REVIEW_REQUIRED);
    assertProblem(await http.request('POST', `/api/v1/sites/${team.site}/versions/1/restore`, { headers: { authorization: token } }), 403, SITE_ERRORS.REVIEW_REQUIRED);
    assert.equal(await aiSettings(team), '');

    const session = await http.webSession(team.owner.email);
    const bySession = await http.request('PUT', `/api/v1/sites/${team.site}`, { headers: session, json: { ai_settings: 'by session' } });
    assert.equal(bySession.status, 200, bySession.text);
    const byJwt = await http.request('POST', `/api/v1/sites/${team.site}/versions/1/restore`, { headers: auth(team.owner) });
    assert.equal(byJwt.status, 200, byJwt.text);
    const versions = (await http.request('GET', `/api/v1/sites/${team.site}/versions`, { headers: auth(team.owner) })).json<{ versions: Array<{ version: number; via: { type: string; review_bypassed?: boolean } }> }>().versions;
    assert.deepEqual(
      versions.map((version) => [version.version, version.via.type, version.via.review_bypassed ?? false]),
      [
        [3, 'jwt', true],
        [2, 'session', true],
        [1, 'jwt', false],
      ],
    );
  });
});
