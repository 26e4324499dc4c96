import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, mailedMagicLink, sessionCookie, signUp, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpClient, listenOnLoopback, TEST_ORIGIN } from '../../test/http.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { EMAIL_VERIFICATION_ERRORS } from '../email-verification/errors.js';

/**
 * A thief who holds a fresh session asks to move the account to their own mailbox. Whatever ends
 * the thief's hold (a new password, "sign out everywhere", the claim's reset) must end that
 * request too, or the thief confirms the link afterwards and owns the account. Over real HTTP.
 */

const CHANGE_SUBJECT = 'Confirm your new e-mail address for Siteward';
const THIEF_MAILBOX = 'thief-mailbox@example.net';

let smtp: TestSmtpServer;
let t: TestApp;
let http: HttpClient;
beforeEach(async () => {
  ({ t, smtp } = await buildTestAppWithMail());
  http = await listenOnLoopback(t);
});
afterEach(() => t.close());

/** Asks for the change with `headers` and answers the token of the link mailed to the new address. */
async function requestChange(headers: Record<string, string>, email = THIEF_MAILBOX): Promise<string> {
  const from = smtp.messages.length;
  const answer = await http.request('POST', '/api/v1/me/email', { headers, json: { email } });
  assert.equal(answer.status, 202, answer.text);
  const mail = await smtp.waitForMessage(from, (message) => message.to.includes(email) && message.subject === CHANGE_SUBJECT);
  const match = /\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(mail.text) ?? assert.fail(mail.text);
  return match[1] ?? '';
}

/** The thief confirms the link: its page and both ways of posting it must say it no longer works. */
async function assertLinkDead(token: string): Promise<void> {
  const page = await http.request('GET', `/verify-email?token=${token}`);
  assert.equal(page.status, 410, page.text);
  assert.doesNotMatch(page.text, new RegExp(THIEF_MAILBOX));
  assertProblem(await http.request('POST', '/verify-email', { headers: { origin: TEST_ORIGIN }, json: { token } }), 410, EMAIL_VERIFICATION_ERRORS.VERIFICATION_TOKEN_INVALID);
  const form = await http.request('POST', '/verify-email', { headers: { origin: TEST_ORIGIN }, form: { token } });
  assert.equal(form.status, 410, form.text);
}

/** The account's address and pending change, as its owner signing in afresh reads them. */
async function addressOf(email: string, password = STRONG_PASSWORD): Promise<{ email: string; pending_email_change: unknown }> {
  const login = await http.request('POST', '/auth/login', { json: { email, password } });
  assert.equal(login.status, 200, login.text);
  const state = await http.request('GET', '/api/v1/me/email', { headers: { authorization: `Bearer ${login.json<{ token: string }>().token}` } });
  assert.equal(state.status, 200, state.text);
  return state.json();
}

async function pendingChangeRows(userId: string): Promise<number> {
  const rows = await t.database.db.selectFrom('one_time_tokens').select('id').where('user_id', '=', userId).where('purpose', '=', 'email_change').where('used_at', 'is', null).execute();
  return rows.length;
}

describe('a pending change of address dies with the thief\'s hold', () => {
  test('the owner\'s password change voids it: the link answers 410 and the account keeps its address', async () => {
    const owner = await signUpConfirmed(t.app, smtp, 'lockout-password@example.com');
    const thief = await http.webSession(owner.email);
    const token = await requestChange(thief);

    const changed = await http.request('POST', '/api/v1/me/password', {
      headers: { authorization: owner.bearer },
      json: { current_password: STRONG_PASSWORD, new_password: 'amber-glacier-thimble-83' },
    });
    assert.equal(changed.status, 204, changed.text);
    assert.equal(await pendingChangeRows(owner.id), 0);
    await assertLinkDead(token);
    const state = await addressOf(owner.email, 'amber-glacier-thimble-83');
    assert.deepEqual([state.email, state.pending_email_change], [owner.email, null]);
  });

  test('signing out everywhere voids it too, whoever asked for it', async () => {
    const owner = await signUpConfirmed(t.app, smtp, 'lockout-everywhere@example.com');
    const thief = await http.webSession(owner.email);
    const token = await requestChange(thief);
    const ownerSession = await http.webSession(owner.email);

    const signedOut = await http.request('DELETE', '/api/v1/me/sessions', { headers: ownerSession });
    assert.equal(signedOut.status, 204, signedOut.text);
    assert.equal((await http.request('GET', '/api/v1/me', { headers: thief })).status, 401);
    await assertLinkDead(token);
    const state = await addressOf(owner.email);
    assert.deepEqual([state.email, state.pending_email_change], [owner.email, null]);
  });

  test('signing out of one session is not ending the hold: the owner\'s own change still completes', async () => {
    const owner = await signUpConfirmed(t.app, smtp, 'lockout-control@example.com');
    const session = await http.webSession(owner.email);
    const token = await requestChange({ authorization: owner.bearer }, 'new-home@example.com');
    assert.equal((await http.request('POST', '/auth/logout', { headers: session })).status, 204);
    const confirmed = await http.request('POST', '/verify-email', { headers: { origin: TEST_ORIGIN }, json: { token } });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.json<{ user: { email: string } }>().user.email, 'new-home@example.com');
  });
});

