import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { buildTestApp, createAccessToken, sessionCookie, signUp, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { finishSignIn, pageCode, signInThroughProvider, startOidcProvider, type TestClient, type TestOidcProvider } from '../../test/oidc-provider.js';
import { SoftwareAuthenticator } from '../../test/software-authenticator.js';
import { startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';

const ORIGIN = 'http://localhost:3000';
const TEN_MINUTES = 10 * 60 * 1000;
const STAFF: TestClient = { client_id: 'siteward', client_secret: `staff-${randomBytes(8).toString('hex')}`, redirect_uris: [`${ORIGIN}/auth/oidc/staff/callback`] };
const GITLAB: TestClient = { client_id: 'siteward', client_secret: `gitlab-${randomBytes(8).toString('hex')}`, redirect_uris: [`${ORIGIN}/auth/oidc/gitlab/callback`] };

let staff: TestOidcProvider;
let gitlab: TestOidcProvider;
let smtp: TestSmtpServer;
let providersFile: string;
let t: TestApp;

before(async () => {
  [staff, gitlab, smtp] = await Promise.all([startOidcProvider({ clients: [STAFF], accounts: {} }), startOidcProvider({ clients: [GITLAB], accounts: {} }), startSmtpServer()]);
  providersFile = path.join(mkdtempSync(path.join(tmpdir(), 'siteward-oidc-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify([
      { id: 'staff', name: 'Staff login', issuer: staff.issuer, client_id: STAFF.client_id, client_secret: STAFF.client_secret },
      { id: 'gitlab', name: 'GitLab', issuer: gitlab.issuer, client_id: GITLAB.client_id, client_secret: GITLAB.client_secret },
    ]),
  );
});
after(async () => {
  await Promise.all([staff.close(), gitlab.close(), smtp.close()]);
  rmSync(path.dirname(providersFile), { recursive: true, force: true });
});
beforeEach(async () => {
  t = await buildTestApp({ env: { OIDC_PROVIDERS_FILE: providersFile, SMTP_URL: smtp.url } });
});
afterEach(async () => {
  await t.close();
});

/** The same person at both providers, with a verified address. */
function person(): { login: string; email: string } {
  const login = `p-${randomBytes(5).toString('hex')}`;
  const email = `${login}@example.com`;
  staff.accounts[login] = { email, email_verified: true };
  gitlab.accounts[login] = { email, email_verified: true };
  return { login, email };
}

function cookieOf(response: { headers: Record<string, unknown> }): string {
  const cookie = sessionCookie(response.headers['set-cookie'] as string[] | string | undefined);
  assert.ok(cookie !== undefined, 'a session cookie was set');
  return cookie.header;
}

async function ssoOnlyAccount(): Promise<{ email: string; login: string; cookie: string }> {
  const someone = person();
  const response = await signInThroughProvider(t.app, staff, someone.login, { provider: 'staff' });
  assert.equal(response.statusCode, 303, response.body);
  return { ...someone, cookie: cookieOf(response) };
}

function identities(headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me/identities', headers });
}

function unlink(cookie: string, provider: string) {
  return t.app.inject({ method: 'DELETE', url: `/api/v1/me/identities/${provider}`, headers: { cookie, origin: ORIGIN } });
}

async function passwordSession(email: string): Promise<string> {
  return cookieOf(await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email, password: STRONG_PASSWORD } }));
}

test("each account lists its own identities, and only to its owner's sign-in", async () => {
  const first = await ssoOnlyAccount();
  const second = await ssoOnlyAccount();
  const listed = await identities({ cookie: first.cookie });
  assert.equal(listed.statusCode, 200);
  assert.deepEqual(Object.keys(listed.json().identities[0]).sort(), ['email', 'linked_at', 'provider', 'subject']);
  assert.deepEqual(
    listed.json().identities.map((identity: { provider: string; subject: string }) => [identity.provider, identity.subject]),
    [['staff', first.login]],
  );
  assert.deepEqual(
    (await identities({ cookie: second.cookie })).json().identities.map((identity: { subject: string }) => identity.subject),
    [second.login],
  );
  const owner = await signUp(t.app);
  const token = await createAccessToken(t.app, owner);
  assert.equal((await identities({ authorization: token.header })).statusCode, 403, 'an access token reaches sites, not the account');
  assert.equal((await identities({})).statusCode, 401);
});

