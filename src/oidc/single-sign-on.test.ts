import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createUserAsOperator, enableTotp, ManualClock, sessionCookie, signUp, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { finishSignIn, pageCode, signInThroughProvider, startSignIn, type TestOidcProvider, startOidcProvider } from '../../test/oidc-provider.js';
import { startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';
import { AdminService } from '../admin/service.js';
import { pruneStaleRows } from '../maintenance/prune.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';

const ORIGIN = 'http://localhost:3000';
const CLIENT_SECRET = `secret-${randomBytes(12).toString('hex')}`;
const SITEWARD = { client_id: 'siteward', client_secret: CLIENT_SECRET, redirect_uris: [`${ORIGIN}/auth/oidc/oidc/callback`] };

let idp: TestOidcProvider;
let smtp: TestSmtpServer;
let t: TestApp;

// One provider and one mail server for the file; an app (and database) per test.
before(async () => {
  idp = await startOidcProvider({ clients: [SITEWARD], accounts: {} });
  smtp = await startSmtpServer();
});
after(async () => {
  await idp.close();
  await smtp.close();
});

function appEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return { SMTP_URL: smtp.url, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: SITEWARD.client_id, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_NAME: 'Staff login', ...extra };
}

/** A person at the provider: their login (the "sub") and address. */
function person(account: { email_verified?: boolean; email?: string; name?: string } = {}): { login: string; email: string } {
  const login = `p-${randomBytes(5).toString('hex')}`;
  const email = account.email ?? `${login}@example.com`;
  idp.accounts[login] = { email, email_verified: true, name: 'Pat Example', ...account };
  return { login, email };
}

function me(cookie: string) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
}

function cookieOf(response: { headers: Record<string, unknown> }): string {
  const cookie = sessionCookie(response.headers['set-cookie'] as string[] | string | undefined);
  assert.ok(cookie !== undefined, 'a session cookie was set');
  return cookie.header;
}

async function eventTypes(cookie: string): Promise<Array<{ type: string; method: string | null; details: Record<string, unknown> }>> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/me/security-events', headers: { cookie } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().events;
}

async function userCount(): Promise<number> {
  return (await t.database.db.selectFrom('users').select('id').execute()).length;
}

function assertRefusedPage(response: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body.slice(0, 500));
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.equal(pageCode(response.body), code);
  assert.equal(sessionCookie(response.headers['set-cookie'] as string[] | string | undefined), undefined, 'no session');
}

