import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  buildTestAppWithMail,
  createAccessToken,
  mailedMagicLink,
  sessionCookie,
  signUp,
  signUpConfirmed,
  STRONG_PASSWORD,
  type SignedUpUser,
  type TestApp,
} from '../../test/helpers.js';
import type { ReceivedMail, TestSmtpServer } from '../../test/smtp.js';
import { AUTH_ERRORS } from '../auth/errors.js';

const ORIGIN = 'http://localhost:3000';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };
const WINDOW_MS = 600 * 1000;
const CHANGE_SUBJECT = 'Confirm your new e-mail address for Siteward';
const NOTICE_SUBJECT = 'Your Siteward e-mail address was changed';

let smtp: TestSmtpServer;
let t: TestApp;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());

type Headers = Record<string, string>;
type Response = Awaited<ReturnType<TestApp['app']['inject']>>;

function assertProblem(response: Response, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.json<{ code: string }>().code, code, response.body);
}

function rename(headers: Headers, payload: unknown) {
  return t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers, payload: payload as Record<string, unknown> });
}

function requestChange(headers: Headers, email: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/me/email', headers, payload: { email } });
}

async function me(headers: Headers): Promise<{ email: string; name: string; email_verified: boolean }> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ user: { email: string; name: string; email_verified: boolean } }>().user;
}

/** The change link mailed to `email` after message index `from`, as its recipient would find it. */
async function changeLinkTo(email: string, from: number): Promise<{ mail: ReceivedMail; link: URL; token: string; path: string }> {
  const mail = await smtp.waitForMessage(from, (message) => message.to.includes(email) && message.subject === CHANGE_SUBJECT);
  const match = /https?:\/\/\S+\/verify-email\?token=[A-Za-z0-9_-]+/.exec(mail.text) ?? assert.fail(`no link in:\n${mail.text}`);
  const link = new URL(match[0]);
  return { mail, link, token: link.searchParams.get('token') ?? '', path: `${link.pathname}${link.search}` };
}

/** Asks for the change and reads the link out of the mail to the new address. */
async function changeLink(user: SignedUpUser, email: string) {
  const from = smtp.messages.length;
  const response = await requestChange({ authorization: user.bearer }, email);
  assert.equal(response.statusCode, 202, response.body);
  return { response, ...(await changeLinkTo(email.trim().toLowerCase(), from)) };
}

function confirmForm(token: string, headers: Headers = FORM) {
  return t.app.inject({ method: 'POST', url: '/verify-email', headers, payload: `token=${encodeURIComponent(token)}` });
}

function login(email: string) {
  return t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: STRONG_PASSWORD } });
}

async function pendingRows(userId: string): Promise<number> {
  const rows = await t.database.db
    .selectFrom('one_time_tokens')
    .select('id')
    .where('user_id', '=', userId)
    .where('purpose', '=', 'email_change')
    .where('used_at', 'is', null)
    .execute();
  return rows.length;
}

describe('PATCH /api/v1/me', () => {
  test('sets the name trimmed, under the sign-up rule, and the next read shows it', async () => {
    const user = await signUp(t.app);
    const headers = { authorization: user.bearer };
    const renamed = await rename(headers, { name: '  Ada Lovelace  ' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json<{ user: { name: string } }>().user.name, 'Ada Lovelace');
    assert.equal((await me(headers)).name, 'Ada Lovelace');

    // 200 characters (emoji count as one each) pass; 201 do not, and nothing changes.
    assert.equal((await rename(headers, { name: '🙂'.repeat(200) })).statusCode, 200);
    const tooLong = await rename(headers, { name: 'x'.repeat(201) });
    assertProblem(tooLong, 400, 'validation_failed');
    assert.deepEqual(tooLong.json<{ errors: unknown }>().errors, [{ path: '/name', message: 'must be at most 200 characters' }]);
    assert.equal((await me(headers)).name, '🙂'.repeat(200));

    assert.equal((await rename(headers, { name: '   ' })).json<{ user: { name: string } }>().user.name, '', 'blank clears it');
  });

  test('refuses unknown fields, an access token and a cross-site write', async () => {
    const user = await signUp(t.app);
    const unknown = await rename({ authorization: user.bearer }, { name: 'Ada', email: 'other@example.com' });
    assertProblem(unknown, 400, 'validation_failed');
    assert.equal((await me({ authorization: user.bearer })).email, user.email);

    const token = await createAccessToken(t.app, user);
    assertProblem(await rename({ authorization: token.header }, { name: 'Integration' }), 403, 'access_token_not_allowed');

    const session = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email: user.email, password: STRONG_PASSWORD } });
    const cookie = sessionCookie(session.headers['set-cookie']) ?? assert.fail('no session');
    assertProblem(await rename({ cookie: cookie.header, origin: 'https://evil.example' }, { name: 'Forged' }), 403, 'cross_site_request');
    assert.equal((await rename({ cookie: cookie.header, origin: ORIGIN }, { name: 'Ada' })).statusCode, 200);
    assert.equal((await me({ authorization: user.bearer })).name, 'Ada');
  });
});

