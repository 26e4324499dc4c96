import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, buildTestAppWithMail, createAccessToken, createSite, createUserAsOperator, signUp, signUpConfirmed, STRONG_PASSWORD, type TestApp, sessionCookie } from '../../test/helpers.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';

const ORIGIN = 'http://localhost:3000';

let t: TestApp;
let smtp: TestSmtpServer;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());



async function passwordSignIn(email: string, headers: Record<string, string> = { origin: ORIGIN }) {
  return t.app.inject({ method: 'POST', url: '/auth/session', headers, payload: { email, password: STRONG_PASSWORD } });
}

async function signedInCookie(email: string): Promise<string> {
  const cookie = sessionCookie((await passwordSignIn(email)).headers['set-cookie']);
  assert.ok(cookie !== undefined);
  return `${cookie.name}=${cookie.value}`;
}

function me(cookie: string) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
}

async function requestLink(email: string) {
  return t.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email } });
}

/** Asks for a link and reads it out of the e-mail the real SMTP server received. */
async function mailedLink(email: string): Promise<{ url: string; token: string; path: string }> {
  const before = smtp.messages.length;
  assert.equal((await requestLink(email)).statusCode, 202);
  const messages = await smtp.waitForMessages(before + 1);
  const url = linkIn(messages[before] ?? assert.fail('no message'));
  const parsed = new URL(url);
  return { url, token: parsed.searchParams.get('token') ?? '', path: `${parsed.pathname}${parsed.search}` };
}


function redeemForm(token: string, headers: Record<string, string> = { origin: ORIGIN }) {
  return t.app.inject({
    method: 'POST',
    url: '/magic',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: `token=${encodeURIComponent(token)}`,
  });
}

