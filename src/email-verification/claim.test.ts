import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  buildTestAppWithMail,
  mailedMagicLink,
  createAccessToken,
  createSite,
  enableTotp,
  sessionCookie,
  signUp,
  signUpConfirmed,
  STRONG_PASSWORD,
  type SignedUpUser,
  type TestApp,
} from '../../test/helpers.js';
import { totp } from '../../test/rfc6238.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { type CreationOptions, type RequestOptions, SoftwareAuthenticator } from '../../test/software-authenticator.js';

const ORIGIN = 'http://localhost:3000';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };

let t: TestApp;
let smtp: TestSmtpServer;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());

/** What the mailbox's holder does: asks for a sign-in link, reads it in the mail, opens it and presses the button. */
async function redeemMailedLink(email: string): Promise<{ status: number; location: string; cookie: string }> {
  const link = await mailedMagicLink(t.app, smtp, email);
  assert.equal((await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` })).statusCode, 200);
  const token = link.searchParams.get('token') ?? '';
  const redeemed = await t.app.inject({ method: 'POST', url: '/magic', headers: FORM, payload: `token=${token}` });
  const cookie = sessionCookie(redeemed.headers['set-cookie']);
  return { status: redeemed.statusCode, location: String(redeemed.headers.location), cookie: cookie?.header ?? '' };
}

function claim(cookie: string, decision: string, headers: Record<string, string> = FORM) {
  const form = headers['content-type'] === FORM['content-type'];
  return t.app.inject({ method: 'POST', url: '/auth/claim', headers: { cookie, ...headers }, payload: form ? `decision=${decision}` : { decision } });
}

function me(headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me', headers });
}

async function passwordSession(email: string, otp?: string): Promise<string> {
  const response = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email, password: STRONG_PASSWORD, ...(otp === undefined ? {} : { otp }) } });
  assert.equal(response.statusCode, 200, response.body);
  return sessionCookie(response.headers['set-cookie'])?.header ?? assert.fail('no cookie');
}

async function addPasskey(user: SignedUpUser, authenticator: SoftwareAuthenticator): Promise<void> {
  const options = await t.app.inject({ method: 'POST', url: '/api/v1/me/passkeys/options', headers: { authorization: user.bearer } });
  const response = authenticator.create(options.json<{ options: CreationOptions }>().options);
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer }, payload: { response } });
  assert.equal(created.statusCode, 201, created.body);
}

async function passkeySignIn(authenticator: SoftwareAuthenticator): Promise<number> {
  const options = await t.app.inject({ method: 'POST', url: '/auth/passkey/options', headers: { origin: ORIGIN } });
  const body = options.json<{ options: RequestOptions; challenge_id: string }>();
  const verified = await t.app.inject({
    method: 'POST',
    url: '/auth/passkey/verify',
    headers: { origin: ORIGIN },
    payload: { challenge_id: body.challenge_id, response: authenticator.get(body.options) },
  });
  return verified.statusCode;
}

describe('pre-account hijacking: the mailbox holder chooses after a magic link', () => {
  test('a squatter who signed up with the victim\'s address loses everything when the victim chooses reset, and sees nothing made after', async () => {
    const victim = 'victim@example.com';
    // The squatter types the victim's address and a password of their own, and settles in.
    const squatter = await signUp(t.app, victim);
    const pat = await createAccessToken(t.app, squatter);
    const planted = await createSite(t.app, squatter.bearer, { name: 'Planted by the squatter' });
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(squatter, authenticator);
    const { secret } = await enableTotp(t, squatter);
    const squatterSession = await passwordSession(victim, totp(secret, t.clock.now()));
    t.clock.advance(30_000);
    assert.equal((await me({ authorization: squatter.bearer })).json().user.email_verified, false);

    // The victim signs in by magic link: the session waits for the choice and opens nothing.
    const redeemed = await redeemMailedLink(victim);
    assert.equal(redeemed.status, 303);
    assert.equal(redeemed.location, '/auth/claim');
    assert.equal((await me({ cookie: redeemed.cookie })).json().code, 'claim_required');
    assert.equal((await t.app.inject({ method: 'GET', url: '/auth/2fa', headers: { cookie: redeemed.cookie } })).headers.location, '/', 'the 2FA step cannot skip the choice');
    const page = await t.app.inject({ method: 'GET', url: '/auth/claim', headers: { cookie: redeemed.cookie } });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /<form method="post" action="\/auth\/claim">\s*<input type="hidden" name="decision" value="keep">/);
    assert.match(page.body, /<input type="hidden" name="decision" value="reset">/);
    assert.match(page.body, /victim@example\.com/);

    const before = smtp.messages.length;
    const reset = await claim(redeemed.cookie, 'reset');
    assert.equal(reset.statusCode, 303);
    assert.equal(reset.headers.location, '/settings/security#password', 'on to setting a new password');
    const owner = sessionCookie(reset.headers['set-cookie'])?.header ?? assert.fail('no session');
    assert.notEqual(owner, redeemed.cookie);
    const mine = (await me({ cookie: owner })).json().user;
    assert.equal(mine.email_verified, true);
    assert.equal(mine.has_password, false);

    // Every credential the squatter made is dead.
    const refused = [
      await me({ authorization: squatter.bearer }),
      await me({ authorization: pat.header }),
      await me({ cookie: squatterSession }),
      await me({ cookie: redeemed.cookie }),
    ];
    assert.deepEqual(refused.map((response) => response.statusCode), [401, 401, 401, 401]);
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: victim, password: STRONG_PASSWORD, otp: totp(secret, t.clock.now()) } });
    assert.equal(login.statusCode, 401);
    assert.equal(login.json().code, 'invalid_credentials');
    assert.equal(await passkeySignIn(authenticator), 401);
    const totpStatus = await t.app.inject({ method: 'GET', url: '/api/v1/me/totp', headers: { cookie: owner } });
    assert.equal(totpStatus.json().enabled, false);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { cookie: owner } })).json().passkeys, []);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/api/v1/access-tokens', headers: { cookie: owner } })).json().access_tokens, []);

    // What the owner makes now, the squatter's old credentials cannot reach.
    const secret_site = await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers: { cookie: owner, origin: ORIGIN }, payload: { name: 'Owner only' } });
    assert.equal(secret_site.statusCode, 201);
    for (const headers of [{ authorization: squatter.bearer }, { authorization: pat.header }, { cookie: squatterSession }]) {
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers });
      assert.equal(list.statusCode, 401);
      assert.ok(!list.body.includes('Owner only'));
    }
    const ownList = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { cookie: owner } });
    assert.deepEqual(ownList.json().sites.map((site: { name: string }) => site.name).sort(), ['Owner only', planted.name].sort());

    // The owner is told, and sets a password without knowing the squatter's.
    const notice = await smtp.waitForMessage(before, (message) => message.subject === 'Your Siteward account was reset');
    assert.deepEqual(notice.to, [victim]);
    const set = await t.app.inject({ method: 'POST', url: '/api/v1/me/password', headers: { cookie: owner, origin: ORIGIN }, payload: { new_password: 'copper-meadow-whistle-58' } });
    assert.equal(set.statusCode, 204, set.body);
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: victim, password: 'copper-meadow-whistle-58' } })).statusCode, 200);

    const events = t.logs().split('\n').filter((line) => line.includes('"security_event"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const type of ['email.verified', 'account.taken_over', 'sign_in.succeeded']) {
      assert.ok(events.some((event) => event.security_event === type && event.user_id === squatter.id), type);
    }
    assert.ok(events.some((event) => event.security_event === 'sign_in.succeeded' && event.method === 'magic_link'));
  });

  test('the owner who never confirmed the address keeps everything, and TOTP\'s step follows the choice', async () => {
    const user = await signUp(t.app, 'forgetful@example.com');
    const { secret } = await enableTotp(t, user);
    const pat = await createAccessToken(t.app, user);
    const redeemed = await redeemMailedLink(user.email);
    assert.equal(redeemed.location, '/auth/claim');

    const kept = await claim(redeemed.cookie, 'keep', { origin: ORIGIN });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.deepEqual([kept.json().user.email_verified, kept.json().second_factor_required], [true, true]);
    const pending = sessionCookie(kept.headers['set-cookie'])?.header ?? assert.fail('no session');
    assert.equal((await me({ cookie: pending })).json().code, 'second_factor_required');
    const finished = await t.app.inject({ method: 'POST', url: '/auth/2fa', headers: { cookie: pending, origin: ORIGIN }, payload: { code: totp(secret, t.clock.now()) } });
    assert.equal(finished.statusCode, 200, finished.body);
    const full = sessionCookie(finished.headers['set-cookie'])?.header ?? assert.fail('no session');
    assert.equal((await me({ cookie: full })).json().user.email_verified, true);
    // Nothing was taken away.
    assert.equal((await me({ authorization: user.bearer })).statusCode, 200);
    assert.equal((await me({ authorization: pat.header })).statusCode, 200);
  });

  test('the choice is answered once, only with the pending session, and only from our own pages', async () => {
    const user = await signUp(t.app, 'once@example.com');
    const redeemed = await redeemMailedLink(user.email);
    const otherSite = await claim(redeemed.cookie, 'reset', { ...FORM, origin: 'https://evil.example' });
    assert.equal(otherSite.statusCode, 403);
    assert.equal(otherSite.json().code, 'cross_site_request');
    const noCookie = await claim('', 'reset', { origin: ORIGIN });
    assert.equal(noCookie.statusCode, 401);
    assert.equal(noCookie.json().code, 'claim_not_pending');
    const fullSession = await passwordSession(user.email);
    assert.equal((await claim(fullSession, 'reset', { origin: ORIGIN })).json().code, 'claim_not_pending');
    assert.equal((await claim(redeemed.cookie, 'maybe', { origin: ORIGIN })).statusCode, 400);

    // Twenty answers at once: one is applied, the rest find nothing to answer.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(redeemed.cookie, i % 2 === 0 ? 'keep' : 'reset', { origin: ORIGIN })));
    assert.equal(answers.filter((answer) => answer.statusCode === 200).length, 1);
    assert.ok(answers.filter((answer) => answer.statusCode !== 200).every((answer) => answer.json().code === 'claim_not_pending'));
    const again = await claim(redeemed.cookie, 'reset');
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/');
    assert.equal(sessionCookie(again.headers['set-cookie']), undefined);
  });

  test('a verified account\'s magic link goes straight to the app, with no choice to make', async () => {
    const user = await signUpConfirmed(t.app, smtp, 'settled@example.com');
    const redeemed = await redeemMailedLink(user.email);
    assert.equal(redeemed.status, 303);
    assert.equal(redeemed.location, '/');
    assert.equal((await me({ cookie: redeemed.cookie })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/auth/claim', headers: { cookie: redeemed.cookie } })).headers.location, '/');
  });
});