describe('changing the e-mail address', () => {
  test('the link goes to the new address; GET changes nothing; POST moves the account, the old address is told, and only the new address signs in', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'old@example.com');
    const headers = { authorization: user.bearer };
    // A sign-in link mailed to the old address before the change must not work after it.
    const earlyMagic = (await mailedMagicLink(t.app, smtp, user.email)).searchParams.get('token') ?? '';

    const { response, mail, token, path, link } = await changeLink(user, '  New@Example.com ');
    assert.deepEqual(response.json(), {
      detail: 'We have sent a link to new@example.com. Open it and confirm to finish the change; until then you keep signing in with your current address.',
      pending_email_change: { email: 'new@example.com', expires_at: new Date(t.clock.now().getTime() + 24 * 3_600_000).toISOString() },
    });
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(mail.to, ['new@example.com']);
    assert.equal(link.origin, ORIGIN);
    assert.match(mail.text, /expires in 24 hours/);
    const pending = await t.app.inject({ method: 'GET', url: '/api/v1/me/email', headers });
    assert.deepEqual(pending.json(), { email: 'old@example.com', email_verified: true, pending_email_change: response.json<{ pending_email_change: unknown }>().pending_email_change });

    // Before the link is used, the new address signs in to nothing and gets no sign-in link.
    assertProblem(await login('new@example.com'), 401, 'invalid_credentials');
    const asked = smtp.messages.length;
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email: 'new@example.com' } })).statusCode, 202);

    assert.equal((await t.app.inject({ method: 'HEAD', url: path })).statusCode, 200);
    for (let i = 0; i < 3; i++) {
      const page = await t.app.inject({ method: 'GET', url: path, headers: { 'user-agent': 'SafeLinks scanner' } });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Confirm your new e-mail address/);
      assert.match(page.body, /new@example\.com/);
      assert.match(page.body, /<form method="post" action="\/verify-email">/);
    }
    assert.equal((await me(headers)).email, 'old@example.com', 'opening the link changed nothing');

    const done = await confirmForm(token);
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /E-mail address changed/);
    assert.match(done.body, /new@example\.com/);

    // The account moved, the new address counts as confirmed, and the JWT issued before stays valid.
    const moved = await me(headers);
    assert.equal(moved.email, 'new@example.com');
    assert.equal(moved.email_verified, true);
    const notice = await smtp.waitForMessage(0, (message) => message.subject === NOTICE_SUBJECT);
    assert.deepEqual(notice.to, ['old@example.com']);
    assert.match(notice.text, /e-mail address of your Siteward account was changed/);
    assert.doesNotMatch(notice.text + notice.html, /new@example\.com/, 'the notice does not name the new address');
    assert.equal(smtp.messages.slice(asked).filter((message) => message.subject === 'Your Siteward sign-in link').length, 0, 'no sign-in link went to the address before it was the account\'s');

    assert.equal((await login('new@example.com')).statusCode, 200);
    assertProblem(await login('old@example.com'), 401, 'invalid_credentials');
    const magic = await t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN }, payload: { token: earlyMagic } });
    assert.equal(magic.statusCode, 410, 'the sign-in link mailed to the old address is void');
    const fresh = await mailedMagicLink(t.app, smtp, 'new@example.com');
    assert.equal((await t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN }, payload: { token: fresh.searchParams.get('token') ?? '' } })).statusCode, 303);

    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/api/v1/me/email', headers })).json<{ pending_email_change: unknown }>().pending_email_change, null);
    assert.ok(t.logs().includes('"security_event":"email.changed"'));
    assert.ok(!t.logs().includes(token), 'the token never reaches the logs');
  });

  test('the mails and answers carry the token only inside the link', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const { response, mail, token, link } = await changeLink(user, 'only-link@example.com');
    assert.ok(!response.body.includes(token));
    assert.equal(mail.text.split(token).length - 1, 1, 'once in the text: the link');
    assert.ok(!mail.text.replaceAll(link.href, '').includes(token));
    assert.ok(!mail.html.replaceAll(link.href, '').includes(token), 'the html names it only in the link');
    const pending = await t.app.inject({ method: 'GET', url: '/api/v1/me/email', headers: { authorization: user.bearer } });
    assert.ok(!pending.body.includes(token));
    const json = await t.app.inject({ method: 'POST', url: '/verify-email', headers: { origin: ORIGIN }, payload: { token } });
    assert.equal(json.statusCode, 200, json.body);
    assert.equal(json.json<{ user: { email: string; email_verified: boolean } }>().user.email, 'only-link@example.com');
    assert.ok(!json.body.includes(token));
    const notice = await smtp.waitForMessage(0, (message) => message.subject === NOTICE_SUBJECT);
    assert.ok(!notice.raw.includes(token));
  });

  test('needs a recent authentication, and a signed-in person rather than an access token', async () => {
    const user = await signUp(t.app);
    const token = await createAccessToken(t.app, user);
    t.clock.advance(WINDOW_MS);
    const before = smtp.messages.length;
    assertProblem(await requestChange({ authorization: user.bearer }, 'late@example.com'), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assertProblem(await requestChange({ authorization: token.header }, 'late@example.com'), 403, 'access_token_not_allowed');
    assert.equal(await pendingRows(user.id), 0);

    const reauthenticated = await t.app.inject({ method: 'POST', url: '/api/v1/me/reauthenticate', headers: { authorization: user.bearer }, payload: { password: STRONG_PASSWORD } });
    const fresh = reauthenticated.json<{ token: string }>().token;
    assert.equal((await requestChange({ authorization: `Bearer ${fresh}` }, 'late@example.com')).statusCode, 202);
    await smtp.waitForMessage(before, (message) => message.to.includes('late@example.com'));
    assert.equal(smtp.messages.slice(before).filter((message) => message.subject === CHANGE_SUBJECT).length, 1);
  });

  test('refuses the current address, a malformed one and an address another account holds', async () => {
    const user = await signUp(t.app, 'mine@example.com');
    const other = await signUp(t.app, 'taken@example.com');
    const headers = { authorization: user.bearer };
    const same = await requestChange(headers, ' MINE@example.com');
    assertProblem(same, 400, 'email_unchanged');
    assert.deepEqual(same.json<{ errors: unknown }>().errors, [{ path: '/email', message: 'is already your address' }]);
    const malformed = await requestChange(headers, 'not an address');
    assertProblem(malformed, 400, 'validation_failed');
    assert.equal(malformed.json<{ errors: Array<{ path: string }> }>().errors[0]?.path, '/email');
    assertProblem(await requestChange(headers, 'Taken@example.com'), 409, 'email_taken');
    assert.equal(await pendingRows(user.id), 0);
    assert.equal(smtp.messages.filter((message) => message.subject === CHANGE_SUBJECT).length, 0);
    assert.equal((await me({ authorization: other.bearer })).email, 'taken@example.com');
  });

  test('an address taken after the request: the page says so and nothing changes', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'mover@example.com');
    const { token, path } = await changeLink(user, 'contested@example.com');
    await signUp(t.app, 'contested@example.com');

    const page = await confirmForm(token);
    assert.equal(page.statusCode, 409);
    assert.match(page.body, /This address is already in use/);
    assertProblem(await t.app.inject({ method: 'POST', url: '/verify-email', headers: { origin: ORIGIN }, payload: { token } }), 409, 'email_taken');
    assert.equal((await me({ authorization: user.bearer })).email, 'mover@example.com');
    assert.equal((await login('mover@example.com')).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 200, 'the link itself was not used up');
    await t.mailer.idle();
    assert.equal(smtp.messages.filter((message) => message.subject === NOTICE_SUBJECT).length, 0, 'nobody is told of a change that did not happen');
  });

  test('two accounts confirming the same new address at once: one gets it, the other is told it is taken', async () => {
    const first = await signUpConfirmed(t.app, smtp);
    const second = await signUpConfirmed(t.app, smtp);
    const links = [await changeLink(first, 'wanted@example.com'), await changeLink(second, 'wanted@example.com')];
    const pages = await Promise.all(links.map((link) => confirmForm(link.token)));
    assert.deepEqual(pages.map((page) => page.statusCode).sort(), [200, 409]);
    const emails = [(await me({ authorization: first.bearer })).email, (await me({ authorization: second.bearer })).email];
    assert.equal(emails.filter((email) => email === 'wanted@example.com').length, 1);
  });

  test('only the latest link works', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const first = await changeLink(user, 'typo@exmaple.com');
    const second = await changeLink(user, 'right@example.com');
    assert.equal((await t.app.inject({ method: 'GET', url: first.path })).statusCode, 410);
    assert.equal((await confirmForm(first.token)).statusCode, 410);
    assert.equal((await me({ authorization: user.bearer })).email, user.email);
    assert.equal(await pendingRows(user.id), 1);
    assert.equal((await confirmForm(second.token)).statusCode, 200);
    assert.equal((await me({ authorization: user.bearer })).email, 'right@example.com');
  });

  test('a withdrawn change\'s link no longer works', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const { token } = await changeLink(user, 'withdrawn@example.com');
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/api/v1/me/email', headers: { authorization: user.bearer } })).statusCode, 204);
    assert.equal((await confirmForm(token)).statusCode, 410);
    assert.equal((await me({ authorization: user.bearer })).email, user.email);
  });

  test('a used or expired link gets the 410 page', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const used = await changeLink(user, 'used@example.com');
    assert.equal((await confirmForm(used.token)).statusCode, 200);
    const again = await confirmForm(used.token);
    assert.equal(again.statusCode, 410);
    assert.match(again.body, /This confirmation link no longer works/);
    assert.equal((await t.app.inject({ method: 'GET', url: used.path })).statusCode, 410);

    const late = await changeLink(user, 'late@example.com');
    t.clock.advance(24 * 3_600_000 + 1000);
    assert.equal((await t.app.inject({ method: 'GET', url: late.path })).statusCode, 410);
    assertProblem(await t.app.inject({ method: 'POST', url: '/verify-email', headers: { origin: ORIGIN }, payload: { token: late.token } }), 410, 'verification_token_invalid');
    assert.equal((await me({ authorization: user.bearer })).email, 'used@example.com', 'the expired link changed nothing');
  });

  test('a cross-site POST is refused and leaves the link usable', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const { token } = await changeLink(user, 'csrf-change@example.com');
    assert.equal((await confirmForm(token, { ...FORM, origin: 'https://evil.example' })).statusCode, 403);
    assert.equal((await confirmForm(token, { 'content-type': 'application/x-www-form-urlencoded' })).statusCode, 403, 'no Origin and no Sec-Fetch-Site');
    assert.equal((await me({ authorization: user.bearer })).email, user.email);
    assert.equal((await confirmForm(token)).statusCode, 200);
  });

  test('at most 5 requests an hour per account, counted before mailing, even in parallel', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const before = smtp.messages.length;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => requestChange({ authorization: user.bearer }, `flood${i}@example.com`)));
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [202, 202, 202, 202, 202, 429, 429, 429, 429, 429]);
    assert.ok(answers.filter((answer) => answer.statusCode === 429).every((answer) => Number(answer.headers['retry-after']) > 0));
    await t.mailer.idle();
    assert.equal(smtp.messages.length, before + 5);
    assert.equal(await pendingRows(user.id), 1, 'one pending change survives the race');

    // An hour on, the window has passed (and so has the sign-in's recency: confirmed again).
    t.clock.advance(60 * 60_000);
    const reauthenticated = await t.app.inject({ method: 'POST', url: '/api/v1/me/reauthenticate', headers: { authorization: user.bearer }, payload: { password: STRONG_PASSWORD } });
    const fresh = `Bearer ${reauthenticated.json<{ token: string }>().token}`;
    assert.equal((await requestChange({ authorization: fresh }, 'after-an-hour@example.com')).statusCode, 202);
  });
});