describe('web sessions', () => {
  test('password sign-in sets an HttpOnly, SameSite=Lax session cookie that authenticates the API', async () => {
    const user = await signUp(t.app);
    const response = await passwordSignIn(user.email);
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().user.email, user.email);
    const cookie = sessionCookie(response.headers['set-cookie']);
    assert.ok(cookie);
    assert.equal(cookie.name, 'siteward_session');
    assert.ok(cookie.attributes.includes('HttpOnly'));
    assert.ok(cookie.attributes.includes('SameSite=Lax'));
    assert.ok(cookie.attributes.includes('Path=/'));
    assert.ok(!cookie.attributes.includes('Secure'), 'plain http PUBLIC_URL: no Secure flag');
    assert.ok(Buffer.from(cookie.value, 'base64url').length >= 16, 'at least 128 random bits');
    assert.equal((await me(`${cookie.name}=${cookie.value}`)).json().user.id, user.id);

    const rows = await t.database.db.selectFrom('sessions').selectAll().execute();
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0]?.token_hash, cookie.value);
    assert.ok(!JSON.stringify(rows).includes(cookie.value), 'only the hash is stored');
  });

  test('with an https PUBLIC_URL the cookie is Secure and __Host- prefixed', async () => {
    const secure = await buildTestApp({ env: { PUBLIC_URL: 'https://siteward.example.com' } });
    try {
      const user = await signUp(secure.app);
      const response = await secure.app.inject({
        method: 'POST',
        url: '/auth/session',
        headers: { origin: 'https://siteward.example.com' },
        payload: { email: user.email, password: STRONG_PASSWORD },
      });
      const cookie = sessionCookie(response.headers['set-cookie']);
      assert.equal(cookie?.name, '__Host-siteward_session');
      assert.ok(cookie?.attributes.includes('Secure'));
      assert.ok(!cookie?.attributes.some((attribute) => attribute.startsWith('Domain')));
    } finally {
      await secure.close();
    }
  });

  test('every sign-in makes a fresh session id', async () => {
    const user = await signUp(t.app);
    const first = await signedInCookie(user.email);
    const second = await signedInCookie(user.email);
    assert.notEqual(first, second);
    assert.equal((await me(first)).statusCode, 200);
    assert.equal((await me(second)).statusCode, 200);
  });

  test('a cross-site password sign-in is refused (login CSRF) and sets no cookie', async () => {
    const user = await signUp(t.app);
    for (const headers of [{ origin: 'https://evil.example' }, {}, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }] as Array<Record<string, string>>) {
      const response = await passwordSignIn(user.email, headers);
      assert.equal(response.statusCode, 403, JSON.stringify(headers));
      assert.equal(response.json().code, 'cross_site_request');
      assert.equal(sessionCookie(response.headers['set-cookie']), undefined);
    }
    assert.equal((await passwordSignIn(user.email, { 'sec-fetch-site': 'same-origin' })).statusCode, 200);
  });

  test('a wrong password is 401 and counts towards the account lock', async () => {
    const user = await signUp(t.app);
    const response = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: 'wrong-password' } });
    assert.equal(response.statusCode, 401);
    assert.equal(sessionCookie(response.headers['set-cookie']), undefined);
    const counter = await t.database.db.selectFrom('rate_limits').select('count').where('key', '=', `login:account:${user.email}`).executeTakeFirst();
    assert.equal(counter?.count, 1);
  });

  test('a cookie-authenticated write needs our Origin; reads do not', async () => {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer);
    const cookie = await signedInCookie(user.email);
    const read = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { cookie } });
    assert.equal(read.statusCode, 200);
    const forged = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { cookie, origin: 'https://evil.example' }, payload: { name: 'pwned' } });
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.json().code, 'cross_site_request');
    const noOrigin = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { cookie }, payload: { name: 'pwned' } });
    assert.equal(noOrigin.statusCode, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { cookie } })).json().site.name, site.name);
    const legitimate = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { cookie, origin: ORIGIN }, payload: { name: 'Renamed' } });
    assert.equal(legitimate.statusCode, 200);
    assert.equal(legitimate.json().site.name, 'Renamed');
  });

  test('credentials are never read from cookies: a JWT or access token in the session cookie is refused', async () => {
    const user = await signUp(t.app);
    const pat = await createAccessToken(t.app, user);
    for (const value of [user.jwt, pat.token]) {
      const response = await me(`siteward_session=${value}`);
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().code, 'session_expired');
    }
    assert.equal((await me(`authorization=Bearer ${user.jwt}`)).statusCode, 401);
  });

  test('logout ends the session and clears the cookie', async () => {
    const user = await signUp(t.app);
    const cookie = await signedInCookie(user.email);
    const response = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie, origin: ORIGIN } });
    assert.equal(response.statusCode, 204);
    const cleared = sessionCookie(response.headers['set-cookie']);
    assert.equal(cleared?.value, '');
    assert.equal((await me(cookie)).statusCode, 401);
    assert.equal(await t.database.db.selectFrom('sessions').selectAll().executeTakeFirst(), undefined);
  });

  test('a cross-site logout is refused', async () => {
    const user = await signUp(t.app);
    const cookie = await signedInCookie(user.email);
    const response = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie, origin: 'https://evil.example' } });
    assert.equal(response.statusCode, 403);
    assert.equal((await me(cookie)).statusCode, 200);
  });

  test('a session ends after 72 idle hours', async () => {
    const user = await signUp(t.app);
    const cookie = await signedInCookie(user.email);
    t.clock.advance(71 * 3600 * 1000);
    assert.equal((await me(cookie)).statusCode, 200);
    t.clock.advance(71 * 3600 * 1000);
    assert.equal((await me(cookie)).statusCode, 200, 'activity keeps it alive');
    t.clock.advance(72 * 3600 * 1000);
    assert.equal((await me(cookie)).statusCode, 401);
  });

  test('a session ends after 30 days however active', async () => {
    const user = await signUp(t.app);
    const cookie = await signedInCookie(user.email);
    for (let day = 1; day < 30; day++) {
      t.clock.advance(24 * 3600 * 1000);
      assert.equal((await me(cookie)).statusCode, 200, `day ${day}`);
    }
    t.clock.advance(24 * 3600 * 1000);
    assert.equal((await me(cookie)).statusCode, 401);
  });

  test('the idle and absolute limits are configurable', async () => {
    const short = await buildTestApp({ env: { SESSION_IDLE_HOURS: '1', SESSION_LIFETIME_DAYS: '1' } });
    try {
      const user = await signUp(short.app);
      const response = await short.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: STRONG_PASSWORD } });
      const cookie = sessionCookie(response.headers['set-cookie']);
      assert.ok(cookie?.attributes.includes('Max-Age=86400'));
      short.clock.advance(3600 * 1000);
      const after = await short.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: `${cookie?.name}=${cookie?.value}` } });
      assert.equal(after.statusCode, 401);
    } finally {
      await short.close();
    }
  });

  test('sessions are listed with the current one marked, and one can be revoked', async () => {
    const user = await signUp(t.app);
    const laptop = await signedInCookie(user.email);
    const phone = await signedInCookie(user.email);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/me/sessions', headers: { cookie: laptop } });
    assert.equal(list.statusCode, 200);
    const sessions = list.json().sessions as Array<{ id: string; current: boolean }>;
    assert.equal(sessions.length, 2);
    assert.equal(sessions.filter((session) => session.current).length, 1);
    const other = sessions.find((session) => !session.current);
    const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v1/me/sessions/${other?.id}`, headers: { cookie: laptop, origin: ORIGIN } });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await me(phone)).statusCode, 401);
    assert.equal((await me(laptop)).statusCode, 200);
  });

  test("another user's session cannot be revoked (404) and access tokens cannot manage sessions (403)", async () => {
    const alice = await signUp(t.app);
    const bob = await signUp(t.app);
    const aliceCookie = await signedInCookie(alice.email);
    const aliceSessions = (await t.app.inject({ method: 'GET', url: '/api/v1/me/sessions', headers: { cookie: aliceCookie } })).json().sessions;
    const response = await t.app.inject({ method: 'DELETE', url: `/api/v1/me/sessions/${aliceSessions[0].id}`, headers: { authorization: bob.bearer } });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().code, 'session_not_found');
    assert.equal((await me(aliceCookie)).statusCode, 200);
    const pat = await createAccessToken(t.app, alice);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me/sessions', headers: { authorization: pat.header } })).statusCode, 403);
  });

  test('sign out everywhere ends every session and every earlier JWT, not later sign-ins', async () => {
    const user = await signUp(t.app);
    const cookieA = await signedInCookie(user.email);
    const cookieB = await signedInCookie(user.email);
    const response = await t.app.inject({ method: 'DELETE', url: '/api/v1/me/sessions', headers: { cookie: cookieA, origin: ORIGIN } });
    assert.equal(response.statusCode, 204);
    assert.equal((await me(cookieA)).statusCode, 401);
    assert.equal((await me(cookieB)).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: user.bearer } })).statusCode, 401);
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } });
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${login.json().token}` } })).statusCode, 200);
    assert.equal((await me(await signedInCookie(user.email))).statusCode, 200);
  });
});