describe('the claim step and a pending change of address', () => {
  /** A squatter signs up with the victim's address and asks to move the account to their own mailbox. */
  async function squattedWithPendingChange(victim: string): Promise<{ token: string; userId: string }> {
    const squatter = await signUp(t.app, victim);
    return { token: await requestChange({ authorization: squatter.bearer }), userId: squatter.id };
  }

  /** The mailbox's holder signs in by link: the pending session's cookie, waiting for the choice. */
  async function claimSession(email: string): Promise<string> {
    const link = await mailedMagicLink(t.app, smtp, email);
    const redeemed = await http.request('POST', '/magic', { headers: { origin: TEST_ORIGIN }, form: { token: link.searchParams.get('token') ?? '' } });
    assert.equal(redeemed.status, 303, redeemed.text);
    assert.equal(redeemed.headers.get('location'), '/auth/claim');
    return sessionCookie(redeemed.headers.getSetCookie())?.header ?? assert.fail('no pending session');
  }

  test('the claim page says a change is pending, and "keep" can withdraw it: its link then answers 410', async () => {
    const { token, userId } = await squattedWithPendingChange('claim-keep@example.com');
    const cookie = await claimSession('claim-keep@example.com');

    const page = await http.request('GET', '/auth/claim', { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(`move this account to <strong>${THIEF_MAILBOX.replace('.', '\\.')}</strong>`));
    assert.match(page.text, /<input type="hidden" name="email_change" value="withdraw">/);

    const kept = await http.request('POST', '/auth/claim', { headers: { cookie, origin: TEST_ORIGIN }, form: { decision: 'keep', email_change: 'withdraw' } });
    assert.equal(kept.status, 303, kept.text);
    assert.equal(kept.headers.get('location'), '/');
    assert.equal(await pendingChangeRows(userId), 0);
    await assertLinkDead(token);
    const owner = sessionCookie(kept.headers.getSetCookie())?.header ?? assert.fail('no session');
    const state = await http.request('GET', '/api/v1/me/email', { headers: { cookie: owner } });
    assert.deepEqual(state.json(), { email: 'claim-keep@example.com', email_verified: true, pending_email_change: null });
  });

  test('"keep" without withdrawing leaves the change to its link; the JSON answer takes the same field', async () => {
    const kept = await squattedWithPendingChange('claim-keep-change@example.com');
    const cookie = await claimSession('claim-keep-change@example.com');
    const wrong = await http.request('POST', '/auth/claim', { headers: { cookie, origin: TEST_ORIGIN }, json: { decision: 'keep', email_change: 'maybe' } });
    assert.equal(wrong.status, 400, wrong.text);
    const answer = await http.request('POST', '/auth/claim', { headers: { cookie, origin: TEST_ORIGIN }, json: { decision: 'keep', email_change: 'keep' } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(await pendingChangeRows(kept.userId), 1);
  });

  test('"reset" voids it with everything else granted before', async () => {
    const { token, userId } = await squattedWithPendingChange('claim-reset@example.com');
    const cookie = await claimSession('claim-reset@example.com');
    const reset = await http.request('POST', '/auth/claim', { headers: { cookie, origin: TEST_ORIGIN }, form: { decision: 'reset' } });
    assert.equal(reset.status, 303, reset.text);
    assert.equal(await pendingChangeRows(userId), 0);
    await assertLinkDead(token);
  });

  test('without a pending change the page offers the two plain choices', async () => {
    await signUp(t.app, 'claim-plain@example.com');
    const cookie = await claimSession('claim-plain@example.com');
    const page = await http.request('GET', '/auth/claim', { headers: { cookie } });
    assert.doesNotMatch(page.text, /email_change/);
    assert.doesNotMatch(page.text, /move this account/);
  });
});