test('the last way in cannot be unlinked; with a password set, it can, and the owner is mailed', async () => {
  const account = await ssoOnlyAccount();
  const refused = await unlink(account.cookie, 'staff');
  assert.equal(refused.statusCode, 409);
  assert.equal(refused.json().code, 'last_sign_in_method');
  assert.equal((await identities({ cookie: account.cookie })).json().identities.length, 1);

  // Right after signing in through the provider, a password needs no current one.
  const password = await t.app.inject({ method: 'POST', url: '/api/v1/me/password', headers: { cookie: account.cookie, origin: ORIGIN }, payload: { new_password: STRONG_PASSWORD } });
  assert.equal(password.statusCode, 204, password.body);
  const before = smtp.messages.length;
  assert.equal((await unlink(account.cookie, 'staff')).statusCode, 204);
  assert.deepEqual((await identities({ cookie: account.cookie })).json().identities, []);
  const notice = await smtp.waitForMessage(before, (mail) => mail.to.includes(account.email) && mail.subject === 'A sign-in provider was unlinked from your Siteward account');
  assert.match(notice.text, /Name: Staff login/);
  const events = (await t.app.inject({ method: 'GET', url: '/api/v1/me/security-events', headers: { cookie: account.cookie } })).json().events;
  assert.equal(events[0].type, 'identity.unlinked');
  assert.equal(events[0].details.provider, 'staff');
  assert.equal((await unlink(account.cookie, 'staff')).json().code, 'identity_not_found');
  assert.equal((await unlink(account.cookie, 'nowhere')).statusCode, 404);
});

test('unlinking needs a recent sign-in', async () => {
  const account = await ssoOnlyAccount();
  await t.app.inject({ method: 'POST', url: '/api/v1/me/password', headers: { cookie: account.cookie, origin: ORIGIN }, payload: { new_password: STRONG_PASSWORD } });
  t.clock.advance(TEN_MINUTES + 1000);
  const stale = await unlink(account.cookie, 'staff');
  assert.equal(stale.statusCode, 403);
  assert.equal(stale.json().code, 'reauthentication_required');
  // Signing in through the provider again is as recent as any sign-in.
  const again = cookieOf(await signInThroughProvider(t.app, staff, account.login, { provider: 'staff' }));
  assert.equal((await unlink(again, 'staff')).statusCode, 204);
});

test('a passkey counts as a way in', async () => {
  const account = await ssoOnlyAccount();
  const headers = { cookie: account.cookie, origin: ORIGIN };
  const options = await t.app.inject({ method: 'POST', url: '/api/v1/me/passkeys/options', headers });
  assert.equal(options.statusCode, 200, options.body);
  const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
  const added = await t.app.inject({ method: 'POST', url: '/api/v1/me/passkeys', headers, payload: { name: 'Laptop', response: authenticator.create(options.json().options) } });
  assert.equal(added.statusCode, 201, added.body);
  assert.equal((await unlink(account.cookie, 'staff')).statusCode, 204);
});

test('another identity counts as a way in, and two unlinks at once cannot remove the last two', async () => {
  const account = await ssoOnlyAccount();
  // The same verified address at the second provider links it to the same account.
  const second = await signInThroughProvider(t.app, gitlab, account.login, { provider: 'gitlab' });
  assert.equal(second.statusCode, 303);
  const cookie = cookieOf(second);
  assert.deepEqual((await identities({ cookie })).json().identities.map((identity: { provider: string }) => identity.provider).sort(), ['gitlab', 'staff']);
  const results = await Promise.all([unlink(cookie, 'staff'), unlink(cookie, 'gitlab')]);
  assert.deepEqual(results.map((result) => result.statusCode).sort(), [204, 409]);
  assert.equal((await identities({ cookie })).json().identities.length, 1, 'one way in is left');
});

test('a signed-in person links a provider account with another address; it then signs in to their account', async () => {
  const owner = await signUpConfirmed(t.app, smtp);
  const cookie = await passwordSession(owner.email);
  const login = `work-${randomBytes(4).toString('hex')}`;
  // The provider knows them by another address, not even verified: linking is their own doing.
  staff.accounts[login] = { email: `${login}@corp.example`, email_verified: false };
  const started = await t.app.inject({ method: 'POST', url: '/api/v1/me/identities/staff/link', headers: { cookie, origin: ORIGIN } });
  assert.equal(started.statusCode, 200, started.body);
  const browser = [started.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('siteward_oidc='))?.split(';')[0];
  assert.ok(browser !== undefined);
  // The provider is asked to have the person sign in there, whoever it remembers in this browser.
  assert.equal(new URL(started.json().authorization_url).searchParams.get('prompt'), 'login');
  const callback = await staff.authorize(started.json().authorization_url, login);
  const before = smtp.messages.length;
  const linked = await finishSignIn(t.app, callback, browser, [cookie]);
  assert.equal(linked.statusCode, 303, linked.body);
  assert.equal(linked.headers.location, '/settings/security');
  assert.deepEqual((await identities({ cookie })).json().identities.map((identity: { subject: string }) => identity.subject), [login]);
  await smtp.waitForMessage(before, (mail) => mail.to.includes(owner.email) && mail.subject === 'A sign-in provider was linked to your Siteward account');
  const signedIn = await signInThroughProvider(t.app, staff, login, { provider: 'staff' });
  assert.equal(signedIn.statusCode, 303);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: cookieOf(signedIn) } })).json().user.id, owner.id);
});

