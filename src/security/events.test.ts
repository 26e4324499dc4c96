import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { totp } from '../../test/rfc6238.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';
import { SoftwareAuthenticator } from '../../test/software-authenticator.js';

let smtp: TestSmtpServer;
let t: TestApp;

before(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
});

after(async () => {
  await t.close();
  await smtp.close();
});

/** The structured security lines logged so far. */
function securityLines(): Array<Record<string, unknown>> {
  return t
    .logs()
    .split('\n')
    .filter((line) => line.includes('"security_event"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('security events', () => {
  test('signing out everywhere is logged as a structured line and mailed to the owner, with no secret in either', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const before = smtp.messages.length;
    const response = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/me/sessions',
      headers: { authorization: user.bearer, 'user-agent': 'Security test agent' },
    });
    assert.equal(response.statusCode, 204);

    const line = securityLines().find((entry) => entry.security_event === 'sessions.revoked' && entry.user_id === user.id);
    assert.ok(line, 'a security line for the sign-out');
    assert.equal(line.outcome, 'success');
    assert.equal(line.credential, 'jwt');
    assert.equal(line.user_agent, 'Security test agent');
    assert.ok(!t.logs().includes(user.jwt), 'the JWT is never logged');

    const messages = await smtp.waitForMessages(before + 1);
    const notice = messages.slice(before).find((message) => message.to.includes(user.email));
    assert.ok(notice, 'the owner is mailed');
    assert.match(notice.subject, /signed out everywhere/i);
    assert.match(notice.text, /Security test agent/);
    assert.ok(!notice.raw.includes(user.jwt));
  });
});

describe('notices of credential changes', () => {
  test('each change mails the owner exactly once, naming what changed and no secret; re-authenticating is logged, not mailed', async () => {
    // Confirmed first, so the confirmation mail is in before the count starts.
    const user = await signUpConfirmed(t.app, smtp);
    const start = smtp.messages.length;
    const headers = { authorization: user.bearer };
    const inject = async (method: 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>, status = 200) => {
      const response = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
      assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
      return response.statusCode === 204 ? undefined : response.json();
    };
    /** Each notice, and the secrets none of them may carry. */
    const expected: Array<{ subject: RegExp; names?: string }> = [];
    const secrets: string[] = [STRONG_PASSWORD];

    const created = (await inject('POST', '/api/v1/access-tokens', { name: 'Deploy bot' }, 201)).access_token;
    secrets.push(created.token);
    expected.push({ subject: /access token was created/, names: 'Deploy bot' });
    await inject('DELETE', `/api/v1/access-tokens/${created.id}`, undefined, 204);
    expected.push({ subject: /access token was revoked/, names: 'Deploy bot' });

    const { secret } = await inject('POST', '/api/v1/me/totp/setup');
    const enablingCode = totp(secret, t.clock.now());
    const enabled = await inject('POST', '/api/v1/me/totp/enable', { code: enablingCode });
    secrets.push(secret, enablingCode, ...enabled.recovery_codes);
    expected.push({ subject: /Two-factor authentication is on/ });
    t.clock.advance(30_000);
    const confirming = totp(secret, t.clock.now());
    const regenerated = await inject('POST', '/api/v1/me/totp/recovery-codes', { code: confirming });
    secrets.push(confirming, ...regenerated.recovery_codes);
    expected.push({ subject: /New Siteward recovery codes/ });
    t.clock.advance(30_000);
    const disabling = totp(secret, t.clock.now());
    await inject('DELETE', '/api/v1/me/totp', { code: disabling }, 204);
    secrets.push(disabling);
    expected.push({ subject: /Two-factor authentication is off/ });

    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:3000' });
    const { options } = await inject('POST', '/api/v1/me/passkeys/options');
    const { passkey } = await inject('POST', '/api/v1/me/passkeys', { name: 'Work laptop', response: authenticator.create(options) }, 201);
    expected.push({ subject: /passkey was added/, names: 'Work laptop' });
    await inject('DELETE', `/api/v1/me/passkeys/${passkey.id}`, undefined, 204);
    expected.push({ subject: /passkey was removed/, names: 'Work laptop' });

    await inject('POST', '/api/v1/me/reauthenticate', { password: STRONG_PASSWORD });
    const newPassword = 'quartz-meadow-lantern-97';
    await inject('POST', '/api/v1/me/password', { current_password: STRONG_PASSWORD, new_password: newPassword }, 204);
    secrets.push(newPassword);
    expected.push({ subject: /password was changed/ });

    await smtp.waitForMessages(start + expected.length);
    // Sent in the background, each handed over before its request answered: once the mailer is
    // idle a duplicate would have arrived, so "exactly once" means it.
    await t.mailer.idle();
    const notices = smtp.messages.slice(start).filter((message) => message.to.includes(user.email));
    assert.equal(notices.length, expected.length, notices.map((message) => message.subject).join(' | '));
    for (const { subject, names } of expected) {
      const matching = notices.filter((message: ReceivedMail) => subject.test(message.subject));
      assert.equal(matching.length, 1, `one notice for ${subject}`);
      const [notice] = matching;
      if (names !== undefined) assert.ok(notice?.text.includes(names), `${subject} names ${names}`);
    }
    for (const notice of notices) {
      for (const value of secrets) assert.ok(!notice.raw.includes(value), `"${notice.subject}" carries no secret`);
    }

    const logged = securityLines().filter((entry) => entry.user_id === user.id).map((entry) => entry.security_event);
    for (const type of ['access_token.created', 'access_token.revoked', 'totp.enabled', 'recovery_codes.regenerated', 'totp.disabled', 'passkey.added', 'passkey.removed', 'reauthenticated', 'password.changed']) {
      assert.equal(logged.filter((each) => each === type).length, 1, `${type} logged once`);
    }
    const logs = t.logs();
    for (const value of secrets) assert.ok(!logs.includes(value), 'no secret in the log');
  });
});
