import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, mailedMagicLink, enableTotp, signUp, signUpConfirmed, STRONG_PASSWORD, type EnabledTotp, type SignedUpUser, type TestApp, sessionCookie } from '../../test/helpers.js';
import { totp } from '../../test/rfc6238.js';
import type { TestSmtpServer } from '../../test/smtp.js';

const ORIGIN = 'http://localhost:3000';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };

let t: TestApp;
let smtp: TestSmtpServer;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());



function codeNow(secret: string, offset = 0): string {
  return totp(secret, t.clock.now(), offset);
}

function wrongCode(secret: string): string {
  const valid = new Set([-1, 0, 1].map((offset) => codeNow(secret, offset)));
  return ['000000', '111111', '222222', '333333'].find((code) => !valid.has(code)) ?? assert.fail('no wrong code');
}

async function userWithTotp(email?: string): Promise<SignedUpUser & EnabledTotp> {
  const user = await signUpConfirmed(t.app, smtp, email);
  return { ...user, ...(await enableTotp(t, user)) };
}

function passwordSignIn(email: string, extra: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/auth/session', remoteAddress, headers: { origin: ORIGIN }, payload: { email, password: STRONG_PASSWORD, ...extra } });
}

/** Signs in with the password only and returns the (pending) session cookie. */
async function pendingCookie(email: string): Promise<string> {
  const response = await passwordSignIn(email);
  assert.equal(response.statusCode, 200);
  assert.equal(response.json().second_factor_required, true);
  return (sessionCookie(response.headers['set-cookie']) ?? assert.fail('no cookie')).header;
}

function secondStep(cookie: string, code: string, headers: Record<string, string> = { origin: ORIGIN }, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/auth/2fa', remoteAddress, headers: { cookie, ...headers }, payload: { code } });
}

function secondStepForm(cookie: string, code: string, headers: Record<string, string> = FORM) {
  return t.app.inject({ method: 'POST', url: '/auth/2fa', headers: { cookie, ...headers }, payload: `code=${encodeURIComponent(code)}` });
}

function me(cookie: string) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
}

function apiLogin(email: string, otp: string, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password: STRONG_PASSWORD, otp } });
}

async function magicLinkToken(email: string): Promise<string> {
  return (await mailedMagicLink(t.app, smtp, email)).searchParams.get('token') ?? '';
}