describe('magic link', () => {
  test('a known address is mailed a 15-minute link over SMTP; the answer is 202', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'magic@example.com');
    const before = smtp.messages.length;
    const response = await requestLink(user.email);
    assert.equal(response.statusCode, 202);
    const mail = (await smtp.waitForMessages(before + 1))[before];
    assert.ok(mail);
    assert.deepEqual(mail.to, ['magic@example.com']);
    assert.equal(mail.subject, 'Your Siteward sign-in link');
    const link = linkIn(mail);
    assert.ok(link.startsWith('http://localhost:3000/magic?token='));
    assert.match(mail.text, /expires in 15 minutes/);
    assert.match(mail.text, /did not ask for this/);
    assert.ok(mail.html.includes(link.replace(/&/g, '&#38;')), 'the HTML part carries the same link');
  });

  test('an unknown address gets the same answer and no mail', async () => {
    await signUpConfirmed(t.app, smtp, 'real@example.com');
    const before = smtp.messages.length;
    const unknown = await requestLink('nobody@example.com');
    const known = await requestLink('real@example.com');
    assert.equal(unknown.statusCode, 202);
    assert.deepEqual(unknown.json(), known.json());
    await t.mailer.idle();
    assert.equal(smtp.messages.length, before + 1);
    assert.deepEqual(smtp.messages[before]?.to, ['real@example.com']);
  });

  test('GET, HEAD and repeated GETs of the link never redeem it and never set a cookie', async () => {
    await signUpConfirmed(t.app, smtp, 'scanner@example.com');
    const link = await mailedLink('scanner@example.com');
    const head = await t.app.inject({ method: 'HEAD', url: link.path });
    assert.equal(head.statusCode, 200);
    assert.equal(sessionCookie(head.headers['set-cookie']), undefined);
    for (let i = 0; i < 6; i++) {
      const page = await t.app.inject({ method: 'GET', url: link.path, headers: { 'user-agent': 'SafeLinks scanner' } });
      assert.equal(page.statusCode, 200);
      assert.equal(sessionCookie(page.headers['set-cookie']), undefined);
      assert.match(page.body, /<form method="post" action="\/magic">/);
      assert.ok(page.body.includes(`name="token" value="${link.token}"`));
      assert.match(page.body, /scanner@example\.com/);
    }
    const row = await t.database.db.selectFrom('one_time_tokens').select('used_at').where('purpose', '=', 'magic_link').executeTakeFirstOrThrow();
    assert.equal(row.used_at, null);
    assert.equal((await t.database.db.selectFrom('sessions').selectAll().execute()).length, 0);
    assert.equal((await redeemForm(link.token)).statusCode, 303);
  });

  test('the confirmation page is not cached, sends no referrer, cannot be framed and runs no script', async () => {
    await signUpConfirmed(t.app, smtp, 'headers@example.com');
    const link = await mailedLink('headers@example.com');
    const page = await t.app.inject({ method: 'GET', url: link.path });
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.doesNotMatch(page.body, /<script/);
  });

  test('POST /magic redeems: a session cookie and a 303 to the app', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'redeem@example.com');
    const link = await mailedLink(user.email);
    const response = await redeemForm(link.token);
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/');
    const cookie = sessionCookie(response.headers['set-cookie']);
    assert.ok(cookie);
    assert.equal((await me(`${cookie.name}=${cookie.value}`)).json().user.id, user.id);
  });

  test('a JSON body works as well as the form', async () => {
    await signUpConfirmed(t.app, smtp, 'json@example.com');
    const link = await mailedLink('json@example.com');
    const response = await t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN }, payload: { token: link.token } });
    assert.equal(response.statusCode, 303);
  });

  test('a redeemed link fails the second time with a page offering a new link', async () => {
    await signUpConfirmed(t.app, smtp, 'twice@example.com');
    const link = await mailedLink('twice@example.com');
    assert.equal((await redeemForm(link.token)).statusCode, 303);
    const again = await redeemForm(link.token);
    assert.equal(again.statusCode, 410);
    assert.equal(sessionCookie(again.headers['set-cookie']), undefined);
    assert.match(again.body, /no longer works/);
    assert.match(again.body, /action="\/magic\/resend"/);
    const page = await t.app.inject({ method: 'GET', url: link.path });
    assert.equal(page.statusCode, 410);
  });

  test('20 parallel redemptions of one link yield exactly one session', async () => {
    await signUpConfirmed(t.app, smtp, 'race@example.com');
    const link = await mailedLink('race@example.com');
    const responses = await Promise.all(Array.from({ length: 20 }, () => redeemForm(link.token)));
    assert.equal(responses.filter((response) => response.statusCode === 303).length, 1);
    assert.equal(responses.filter((response) => response.statusCode === 410).length, 19);
    assert.equal((await t.database.db.selectFrom('sessions').selectAll().execute()).length, 1);
  });

  test('a link works at 14:59 and not at 15:01', async () => {
    await signUpConfirmed(t.app, smtp, 'clock@example.com');
    const early = await mailedLink('clock@example.com');
    const late = await mailedLink('clock@example.com');
    t.clock.advance(14 * 60_000 + 59_000);
    assert.equal((await t.app.inject({ method: 'GET', url: early.path })).statusCode, 200);
    assert.equal((await redeemForm(early.token)).statusCode, 303);
    t.clock.advance(2_000);
    assert.equal((await t.app.inject({ method: 'GET', url: late.path })).statusCode, 410);
    assert.equal((await redeemForm(late.token)).statusCode, 410);
  });

  test('a cross-site POST is refused and leaves the token usable', async () => {
    await signUpConfirmed(t.app, smtp, 'csrf@example.com');
    const link = await mailedLink('csrf@example.com');
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Array<Record<string, string>>) {
      const response = await redeemForm(link.token, headers);
      assert.equal(response.statusCode, 403);
      assert.equal(sessionCookie(response.headers['set-cookie']), undefined);
    }
    assert.equal((await redeemForm(link.token, { 'sec-fetch-site': 'same-origin' })).statusCode, 303);
  });

  test("the confirmation page's own form redeems though its no-referrer policy makes the browser send Origin: null", async () => {
    await signUpConfirmed(t.app, smtp, 'null-origin@example.com');
    const link = await mailedLink('null-origin@example.com');
    // What Chromium sends for a same-origin form POST from a page with Referrer-Policy: no-referrer.
    const refused = await redeemForm(link.token, { origin: 'null', 'sec-fetch-site': 'cross-site' });
    assert.equal(refused.statusCode, 403);
    const redeemed = await redeemForm(link.token, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    assert.equal(redeemed.statusCode, 303);
    assert.notEqual(sessionCookie(redeemed.headers['set-cookie']), undefined);
  });

  test('a magic-link token is useless anywhere else', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'purpose@example.com');
    const link = await mailedLink(user.email);
    assert.equal((await me(`siteward_session=${link.token}`)).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${link.token}` } })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Token ${link.token}` } })).statusCode, 401);
    await t.database.db.updateTable('one_time_tokens').set({ purpose: 'password_reset' }).execute();
    assert.equal((await redeemForm(link.token)).statusCode, 410, 'a token is redeemed only for its own purpose');
  });

  test('unknown and malformed tokens get the clear page, never an error', async () => {
    for (const url of ['/magic', '/magic?token=', '/magic?token=abc', `/magic?token=${'A'.repeat(43)}`, '/magic?token=%00%ff']) {
      const page = await t.app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 410, url);
      assert.match(String(page.headers['content-type']), /text\/html/);
    }
    assert.equal((await redeemForm('')).statusCode, 410);
  });

  test('requests are limited per address, the same for unknown addresses', async () => {
    await signUpConfirmed(t.app, smtp, 'limited@example.com');
    for (const email of ['limited@example.com', 'ghost@example.com']) {
      for (let i = 0; i < 5; i++) assert.equal((await requestLink(email)).statusCode, 202);
      const limited = await requestLink(email);
      assert.equal(limited.statusCode, 429, email);
      assert.ok(Number(limited.headers['retry-after']) > 0);
    }
    t.clock.advance(15 * 60_000);
    assert.equal((await requestLink('limited@example.com')).statusCode, 202);
  });

  test('requests are limited per client address across e-mails', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await requestLink(`spray${i}@example.com`)).statusCode, 202);
    assert.equal((await requestLink('spray-last@example.com')).statusCode, 429);
  });

  test('the expired-link page asks for a new link by form', async () => {
    await signUpConfirmed(t.app, smtp, 'resend@example.com');
    const response = await t.app.inject({
      method: 'POST',
      url: '/magic/resend',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      payload: 'email=resend%40example.com',
    });
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /Check your inbox/);
    const mail = await smtp.waitForMessage(0, (message) => message.subject === 'Your Siteward sign-in link');
    assert.ok(linkIn(mail).includes('/magic?token='));
  });

  test('the token never reaches the logs', async () => {
    await signUpConfirmed(t.app, smtp, 'quiet@example.com');
    const link = await mailedLink('quiet@example.com');
    await t.app.inject({ method: 'GET', url: link.path });
    await redeemForm(link.token);
    const logs = t.logs();
    assert.ok(logs.includes('/magic?token=[REDACTED]'));
    assert.ok(!logs.includes(link.token));
  });
});