test('linking is refused: not recent, unverified, already linked there, by an access token, or for an identity that is another account’s', async () => {
  const owner = await signUpConfirmed(t.app, smtp);
  const cookie = await passwordSession(owner.email);
  const link = (headers: Record<string, string>, provider = 'staff') => t.app.inject({ method: 'POST', url: `/api/v1/me/identities/${provider}/link`, headers: { origin: ORIGIN, ...headers } });

  const token = await createAccessToken(t.app, owner);
  assert.equal((await link({ authorization: token.header })).json().code, 'access_token_not_allowed');
  assert.equal((await link({ cookie }, 'nowhere')).json().code, 'oidc_provider_not_found');
  const unverified = await signUp(t.app);
  const unverifiedLink = await link({ cookie: await passwordSession(unverified.email) });
  assert.equal(unverifiedLink.statusCode, 403);
  assert.equal(unverifiedLink.json().code, 'email_not_verified', "a squatter's account gains no way in");

  // The provider account already signs in to someone else's account.
  const other = await ssoOnlyAccount();
  const started = await link({ cookie });
  const browser = [started.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('siteward_oidc='))?.split(';')[0];
  const taken = await finishSignIn(t.app, await staff.authorize(started.json().authorization_url, other.login), browser, [cookie]);
  assert.equal(taken.statusCode, 409);
  assert.equal(pageCode(taken.body), 'oidc_identity_conflict');
  assert.deepEqual((await identities({ cookie })).json().identities, []);

  // Signed out between the start and the callback: nothing is linked to anyone.
  const ownLogin = `own-${randomBytes(4).toString('hex')}`;
  staff.accounts[ownLogin] = { email: owner.email, email_verified: true };
  const again = await link({ cookie });
  const againBrowser = [again.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('siteward_oidc='))?.split(';')[0];
  const callback = await staff.authorize(again.json().authorization_url, ownLogin);
  await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie, origin: ORIGIN } });
  const signedOut = await finishSignIn(t.app, callback, againBrowser);
  assert.equal(signedOut.statusCode, 400);
  assert.equal(pageCode(signedOut.body), 'oidc_state_invalid');
  assert.equal((await t.database.db.selectFrom('user_identities').selectAll().where('user_id', '=', owner.id).execute()).length, 0);

  // Linked once, a second link at the same provider is refused before the round trip.
  const fresh = await passwordSession(owner.email);
  const third = await link({ cookie: fresh });
  const thirdBrowser = [third.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('siteward_oidc='))?.split(';')[0];
  assert.equal((await finishSignIn(t.app, await staff.authorize(third.json().authorization_url, ownLogin), thirdBrowser, [fresh])).statusCode, 303);
  const twice = await link({ cookie: fresh });
  assert.equal(twice.statusCode, 409);
  assert.equal(twice.json().code, 'oidc_identity_conflict');

  t.clock.advance(TEN_MINUTES + 1000);
  assert.equal((await link({ cookie: fresh }, 'gitlab')).json().code, 'reauthentication_required');
});

test("deleting the account takes its identities with it; the provider's next sign-in makes a new account", async () => {
  const account = await ssoOnlyAccount();
  const userId = (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: account.cookie } })).json().user.id;
  const deleted = await t.app.inject({ method: 'DELETE', url: '/api/v1/me', headers: { cookie: account.cookie, origin: ORIGIN } });
  assert.equal(deleted.statusCode, 204, deleted.body);
  assert.equal((await t.database.db.selectFrom('user_identities').selectAll().execute()).length, 0);
  const again = await signInThroughProvider(t.app, staff, account.login, { provider: 'staff' });
  assert.equal(again.statusCode, 303);
  assert.notEqual((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: cookieOf(again) } })).json().user.id, userId);
});