describe('web password sign-in with TOTP on', () => {
  test('leaves a pending session that every /api/v1 route refuses with second_factor_required', async () => {
    const user = await userWithTotp();
    const response = await passwordSignIn(user.email);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { user: response.json().user, second_factor_required: true });
    assert.equal(response.json().user.id, user.id);
    const cookie = sessionCookie(response.headers['set-cookie']) ?? assert.fail('no cookie');
    assert.ok(cookie.attributes.includes('HttpOnly'));
    assert.ok(cookie.attributes.includes('Max-Age=600'), 'the pending cookie lives 10 minutes');

    const requests = [
      { method: 'GET', url: '/api/v1/me' },
      { method: 'GET', url: '/api/v1/me/totp' },
      { method: 'GET', url: '/api/v1/me/sessions' },
      { method: 'GET', url: '/api/v1/sites' },
      { method: 'GET', url: '/api/v1/access-tokens' },
      { method: 'POST', url: '/api/v1/sites', payload: { name: 'Sneaky' } },
      { method: 'POST', url: '/api/v1/access-tokens', payload: { name: 'Sneaky' } },
      { method: 'DELETE', url: '/api/v1/me/totp', payload: { code: codeNow(user.secret) } },
      { method: 'DELETE', url: '/api/v1/me/sessions' },
    ] as const;
    for (const request of requests) {
      const refused = await t.app.inject({ ...request, headers: { cookie: cookie.header, origin: ORIGIN } });
      assert.equal(refused.statusCode, 401, `${request.method} ${request.url}`);
      assert.equal(refused.json().code, 'second_factor_required');
      assert.ok(refused.headers['www-authenticate']);
    }
    const sites = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: user.bearer } });
    assert.deepEqual(sites.json().sites, [], 'nothing was created');
  });

  test('the second step replaces the pending session with a fresh one that works', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const response = await secondStep(pending, codeNow(user.secret));
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().user.id, user.id);
    const fresh = sessionCookie(response.headers['set-cookie']) ?? assert.fail('no new cookie');
    assert.notEqual(fresh.header, pending, 'a new cookie value');
    assert.ok(fresh.attributes.includes(`Max-Age=${30 * 24 * 3600}`));
    assert.equal((await me(fresh.header)).json().user.id, user.id);
    assert.equal((await me(pending)).json().code, 'session_expired', 'the pending cookie is dead');
    assert.equal((await t.database.db.selectFrom('sessions').selectAll().execute()).length, 1);
  });

  test('a wrong code keeps the session pending; the step can be retried', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const wrong = await secondStep(pending, wrongCode(user.secret));
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().code, 'otp_invalid');
    assert.equal(sessionCookie(wrong.headers['set-cookie']), undefined);
    assert.equal((await me(pending)).json().code, 'second_factor_required');
    assert.equal((await secondStep(pending, codeNow(user.secret))).statusCode, 200);
  });

  test('a recovery code finishes the step, once', async () => {
    const user = await userWithTotp();
    const first = await pendingCookie(user.email);
    assert.equal((await secondStep(first, user.recoveryCodes[0] ?? '')).statusCode, 200);
    const second = await pendingCookie(user.email);
    assert.equal((await secondStep(second, user.recoveryCodes[0] ?? '')).json().code, 'otp_invalid');
  });

  test('a code sent with the password signs in at once; a wrong one sets no cookie', async () => {
    const user = await userWithTotp();
    const wrong = await passwordSignIn(user.email, { otp: wrongCode(user.secret) });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().code, 'otp_invalid');
    assert.equal(sessionCookie(wrong.headers['set-cookie']), undefined);
    const right = await passwordSignIn(user.email, { otp: codeNow(user.secret) });
    assert.equal(right.statusCode, 200);
    assert.equal(right.json().second_factor_required, false);
    assert.equal((await me((sessionCookie(right.headers['set-cookie']) ?? assert.fail()).header)).statusCode, 200);
  });

  test('without 2FA the password signs straight in (second_factor_required: false)', async () => {
    const user = await signUp(t.app);
    const response = await passwordSignIn(user.email);
    assert.equal(response.json().second_factor_required, false);
    assert.equal((await me((sessionCookie(response.headers['set-cookie']) ?? assert.fail()).header)).statusCode, 200);
  });

  test('parallel finishes of one sign-in with one code: exactly one session', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const code = codeNow(user.secret);
    const responses = await Promise.all(Array.from({ length: 8 }, () => secondStep(pending, code)));
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 1);
    assert.equal((await t.database.db.selectFrom('sessions').selectAll().execute()).length, 1);
  });

  test('a pending sign-in shows in the session list, marked, and can be revoked from there', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const full = (sessionCookie((await passwordSignIn(user.email, { otp: codeNow(user.secret) })).headers['set-cookie']) ?? assert.fail()).header;
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/me/sessions', headers: { cookie: full } });
    const sessions = list.json().sessions as Array<{ id: string; current: boolean; second_factor_pending: boolean }>;
    assert.deepEqual(sessions.map((session) => [session.current, session.second_factor_pending]).sort(), [[false, true], [true, false]]);
    const waiting = sessions.find((session) => session.second_factor_pending) ?? assert.fail();
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/me/sessions/${waiting.id}`, headers: { cookie: full, origin: ORIGIN } })).statusCode, 204);
    t.clock.advance(30_000);
    assert.equal((await secondStep(pending, codeNow(user.secret))).json().code, 'second_factor_not_pending');
  });

  test('logout cancels a pending sign-in', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const logout = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: pending, origin: ORIGIN } });
    assert.equal(logout.statusCode, 204);
    const step = await secondStep(pending, codeNow(user.secret));
    assert.equal(step.statusCode, 401);
    assert.equal(step.json().code, 'second_factor_not_pending');
    assert.equal((await t.database.db.selectFrom('sessions').selectAll().execute()).length, 0);
  });

  test('a pending sign-in expires after 10 minutes', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    t.clock.advance(10 * 60_000);
    assert.equal((await secondStep(pending, codeNow(user.secret))).json().code, 'second_factor_not_pending');
    assert.equal((await me(pending)).json().code, 'session_expired');
  });

  test('the second step needs a pending session: none, or a full one, is 401 second_factor_not_pending', async () => {
    const user = await userWithTotp();
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/2fa', headers: { origin: ORIGIN }, payload: { code: codeNow(user.secret) } })).json().code, 'second_factor_not_pending');
    const full = await passwordSignIn(user.email, { otp: codeNow(user.secret) });
    const cookie = (sessionCookie(full.headers['set-cookie']) ?? assert.fail()).header;
    t.clock.advance(30_000);
    assert.equal((await secondStep(cookie, codeNow(user.secret))).json().code, 'second_factor_not_pending');
    const page = await t.app.inject({ method: 'GET', url: '/auth/2fa', headers: { cookie } });
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/');
  });

  test('the second step refuses a cross-site POST and keeps the sign-in pending', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Array<Record<string, string>>) {
      const response = await secondStep(pending, codeNow(user.secret), headers);
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().code, 'cross_site_request');
    }
    const form = await secondStepForm(pending, codeNow(user.secret), { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' });
    assert.equal(form.statusCode, 403);
    assert.equal((await secondStep(pending, codeNow(user.secret), { 'sec-fetch-site': 'same-origin' })).statusCode, 200);
  });

  test('turning 2FA off ends sign-ins still waiting for it', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const off = await t.app.inject({ method: 'DELETE', url: '/api/v1/me/totp', headers: { authorization: user.bearer }, payload: { code: codeNow(user.secret) } });
    assert.equal(off.statusCode, 204);
    assert.equal((await me(pending)).json().code, 'session_expired');
  });
});

describe('magic-link sign-in with TOTP on', () => {
  test('POST /magic leaves a pending session and sends the browser to the 2FA form', async () => {
    const user = await userWithTotp('magic2fa@example.com');
    const token = await magicLinkToken(user.email);
    const redeemed = await t.app.inject({ method: 'POST', url: '/magic', headers: FORM, payload: `token=${token}` });
    assert.equal(redeemed.statusCode, 303);
    assert.equal(redeemed.headers.location, '/auth/2fa');
    const pending = (sessionCookie(redeemed.headers['set-cookie']) ?? assert.fail('no cookie')).header;
    const refused = await me(pending);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().code, 'second_factor_required');

    const page = await t.app.inject({ method: 'GET', url: '/auth/2fa', headers: { cookie: pending } });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.match(page.body, /<form method="post" action="\/auth\/2fa">/);
    assert.match(page.body, /name="code"/);
    assert.match(page.body, /autocomplete="one-time-code"/);
    assert.match(page.body, /magic2fa@example\.com/);
    assert.doesNotMatch(page.body, /<script/);

    const wrong = await secondStepForm(pending, wrongCode(user.secret));
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /That code is wrong/);
    assert.match(wrong.body, /action="\/auth\/2fa"/);

    const done = await secondStepForm(pending, codeNow(user.secret));
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/');
    const fresh = (sessionCookie(done.headers['set-cookie']) ?? assert.fail('no new cookie')).header;
    assert.notEqual(fresh, pending);
    assert.equal((await me(fresh)).json().user.id, user.id);
    assert.equal((await me(pending)).statusCode, 401);
  });

  test('the 2FA page can cancel the sign-in: the pending session ends and the browser goes back to sign in', async () => {
    const user = await userWithTotp();
    const pending = await pendingCookie(user.email);
    const page = await t.app.inject({ method: 'GET', url: '/auth/2fa', headers: { cookie: pending } });
    assert.match(page.body, /<form method="post" action="\/auth\/2fa\/cancel">/);

    const crossSite = await t.app.inject({ method: 'POST', url: '/auth/2fa/cancel', headers: { ...FORM, origin: 'https://evil.example', cookie: pending }, payload: '' });
    assert.equal(crossSite.statusCode, 403);

    const cancelled = await t.app.inject({ method: 'POST', url: '/auth/2fa/cancel', headers: { ...FORM, cookie: pending }, payload: '' });
    assert.equal(cancelled.statusCode, 303);
    assert.equal(cancelled.headers.location, '/sign-in');
    assert.match(String(cancelled.headers['set-cookie']), /siteward_session=;/);
    // The pending session is gone: the code no longer finishes it.
    assert.equal((await secondStep(pending, codeNow(user.secret))).json().code, 'second_factor_not_pending');
  });

  test('cancelling the 2FA step never ends a full session', async () => {
    const user = await userWithTotp();
    const full = await passwordSignIn(user.email, { otp: codeNow(user.secret) });
    const cookie = (sessionCookie(full.headers['set-cookie']) ?? assert.fail('no cookie')).header;
    const cancelled = await t.app.inject({ method: 'POST', url: '/auth/2fa/cancel', headers: { ...FORM, cookie }, payload: '' });
    assert.equal(cancelled.statusCode, 303);
    assert.equal((await me(cookie)).statusCode, 200);
  });

  test('without 2FA the magic link still goes straight to the app', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'plainmagic@example.com');
    const token = await magicLinkToken(user.email);
    const redeemed = await t.app.inject({ method: 'POST', url: '/magic', headers: FORM, payload: `token=${token}` });
    assert.equal(redeemed.headers.location, '/');
    assert.equal((await me((sessionCookie(redeemed.headers['set-cookie']) ?? assert.fail()).header)).statusCode, 200);
  });

  test('GET /auth/2fa without a pending sign-in sends the browser to the app', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/auth/2fa' });
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/');
  });
});

describe('the limit on wrong codes', () => {
  test('10 wrong codes per account, counted across /auth/login, the web step and addresses, then 429 even for the right code', async () => {
    const user = await userWithTotp();
    const wrong = wrongCode(user.secret);
    for (let i = 0; i < 5; i++) {
      const response = await apiLogin(user.email, wrong, `198.51.100.${i}`);
      assert.equal(response.json().code, 'otp_invalid', `API attempt ${i + 1}`);
    }
    const pending = await pendingCookie(user.email);
    for (let i = 0; i < 4; i++) assert.equal((await secondStep(pending, wrong, { origin: ORIGIN }, `203.0.113.${i}`)).json().code, 'otp_invalid');
    const form = await secondStepForm(pending, wrong);
    assert.equal(form.statusCode, 401, 'the tenth wrong code, by form');

    const locked = await apiLogin(user.email, codeNow(user.secret), '192.0.2.77');
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.json().code, 'rate_limited');
    const retryAfter = Number(locked.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);

    const lockedStep = await secondStep(pending, codeNow(user.secret));
    assert.equal(lockedStep.statusCode, 429);
    assert.ok(Number(lockedStep.headers['retry-after']) > 0);
    const lockedPage = await secondStepForm(pending, codeNow(user.secret));
    assert.equal(lockedPage.statusCode, 429);
    assert.ok(Number(lockedPage.headers['retry-after']) > 0);
    assert.match(lockedPage.body, /Too many wrong codes/);
    assert.equal((await me(pending)).json().code, 'second_factor_required', 'the lock does not finish the sign-in');

    const recovery = await apiLogin(user.email, user.recoveryCodes[0] ?? '');
    assert.equal(recovery.statusCode, 429, 'recovery codes are locked out too');

    t.clock.advance(15 * 60_000);
    const after = await apiLogin(user.email, codeNow(user.secret));
    assert.equal(after.statusCode, 200, 'the lock lifts after 15 minutes');
  });

  test('right codes do not use up the limit', async () => {
    const user = await userWithTotp();
    for (let i = 0; i < 12; i++) {
      assert.equal((await apiLogin(user.email, codeNow(user.secret))).statusCode, 200, `sign-in ${i + 1}`);
      t.clock.advance(30_000);
    }
  });

  test('one account being locked does not lock another', async () => {
    const alice = await userWithTotp();
    const bob = await userWithTotp();
    for (let i = 0; i < 10; i++) await apiLogin(alice.email, wrongCode(alice.secret));
    assert.equal((await apiLogin(alice.email, codeNow(alice.secret))).statusCode, 429);
    assert.equal((await apiLogin(bob.email, codeNow(bob.secret))).statusCode, 200);
  });
});