describe('single sign-on', () => {
  beforeEach(async () => {
    t = await buildTestApp({ env: appEnvironment() });
  });
  afterEach(async () => {
    await t.close();
  });

  test('GET /auth/config lists the providers for the sign-in buttons', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/config' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { signup: 'open', oidc: [{ id: 'oidc', name: 'Staff login' }] });
  });

  test('the start sends the browser to the provider with the code flow, PKCE S256, state and nonce, bound to the browser by a cookie', async () => {
    const started = await startSignIn(t.app, 'oidc', { next: '/sites' });
    const { searchParams } = started.location;
    assert.equal(started.location.origin, idp.issuer);
    assert.equal(searchParams.get('response_type'), 'code');
    assert.equal(searchParams.get('client_id'), 'siteward');
    assert.equal(searchParams.get('redirect_uri'), `${ORIGIN}/auth/oidc/oidc/callback`);
    assert.equal(searchParams.get('code_challenge_method'), 'S256');
    assert.match(searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.ok((searchParams.get('state') ?? '').length >= 32);
    assert.ok((searchParams.get('nonce') ?? '').length >= 32);
    assert.deepEqual((searchParams.get('scope') ?? '').split(' ').sort(), ['email', 'openid', 'profile']);
    assert.equal(searchParams.get('prompt'), null, 'a sign-in lets the provider remember the person');
    const rows = await t.database.db.selectFrom('oidc_authorization_requests').selectAll().execute();
    assert.equal(rows.length, 1);
    // Nothing of the round trip is readable in the database: the state as a hash, the rest sealed.
    const stored = JSON.stringify(rows);
    for (const value of [searchParams.get('state'), searchParams.get('nonce'), '/sites', started.browser.split('=')[1]]) assert.ok(!stored.includes(value ?? '?'), `${value} is not stored as is`);
  });

  test('with an https PUBLIC_URL the binding cookie is Secure and __Host- prefixed', async () => {
    const secure = await buildTestApp({ env: appEnvironment({ PUBLIC_URL: 'https://siteward.example.com' }) });
    try {
      const response = await secure.app.inject({ method: 'GET', url: '/auth/oidc/oidc/start' });
      assert.equal(response.statusCode, 302);
      assert.equal(new URL(String(response.headers.location)).searchParams.get('redirect_uri'), 'https://siteward.example.com/auth/oidc/oidc/callback');
      const cookie = String(response.headers['set-cookie']);
      assert.match(cookie, /^__Host-siteward_oidc=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    } finally {
      await secure.close();
    }
  });

  test('a new person signs in: a verified account without a password is made, signed in and recently authenticated', async () => {
    const { login, email } = person({ name: 'Grace Hopper' });
    const response = await signInThroughProvider(t.app, idp, login, { next: '/sites?sort=name' });
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(response.headers.location, '/sites?sort=name');
    const cookie = cookieOf(response);
    const user = (await me(cookie)).json().user;
    assert.equal(user.email, email);
    assert.equal(user.name, 'Grace Hopper');
    assert.equal(user.email_verified, true);
    assert.equal(user.has_password, false);
    const identities = (await t.app.inject({ method: 'GET', url: '/api/v1/me/identities', headers: { cookie } })).json().identities;
    assert.deepEqual(identities.map((identity: Record<string, unknown>) => [identity.provider, identity.subject, identity.email]), [['oidc', login, email]]);
    const workspaces = await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { cookie } });
    assert.equal(workspaces.json().workspaces.length, 1, 'a personal workspace, like every account');
    const events = await eventTypes(cookie);
    assert.deepEqual(
      events.map((event) => [event.type, event.method]),
      [
        ['sign_in.succeeded', 'oidc'],
        ['identity.linked', 'oidc'],
      ],
    );
    assert.equal(events[0]?.details.provider, 'oidc');
    // The provider owns the second factor: the sign-in is complete and counts as recent.
    const token = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { cookie, origin: ORIGIN }, payload: { name: 'ci' } });
    assert.equal(token.statusCode, 201, token.body);
  });

  test('the linked identity signs in to the same account again, whatever address the provider gives now', async () => {
    const { login } = person();
    const first = cookieOf(await signInThroughProvider(t.app, idp, login));
    const userId = (await me(first)).json().user.id;
    idp.accounts[login] = { email: `renamed-${login}@example.org`, email_verified: false };
    const again = await signInThroughProvider(t.app, idp, login);
    assert.equal(again.statusCode, 303);
    assert.equal((await me(cookieOf(again))).json().user.id, userId);
    assert.equal(await userCount(), 1);
    const identity = (await t.app.inject({ method: 'GET', url: '/api/v1/me/identities', headers: { cookie: cookieOf(again) } })).json().identities[0];
    assert.equal(identity.email, `renamed-${login}@example.org`);
  });

  test('a verified address links the existing account, with no second factor, and its owner is mailed', async () => {
    const { login, email } = person();
    const owner = await signUpConfirmed(t.app, smtp, email);
    await enableTotp(t, owner);
    const before = smtp.messages.length;
    const response = await signInThroughProvider(t.app, idp, login);
    assert.equal(response.statusCode, 303, response.body);
    const cookie = cookieOf(response);
    const signedIn = await me(cookie);
    assert.equal(signedIn.statusCode, 200, 'a full session: the provider owns MFA');
    assert.equal(signedIn.json().user.id, owner.id);
    assert.equal(signedIn.json().user.has_password, true, 'the password stays');
    const notice = await smtp.waitForMessage(before, (mail) => mail.to.includes(email) && mail.subject === 'A sign-in provider was linked to your Siteward account');
    assert.match(notice.text, /Name: Staff login/);
    assert.ok(!notice.text.includes(CLIENT_SECRET));
  });

  test('a disabled account is refused on a page whether its identity or its address would open it, and nothing is linked, verified or touched', async () => {
    const admin = await signUp(t.app);
    await new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).promote(admin.email);
    const disable = async (id: string) => assert.equal((await t.app.inject({ method: 'POST', url: `/api/v1/admin/users/${id}/disable`, headers: { authorization: admin.bearer } })).statusCode, 200);
    // By its linked identity: an account the provider made.
    const linked = person();
    const first = await signInThroughProvider(t.app, idp, linked.login);
    assert.equal(first.statusCode, 303, first.body);
    const linkedId = (await me(cookieOf(first))).json().user.id as string;
    const identityBefore = await t.database.db.selectFrom('user_identities').selectAll().where('user_id', '=', linkedId).executeTakeFirstOrThrow();
    await disable(linkedId);
    t.clock.advance(60_000);
    const byIdentity = await signInThroughProvider(t.app, idp, linked.login);
    assertRefusedPage(byIdentity, 403, 'account_disabled');
    assert.match(byIdentity.body, /Staff login signed you in, but an administrator of this Siteward server has disabled your account/);
    const identityAfter = await t.database.db.selectFrom('user_identities').selectAll().where('user_id', '=', linkedId).executeTakeFirstOrThrow();
    assert.deepEqual(identityAfter, identityBefore, 'the identity is not touched');
    // By its address: a password account the provider's verified address matches.
    const byAddressPerson = person();
    const owner = await signUp(t.app, byAddressPerson.email);
    await disable(owner.id);
    assertRefusedPage(await signInThroughProvider(t.app, idp, byAddressPerson.login), 403, 'account_disabled');
    assert.equal((await t.database.db.selectFrom('user_identities').selectAll().where('user_id', '=', owner.id).execute()).length, 0, 'nothing linked');
    const ownerRow = await t.database.db.selectFrom('users').select('email_verified_at').where('id', '=', owner.id).executeTakeFirstOrThrow();
    assert.equal(ownerRow.email_verified_at, null, 'the address is not marked verified');
    const refusals = t.logs().split('\n').filter((line) => line.includes('"security_event":"sign_in.refused"') && line.includes('"reason":"account_disabled"') && line.includes('"method":"oidc"'));
    assert.equal(refusals.length, 2, 'each refusal is a security event of the account');
    assert.ok(!t.logs().split('\n').some((line) => line.includes('"security_event":"sign_in.succeeded"') && line.includes(owner.id)));
    // Enabled again, the identity signs in.
    assert.equal((await t.app.inject({ method: 'POST', url: `/api/v1/admin/users/${linkedId}/enable`, headers: { authorization: admin.bearer } })).statusCode, 200);
    assert.equal((await signInThroughProvider(t.app, idp, linked.login)).statusCode, 303);
  });

  test('an address the provider has not verified links nothing and creates nothing', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    for (const account of [{ email: owner.email, email_verified: false }, { email: owner.email, email_verified: undefined }, { email: `new-${randomBytes(3).toString('hex')}@example.com`, email_verified: false }]) {
      const { login } = person(account);
      if (account.email_verified === undefined) delete idp.accounts[login]?.email_verified;
      const response = await signInThroughProvider(t.app, idp, login);
      assertRefusedPage(response, 403, 'oidc_email_not_verified');
      assert.match(response.body, /Staff login has not confirmed your e-mail address/);
    }
    assert.equal(await userCount(), 1);
    assert.equal((await t.database.db.selectFrom('user_identities').selectAll().execute()).length, 0);
  });

  test('a provider that gives no address at all creates nothing', async () => {
    const login = `p-${randomBytes(5).toString('hex')}`;
    idp.accounts[login] = { name: 'Nameless' };
    assertRefusedPage(await signInThroughProvider(t.app, idp, login), 403, 'oidc_email_not_verified');
    assert.equal(await userCount(), 0);
  });

  test('an unverified account with a password is claimed first: keep links the identity afterwards and keeps the password', async () => {
    const { login, email } = person();
    const squatterOrOwner = await signUp(t.app, email);
    const response = await signInThroughProvider(t.app, idp, login, { next: '/sites' });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/auth/claim');
    const pending = cookieOf(response);
    assert.equal((await me(pending)).json().code, 'claim_required', 'the pending session opens nothing');
    assert.equal((await t.database.db.selectFrom('user_identities').selectAll().execute()).length, 0, 'nothing linked before the choice');
    const kept = await t.app.inject({ method: 'POST', url: '/auth/claim', headers: { cookie: pending, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=keep' });
    assert.equal(kept.statusCode, 303);
    assert.equal(kept.headers.location, '/sites');
    const cookie = cookieOf(kept);
    const user = (await me(cookie)).json().user;
    assert.equal(user.id, squatterOrOwner.id);
    assert.equal(user.email_verified, true);
    assert.equal(user.has_password, true);
    const identities = (await t.app.inject({ method: 'GET', url: '/api/v1/me/identities', headers: { cookie } })).json().identities;
    assert.deepEqual(identities.map((identity: { subject: string }) => identity.subject), [login]);
    const events = await eventTypes(cookie);
    assert.deepEqual(
      events.map((event) => [event.type, event.method]),
      [
        ['sign_in.succeeded', 'oidc'],
        ['identity.linked', 'oidc'],
        ['email.verified', 'oidc'],
      ],
    );
  });

  test('an unverified account claimed with reset loses what was set up before and keeps only the identity (no pre-account hijack)', async () => {
    const { login, email } = person();
    const squatter = await signUp(t.app, email);
    const squatterToken = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: squatter.bearer }, payload: { name: 'foothold' } });
    assert.equal(squatterToken.statusCode, 201);
    const response = await signInThroughProvider(t.app, idp, login);
    const reset = await t.app.inject({ method: 'POST', url: '/auth/claim', headers: { cookie: cookieOf(response), origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=reset' });
    assert.equal(reset.statusCode, 303);
    assert.equal(reset.headers.location, '/', 'the provider is the way in: no password form needed');
    const cookie = cookieOf(reset);
    assert.equal((await me(cookie)).json().user.has_password, false);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: squatter.bearer } })).statusCode, 401, "the squatter's JWT is void");
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: `Token ${squatterToken.json().access_token.token}` } })).statusCode, 401);
    const password = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: STRONG_PASSWORD } });
    assert.equal(password.statusCode, 401, "the squatter's password no longer signs in");
    const again = await signInThroughProvider(t.app, idp, login);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/', 'the identity now signs in directly');
  });

  test('an unanswered claim links nothing: the next sign-in through the provider asks again', async () => {
    const { login, email } = person();
    await signUp(t.app, email);
    assert.equal((await signInThroughProvider(t.app, idp, login)).headers.location, '/auth/claim');
    const again = await signInThroughProvider(t.app, idp, login);
    assert.equal(again.headers.location, '/auth/claim');
    assert.equal((await t.database.db.selectFrom('user_identities').selectAll().execute()).length, 0);
  });

  test('a replayed callback is refused and reaches the provider no second time, even when fired in parallel', async () => {
    const { login } = person();
    const started = await startSignIn(t.app, 'oidc');
    const callback = await idp.authorize(started.location.href, login);
    const exchangesBefore = idp.tokenRequests();
    const [first, second] = await Promise.all([finishSignIn(t.app, callback, started.browser), finishSignIn(t.app, callback, started.browser)]);
    const statuses = [first.statusCode, second.statusCode].sort();
    assert.deepEqual(statuses, [303, 400]);
    assertRefusedPage(first.statusCode === 400 ? first : second, 400, 'oidc_state_invalid');
    const replay = await finishSignIn(t.app, callback, started.browser);
    assertRefusedPage(replay, 400, 'oidc_state_invalid');
    assert.equal(idp.tokenRequests() - exchangesBefore, 1, 'one code exchange in all');
  });

  test('a forged or missing state, or a callback in another browser, is refused with a page to start again', async () => {
    const { login } = person();
    const started = await startSignIn(t.app, 'oidc', { next: '/sites' });
    const callback = await idp.authorize(started.location.href, login);
    const forged = new URL(callback);
    forged.searchParams.set('state', randomBytes(32).toString('base64url'));
    const missing = new URL(callback);
    missing.searchParams.delete('state');
    const otherBrowser = (await startSignIn(t.app, 'oidc')).browser;
    for (const [url, browser] of [
      [forged, started.browser],
      [missing, started.browser],
      // Login CSRF: the attacker's own callback, opened in the victim's browser.
      [callback, otherBrowser],
      [callback, undefined],
    ] as const) {
      const response = await finishSignIn(t.app, url, browser);
      assertRefusedPage(response, 400, 'oidc_state_invalid');
      assert.match(response.body, /href="\/auth\/oidc\/oidc\/start"/, 'a way to start again');
    }
    assert.equal(await userCount(), 0);
    // The right browser still finishes: the failures above used nothing up.
    const response = await finishSignIn(t.app, callback, started.browser);
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/sites');
  });

  test('an ID token with another nonce than this sign-in sent is refused', async () => {
    const { login } = person();
    const started = await startSignIn(t.app, 'oidc');
    // The request reaches the provider with another nonce; everything else is this browser's own.
    const tampered = new URL(started.location);
    tampered.searchParams.set('nonce', randomBytes(32).toString('base64url'));
    const callback = await idp.authorize(tampered.href, login);
    const response = await finishSignIn(t.app, callback, started.browser);
    assertRefusedPage(response, 502, 'oidc_response_invalid');
    assert.equal(await userCount(), 0);
    assert.match(t.logs(), /"reason":"OAUTH_JWT_CLAIM_COMPARISON_FAILED"/);
  });

  test('cancelling at the provider ends on a page that offers to try again, without the provider’s words', async () => {
    const started = await startSignIn(t.app, 'oidc', { next: '/sites' });
    const callback = await idp.authorize(started.location.href, person().login, { cancel: true });
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    const response = await finishSignIn(t.app, callback, started.browser);
    assertRefusedPage(response, 400, 'oidc_cancelled');
    assert.match(response.body, /Signing in at Staff login was cancelled/);
    assert.match(response.body, /href="\/auth\/oidc\/oidc\/start\?next=%2Fsites"/);
    assert.match(response.body, /href="\/sign-in\?next=%2Fsites"/);
    assert.ok(!response.body.includes('End-User aborted'), 'the provider’s error_description never reaches the page');
    assert.ok(!response.body.includes('access_denied'));
  });

  test('a provider error with text of its own choosing is shown in our words only', async () => {
    const started = await startSignIn(t.app, 'oidc');
    const state = started.location.searchParams.get('state') ?? '';
    const callback = new URL(`${ORIGIN}/auth/oidc/oidc/callback`);
    callback.search = new URLSearchParams({ error: 'server_error', error_description: '<script>alert(1)</script> call 555-SCAM', state, iss: idp.issuer }).toString();
    const response = await finishSignIn(t.app, callback, started.browser);
    assertRefusedPage(response, 400, 'oidc_refused');
    assert.ok(!response.body.includes('555-SCAM') && !response.body.includes('<script>'));
  });

  test('next is only ever a path of this site (no open redirect)', async () => {
    const cases: Array<[string, string]> = [
      ['https://evil.example/phish', '/'],
      ['//evil.example/phish', '/'],
      ['/\\evil.example', '/'],
      ['/\tevil', '/'],
      ['javascript:alert(1)', '/'],
      ['/sign-in', '/'],
      ['/auth/oidc/oidc/start', '/'],
      ['/invitations/accept?token=abc#join', '/invitations/accept?token=abc#join'],
    ];
    for (const [next, expected] of cases) {
      const response = await signInThroughProvider(t.app, idp, person().login, { next });
      assert.equal(response.statusCode, 303, next);
      assert.equal(response.headers.location, expected, next);
    }
  });

  test('an unknown provider is a page, not an error', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/auth/oidc/nope/start' });
    assertRefusedPage(start, 404, 'oidc_provider_not_found');
    assertRefusedPage(await t.app.inject({ method: 'GET', url: '/auth/oidc/nope/callback?code=x&state=y' }), 404, 'oidc_provider_not_found');
  });

  test('a provider that stops answering before the code is exchanged ends on a page saying so', async () => {
    const started = await startSignIn(t.app, 'oidc');
    const callback = await idp.authorize(started.location.href, person().login);
    await idp.stop();
    try {
      const response = await finishSignIn(t.app, callback, started.browser);
      assertRefusedPage(response, 503, 'oidc_provider_unreachable');
      assert.match(response.body, /Staff login does not answer right now/);
    } finally {
      await idp.start();
    }
  });

  test('the client secret never reaches the log, a page or a stored row', async () => {
    await signInThroughProvider(t.app, idp, person().login);
    const started = await startSignIn(t.app, 'oidc');
    const callback = await idp.authorize(started.location.href, person({ email_verified: false }).login);
    const refused = await finishSignIn(t.app, callback, started.browser);
    assert.ok(!refused.body.includes(CLIENT_SECRET));
    assert.ok(!t.logs().includes(CLIENT_SECRET), 'not in the log');
    for (const table of ['oidc_authorization_requests', 'user_identities', 'security_events'] as const) {
      assert.ok(!JSON.stringify(await t.database.db.selectFrom(table).selectAll().execute()).includes(CLIENT_SECRET), table);
    }
  });
});

