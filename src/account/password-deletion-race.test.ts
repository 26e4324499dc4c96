import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, createUserAsOperator, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { type HttpClient, listenOnLoopback } from '../../test/http.js';
import { AUTH_ERRORS } from '../auth/errors.js';

/**
 * A password change and the account's deletion sent at the same moment, by the same signed-in
 * person (two tabs, or a script). Either the change lands first (204) and the deletion takes the
 * account with its new password, or the deletion does and the change answers that the credential
 * ended with the account (401). Nothing is half done, nothing is an error in the log. Over real
 * HTTP, the two requests fired together, a bounded number of times.
 */

const ROUNDS = 10;
const NEW_PASSWORD = 'tangerine-lighthouse-orbit-36';

let t: TestApp;
let http: HttpClient;
beforeEach(async () => {
  t = await buildTestApp();
  http = await listenOnLoopback(t);
});
afterEach(async () => {
  await t.close();
});

function logLines(): Array<Record<string, unknown>> {
  return t
    .logs()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('a password change racing the deletion of its account: 204 before it, 401 after it, never an error', async () => {
  const outcomes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const email = `race-${round}@example.com`;
    const { id } = await createUserAsOperator(t, email);
    // One web session for both: it is not ended by the password change, and is recent enough to delete.
    const session = await http.webSession(email);
    // Both in flight together; the deletion leaves a little later each round (0 to 9 ms), so that
    // across the rounds it lands before, during and after the change's password hashing.
    const change = http.request('POST', '/api/v1/me/password', { headers: session, json: { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD } });
    await new Promise((resolve) => setTimeout(resolve, round));
    const [changed, deleted] = await Promise.all([change, http.request('DELETE', '/api/v1/me', { headers: session })]);
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(await t.database.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst(), undefined, 'the account is gone');
    assert.ok(changed.status === 204 || changed.status === 401, `the change answered ${changed.status}: ${changed.text}`);
    if (changed.status === 401) assert.equal(changed.json<{ code: string }>().code, AUTH_ERRORS.SESSION_EXPIRED);
    outcomes.push(changed.status);
  }
  const errors = logLines().filter((line) => Number(line.level) >= 50);
  assert.deepEqual(errors.map((line) => line.msg), [], 'no error in the log');
  // A change that committed just before the deletion may find no account left to record its event
  // in: that is said as what it is, at info level.
  for (const line of logLines().filter((each) => String(each.msg).startsWith('security event not stored'))) {
    assert.deepEqual([line.level, line.msg, line.security_event], [30, 'security event not stored: the account was deleted meanwhile', 'password.changed']);
  }
  // Each change that lost the race is a 401 request line of the credential that ended, nothing more.
  const lost = logLines().filter((line) => line.msg === 'request' && line.url === '/api/v1/me/password' && line.status === 401);
  assert.equal(lost.length, outcomes.filter((status) => status === 401).length);
});
