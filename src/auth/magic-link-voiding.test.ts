import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, mailedMagicLink, sessionCookie, signUpConfirmed, STRONG_PASSWORD, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import type { TestSmtpServer } from '../../test/smtp.js';

const ORIGIN = 'http://localhost:3000';

let t: TestApp;
let smtp: TestSmtpServer;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());

async function mailedToken(email: string): Promise<string> {
  return (await mailedMagicLink(t.app, smtp, email)).searchParams.get('token') ?? '';
}

function redeem(token: string) {
  return t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN }, payload: { token } });
}

async function assertVoided(token: string): Promise<void> {
  const response = await redeem(token);
  assert.equal(response.statusCode, 410);
  assert.equal(sessionCookie(response.headers['set-cookie']), undefined, 'no session from a link mailed before');
}

async function assertRedeems(token: string): Promise<void> {
  const response = await redeem(token);
  assert.equal(response.statusCode, 303);
  assert.notEqual(sessionCookie(response.headers['set-cookie']), undefined);
}

describe('outstanding magic links end with the credentials they could replace', () => {
  test('a link mailed before a password change no longer signs in; one mailed after does', async () => {
    const user: SignedUpUser = await signUpConfirmed(t.app, smtp);
    const early = await mailedToken(user.email);
    const change = await t.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: { authorization: user.bearer },
      payload: { current_password: STRONG_PASSWORD, new_password: 'amber-lantern-quietly-97' },
    });
    assert.equal(change.statusCode, 204, change.body);
    await assertVoided(early);
    await assertRedeems(await mailedToken(user.email));
  });

  test('a link mailed before "sign out everywhere" no longer signs in; one mailed after does, and used links stay on record', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    await assertRedeems(await mailedToken(user.email));
    const early = await mailedToken(user.email);
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/api/v1/me/sessions', headers: { authorization: user.bearer } })).statusCode, 204);
    await assertVoided(early);
    // Only unused sign-in links go: the used link and the address confirmation stay on record.
    const kept = await t.database.db.selectFrom('one_time_tokens').select(['purpose', 'used_at']).where('user_id', '=', user.id).orderBy('purpose').execute();
    assert.deepEqual(kept.map((row) => [row.purpose, row.used_at !== null]), [['email_verification', true], ['magic_link', true]]);
    await assertRedeems(await mailedToken(user.email));
  });
});