describe('single sign-on with SIGNUP=closed', () => {
  beforeEach(async () => {
    t = await buildTestApp({ env: appEnvironment({ SIGNUP: 'closed' }) });
  });
  afterEach(async () => {
    await t.close();
  });

  test('a new person without an invitation gets a page, and no account', async () => {
    const response = await signInThroughProvider(t.app, idp, person().login);
    assertRefusedPage(response, 403, 'signup_closed');
    assert.equal(await userCount(), 0);
  });

  test('an invited person gets an account and the invitation page continues', async () => {
    // The inviter's account was made by the operator: sign-up is closed to everyone else.
    const admin = await createUserAsOperator(t, `admin-${randomBytes(3).toString('hex')}@example.com`);
    const adminCookie = cookieOf(await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: admin.email, password: STRONG_PASSWORD } }));
    const workspace = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { cookie: adminCookie, origin: ORIGIN }, payload: { name: 'Support' } });
    assert.equal(workspace.statusCode, 201, workspace.body);
    const invitee = person();
    const before = smtp.messages.length;
    const invited = await t.app.inject({
      method: 'POST',
      url: `/api/v1/workspaces/${workspace.json().workspace.id}/invitations`,
      headers: { cookie: adminCookie, origin: ORIGIN },
      payload: { email: invitee.email, role: 'editor' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const mail = await smtp.waitForMessage(before, (message) => message.to.includes(invitee.email));
    const link = new URL(/https?:\/\/\S+\/invitations\/accept\?token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0] ?? assert.fail('no invitation link'));
    const invitationPath = `${link.pathname}${link.search}`;
    // Signed out, the invitation's page offers the provider, coming back to it afterwards.
    const page = await t.app.inject({ method: 'GET', url: invitationPath });
    const button = /href="(\/auth\/oidc\/oidc\/start\?next=[^"]+)"/.exec(page.body)?.[1];
    assert.ok(button !== undefined, 'a button for the provider');
    assert.equal(new URL(button.replaceAll('&amp;', '&'), ORIGIN).searchParams.get('next'), invitationPath);
    const response = await signInThroughProvider(t.app, idp, invitee.login, { next: invitationPath });
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(response.headers.location, invitationPath);
    const cookie = cookieOf(response);
    const confirm = await t.app.inject({ method: 'GET', url: invitationPath, headers: { cookie } });
    assert.match(confirm.body, /Join a workspace/);
    assert.match(confirm.body, /<button type="submit">Join<\/button>/);
    const joined = await t.app.inject({
      method: 'POST',
      url: '/invitations/accept',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${link.searchParams.get('token')}`,
    });
    assert.equal(joined.statusCode, 200, joined.body);
    assert.match(joined.body, /You joined <strong>Support<\/strong> as <strong>editor<\/strong>/);
  });
});

describe('time', () => {
  test('an ID token that has expired by the time it is checked is refused (the clock moved, not slept)', async () => {
    const shortLived = await startOidcProvider({ clients: [SITEWARD], accounts: { ada: { email: 'ada@example.com', email_verified: true } }, idTokenTtlSeconds: 60 });
    const clock = new ManualClock(Date.now());
    t = await buildTestApp({ clock, env: appEnvironment({ OIDC_ISSUER: shortLived.issuer }) });
    try {
      // Checked in time, the round trip signs in.
      const fresh = await startSignIn(t.app, 'oidc');
      const freshCallback = await shortLived.authorize(fresh.location.href, 'ada');
      assert.equal((await finishSignIn(t.app, freshCallback, fresh.browser)).statusCode, 303);
      const started = await startSignIn(t.app, 'oidc');
      const callback = await shortLived.authorize(started.location.href, 'ada');
      // Past the token's minute and openid-client's 30 s of tolerance, within the 10-minute request.
      clock.advance(2 * 60 * 1000);
      assertRefusedPage(await finishSignIn(t.app, callback, started.browser), 502, 'oidc_response_invalid');
      assert.match(t.logs(), /"reason":"OAUTH_JWT_TIMESTAMP_CHECK_FAILED"/);
    } finally {
      await t.close();
      await shortLived.close();
    }
  });

  test('authorization requests nobody finished are pruned once they have expired', async () => {
    t = await buildTestApp({ env: appEnvironment() });
    try {
      await startSignIn(t.app, 'oidc');
      const limiter = new RateLimiter(t.database.db, t.clock);
      const count = async () => (await t.database.db.selectFrom('oidc_authorization_requests').selectAll().execute()).length;
      await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 365, trashDays: 30 });
      assert.equal(await count(), 1, 'a live request stays');
      t.clock.advance(10 * 60 * 1000 + 1);
      await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 365, trashDays: 30 });
      assert.equal(await count(), 0);
    } finally {
      await t.close();
    }
  });

  test('an authorization request older than 10 minutes is refused', async () => {
    t = await buildTestApp({ env: appEnvironment() });
    try {
      const started = await startSignIn(t.app, 'oidc');
      const callback = await idp.authorize(started.location.href, person().login);
      t.clock.advance(10 * 60 * 1000 + 1);
      assertRefusedPage(await finishSignIn(t.app, callback, started.browser), 400, 'oidc_state_invalid');
    } finally {
      await t.close();
    }
  });
});
