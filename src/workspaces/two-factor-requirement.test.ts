import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, createAccessToken, enableTotp, type SignedUpUser, signUpConfirmed, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpAnswer, type HttpClient, listenOnLoopback } from '../../test/http.js';
import { totp } from '../../test/rfc6238.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { type CreationOptions, SoftwareAuthenticator } from '../../test/software-authenticator.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { WorkspaceRole } from '../memberships/permissions.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from './service.js';

/**
 * A workspace's owners may require two-factor authentication of its members (ASVS 6.3.3): while
 * it is on, a member with neither TOTP nor a passkey reaches none of its sites, members or
 * settings, whatever the credential (JWT, web session, access token), and sees the change at their
 * very next request, also with every cache warm. Over real HTTP, with real SMTP.
 */

const TWO_FACTOR_SUBJECT = /now requires two-factor authentication$/;

let smtp: TestSmtpServer;
let t: TestApp;
let http: HttpClient;
beforeEach(async () => {
  ({ t, smtp } = await buildTestAppWithMail());
  http = await listenOnLoopback(t);
});
afterEach(() => t.close());

type Headers = Record<string, string>;

function call(method: string, url: string, headers: Headers, json?: unknown): Promise<HttpAnswer> {
  return http.request(method, url, { headers, ...(json === undefined ? {} : { json }) });
}

async function team(owner: SignedUpUser, members: Array<[SignedUpUser, WorkspaceRole]>): Promise<string> {
  const created = await call('POST', '/api/v1/workspaces', { authorization: owner.bearer }, { name: 'Support team' });
  assert.equal(created.status, 201, created.text);
  const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
  const service = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  for (const [member, role] of members) assert.equal(await service.addMember(workspaceId, member.id, role), true);
  return workspaceId;
}

async function createSiteIn(workspaceId: string, headers: Headers, name = 'Team help desk'): Promise<string> {
  const created = await call('POST', '/api/v1/sites', headers, { name, workspace_id: workspaceId });
  assert.equal(created.status, 201, created.text);
  return created.json<{ site: { id: string } }>().site.id;
}

function requireTwoFactor(workspaceId: string, headers: Headers, on: boolean): Promise<HttpAnswer> {
  return call('PATCH', `/api/v1/workspaces/${workspaceId}`, headers, { require_two_factor: on });
}

function siteNames(answer: HttpAnswer): string[] {
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ sites: Array<{ name: string }> }>().sites.map((site) => site.name).sort();
}

/** Registers a passkey from a software authenticator, as the browser would. */
async function addPasskey(user: SignedUpUser): Promise<void> {
  const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:3000' });
  const options = await call('POST', '/api/v1/me/passkeys/options', { authorization: user.bearer });
  const response = authenticator.create(options.json<{ options: CreationOptions }>().options);
  assert.equal((await call('POST', '/api/v1/me/passkeys', { authorization: user.bearer }, { response })).status, 201);
}

describe('turning the requirement on and off', () => {
  test('an owner without a second factor cannot turn it on (409 two_factor_setup_required); with TOTP they can; admins cannot at all', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const admin = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[admin, 'admin']]);
    const listed = await call('GET', '/api/v1/workspaces', { authorization: owner.bearer });
    assert.equal(listed.json<{ workspaces: Array<{ id: string; require_two_factor: boolean }> }>().workspaces.find((each) => each.id === workspaceId)?.require_two_factor, false);

    assertProblem(await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true), 409, WORKSPACE_ERRORS.TWO_FACTOR_SETUP_REQUIRED);
    await enableTotp(t, admin);
    assertProblem(await requireTwoFactor(workspaceId, { authorization: admin.bearer }, true), 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    assertProblem(await call('PATCH', `/api/v1/workspaces/${workspaceId}`, { authorization: owner.bearer }, {}), 400, 'validation_failed');
    assertProblem(await call('PATCH', `/api/v1/workspaces/${workspaceId}`, { authorization: owner.bearer }, { require_two_factor: 'yes' }), 400, 'validation_failed');

    await enableTotp(t, owner);
    const turnedOn = await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true);
    assert.equal(turnedOn.status, 200, turnedOn.text);
    assert.equal(turnedOn.json<{ workspace: { require_two_factor: boolean; name: string } }>().workspace.require_two_factor, true);
    assert.equal((await call('GET', `/api/v1/workspaces/${workspaceId}`, { authorization: admin.bearer })).json<{ workspace: { require_two_factor: boolean } }>().workspace.require_two_factor, true);

    const log = await call('GET', `/api/v1/workspaces/${workspaceId}/audit-log?action=workspace.updated`, { authorization: owner.bearer });
    assert.deepEqual(log.json<{ events: Array<{ details: unknown }> }>().events.map((event) => event.details), [{ require_two_factor: { before: false, after: true } }]);

    const off = await requireTwoFactor(workspaceId, { authorization: owner.bearer }, false);
    assert.equal(off.json<{ workspace: { require_two_factor: boolean } }>().workspace.require_two_factor, false);
  });

  test('turning it on mails each member who lacks a second factor, and nobody else', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const lacking = await signUpConfirmed(t.app, smtp);
    const withTotp = await signUpConfirmed(t.app, smtp);
    const withPasskey = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[lacking, 'viewer'], [withTotp, 'editor'], [withPasskey, 'admin']]);
    await enableTotp(t, owner);
    await enableTotp(t, withTotp);
    await addPasskey(withPasskey);
    const from = smtp.messages.length;
    assert.equal((await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true)).status, 200);
    const mail = await smtp.waitForMessage(from, (message) => TWO_FACTOR_SUBJECT.test(message.subject));
    assert.deepEqual(mail.to, [lacking.email]);
    assert.match(mail.subject, /^Support team now requires/);
    assert.match(mail.text, /http:\/\/localhost:3000\/settings\/security/);
    // Asking for it again while it is on changes nothing: no second event, so no second round of mail.
    assert.equal((await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true)).status, 200);
    const log = await call('GET', `/api/v1/workspaces/${workspaceId}/audit-log?action=workspace.updated`, { authorization: owner.bearer });
    assert.equal(log.json<{ events: unknown[] }>().events.length, 1);
    assert.deepEqual(
      smtp.messages.slice(from).filter((message) => TWO_FACTOR_SUBJECT.test(message.subject)).map((message) => message.to),
      [[lacking.email]],
    );
  });
});

