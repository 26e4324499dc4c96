import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, signUpConfirmed, type TestApp } from '../../test/helpers.js';
import { startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';

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