describe('e-mail delivery', () => {
  test('a failing SMTP server never fails the request; delivery is retried a bounded number of times', async () => {
    const failing = await startSmtpServer({ rejectWith: 550 });
    const app = await buildTestApp({ env: { SMTP_URL: failing.url }, mailRetryDelaysMs: [10, 10] });
    try {
      await createUserAsOperator(app, 'unlucky@example.com');
      const response = await app.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email: 'unlucky@example.com' } });
      assert.equal(response.statusCode, 202);
      await app.mailer.idle();
      assert.match(app.logs(), /will retry/);
      assert.match(app.logs(), /giving up/);
      assert.equal(failing.connections, 3, 'one attempt and two retries');
      assert.equal(failing.messages.length, 0);
    } finally {
      await app.close();
      await failing.close();
    }
  });

  test('without SMTP_URL the message is written to DATA_DIR/outbox (mode 0600) and the log names the file', async () => {
    const local = await buildTestApp();
    try {
      await createUserAsOperator(local, 'outbox@example.com');
      await local.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email: 'outbox@example.com' } });
      const outbox = path.join(local.dataDir, 'outbox');
      await local.mailer.idle();
      const files = readdirSync(outbox);
      assert.equal(files.length, 1);
      const file = path.join(outbox, files[0] ?? '');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.ok(local.logs().includes(file));
    } finally {
      await local.close();
    }
  });
});