describe('a member without a second factor', () => {
  test('is refused the workspace\'s sites, members and settings with a JWT, a web session and an access token; their other sites stay open; they may leave', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const member = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[member, 'admin']]);
    const siteId = await createSiteIn(workspaceId, { authorization: owner.bearer });
    await createSiteIn(workspaceId, { authorization: owner.bearer }, 'Trashed team site').then((id) => call('DELETE', `/api/v1/sites/${id}`, { authorization: owner.bearer }));
    await call('POST', '/api/v1/sites', { authorization: member.bearer }, { name: 'My own notes' });
    const token = await createAccessToken(t.app, member);
    const session = await http.webSession(member.email);
    await enableTotp(t, owner);
    assert.equal((await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true)).status, 200);

    const credentials: Array<[string, Headers]> = [
      ['jwt', { authorization: member.bearer }],
      ['session', session],
      ['access token', { authorization: token.header }],
    ];
    for (const [name, headers] of credentials) {
      const refused = [
        await call('GET', `/api/v1/sites/${siteId}`, headers),
        await call('PUT', `/api/v1/sites/${siteId}`, headers, { name: 'Changed' }),
        await call('DELETE', `/api/v1/sites/${siteId}`, headers),
        await call('GET', `/api/v1/sites?workspace_id=${workspaceId}`, headers),
        await call('POST', '/api/v1/sites', headers, { name: 'New', workspace_id: workspaceId }),
        await call('GET', `/api/v1/sites/${siteId}/versions`, headers),
        await call('GET', `/api/v1/sites/${siteId}/partner/checks`, headers),
        await call('GET', `/api/v1/trash?workspace_id=${workspaceId}`, headers),
      ];
      for (const answer of refused) assertProblem(answer, 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
      // The lists leave the workspace out and keep the rest.
      assert.deepEqual(siteNames(await call('GET', '/api/v1/sites', headers)), ['My own notes'], name);
      assert.deepEqual(siteNames(await call('GET', '/api/v1/sites?sort=name&fields=summary', headers)), ['My own notes'], name);
      const trash = await call('GET', '/api/v1/trash', headers);
      assert.deepEqual(trash.json<{ sites: unknown[] }>().sites, [], name);
    }
    for (const [, headers] of credentials.slice(0, 2)) {
      const refused = [
        await call('GET', `/api/v1/workspaces/${workspaceId}`, headers),
        await call('GET', `/api/v1/workspaces/${workspaceId}/members`, headers),
        await call('PATCH', `/api/v1/workspaces/${workspaceId}/members/${owner.id}`, headers, { role: 'editor' }),
        await call('GET', `/api/v1/workspaces/${workspaceId}/invitations`, headers),
        await call('POST', `/api/v1/workspaces/${workspaceId}/invitations`, headers, { email: 'someone@example.com', role: 'viewer' }),
        await call('GET', `/api/v1/workspaces/${workspaceId}/webhooks`, headers),
        await call('GET', `/api/v1/workspaces/${workspaceId}/audit-log`, headers),
      ];
      for (const answer of refused) assertProblem(answer, 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
    }
    // The workspace still shows in their list, saying why it is closed.
    const listed = await call('GET', '/api/v1/workspaces', { authorization: member.bearer });
    assert.equal(listed.json<{ workspaces: Array<{ id: string; require_two_factor: boolean }> }>().workspaces.find((each) => each.id === workspaceId)?.require_two_factor, true);
    // Nothing of the workspace was changed by the refused requests.
    const site = await call('GET', `/api/v1/sites/${siteId}`, { authorization: owner.bearer });
    assert.equal(site.json<{ site: { name: string } }>().site.name, 'Team help desk');
    assert.equal(await t.database.db.selectFrom('invitations').select('id').executeTakeFirst(), undefined);
    // Leaving stays open.
    assert.equal((await call('DELETE', `/api/v1/workspaces/${workspaceId}/members/${member.id}`, { authorization: member.bearer })).status, 204);
    // A non-member still learns nothing: 404, not 403.
    assertProblem(await call('GET', `/api/v1/sites/${siteId}`, { authorization: member.bearer }), 404, 'site_not_found');
  });

  test('with every cache warm, turning the requirement on refuses at the next request, and setting up TOTP or a passkey opens it at the next', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const member = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, [[member, 'editor']]);
    const siteId = await createSiteIn(workspaceId, { authorization: owner.bearer });
    const token = await createAccessToken(t.app, member);
    const session = await http.webSession(member.email);
    const credentials: Headers[] = [{ authorization: member.bearer }, session, { authorization: token.header }];
    const readAll = () => Promise.all(credentials.map((headers) => call('GET', `/api/v1/sites/${siteId}`, headers)));
    const listAll = () => Promise.all(credentials.map((headers) => call('GET', '/api/v1/sites', headers)));
    // Warm: each credential's principal, the site's answer and the list are held.
    for (let i = 0; i < 2; i++) {
      assert.deepEqual((await readAll()).map((answer) => answer.status), [200, 200, 200]);
      for (const answer of await listAll()) assert.deepEqual(siteNames(answer), ['Team help desk']);
    }
    await enableTotp(t, owner);
    assert.equal((await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true)).status, 200);
    for (const answer of await readAll()) assertProblem(answer, 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
    for (const answer of await listAll()) assert.deepEqual(siteNames(answer), []);

    // TOTP turned on: open at once, for every credential.
    const { secret } = await enableTotp(t, member);
    assert.deepEqual((await readAll()).map((answer) => answer.status), [200, 200, 200]);
    for (const answer of await listAll()) assert.deepEqual(siteNames(answer), ['Team help desk']);
    // And off again: closed at once.
    const disabled = await call('DELETE', '/api/v1/me/totp', { authorization: member.bearer }, { code: totp(secret, t.clock.now()) });
    assert.equal(disabled.status, 204, disabled.text);
    for (const answer of await readAll()) assertProblem(answer, 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
    // A passkey counts as well.
    await addPasskey(member);
    assert.deepEqual((await readAll()).map((answer) => answer.status), [200, 200, 200]);
    // Turned off by the owner: open without either.
    const passkeys = await call('GET', '/api/v1/me/passkeys', { authorization: member.bearer });
    const passkeyId = passkeys.json<{ passkeys: Array<{ id: string }> }>().passkeys[0]?.id ?? assert.fail();
    assert.equal((await call('DELETE', `/api/v1/me/passkeys/${passkeyId}`, { authorization: member.bearer })).status, 204);
    for (const answer of await readAll()) assertProblem(answer, 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
    assert.equal((await requireTwoFactor(workspaceId, { authorization: owner.bearer }, false)).status, 200);
    assert.deepEqual((await readAll()).map((answer) => answer.status), [200, 200, 200]);
  });

  test('an owner who gave up their own second factor is shut out of the settings too, and the refusal is a security event', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspaceId = await team(owner, []);
    const { secret } = await enableTotp(t, owner);
    assert.equal((await requireTwoFactor(workspaceId, { authorization: owner.bearer }, true)).status, 200);
    assert.equal((await call('DELETE', '/api/v1/me/totp', { authorization: owner.bearer }, { code: totp(secret, t.clock.now()) })).status, 204);
    assertProblem(await requireTwoFactor(workspaceId, { authorization: owner.bearer }, false), 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
    const refused = t
      .logs()
      .split('\n')
      .filter((line) => line.includes('"request.refused"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(refused.some((line) => line.reason === WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED && line.user_id === owner.id));
    // An access token cannot change the setting at all.
    const token = await createAccessToken(t.app, owner);
    assertProblem(await requireTwoFactor(workspaceId, { authorization: token.header }, false), 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
  });
});
