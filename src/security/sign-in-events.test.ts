import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, createAccessToken, enableTotp, sessionCookie, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { totp } from '../../test/rfc6238.js';
import { type CreationOptions, type RequestOptions, SoftwareAuthenticator } from '../../test/software-authenticator.js';

const ORIGIN = 'http://localhost:3000';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

type Line = Record<string, unknown>;

function lines(): Line[] {
  return t
    .logs()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

function events(type: string): Line[] {
  return lines().filter((line) => line.security_event === type);
}

/** The one event of the type logged since `before` (a count of lines), with the fields a reader needs. */
function onlyEvent(type: string, before: number): Line {
  const found = lines()
    .slice(before)
    .filter((line) => line.security_event === type);
  assert.equal(found.length, 1, `one ${type} line`);
  return found[0] ?? assert.fail();
}

function assertNotLogged(...secrets: string[]): void {
  const logs = t.logs();
  for (const secret of secrets) assert.ok(!logs.includes(secret), `${secret.slice(0, 6)}… is not in the log`);
}

function login(email: string, password: string, otp?: string) {
  return t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password, ...(otp === undefined ? {} : { otp }) } });
}

function webSignIn(email: string, password: string) {
  return t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email, password } });
}

test('a password sign-in is logged as sign_in.succeeded with method password and the credential it made, with no secret', async () => {
  const user = await signUp(t.app);
  let before = lines().length;
  const api = await login(user.email, STRONG_PASSWORD);
  assert.equal(api.statusCode, 200);
  const viaApi = onlyEvent('sign_in.succeeded', before);
  assert.equal(viaApi.user_id, user.id);
  assert.equal(viaApi.method, 'password');
  assert.equal(viaApi.credential, 'jwt');
  assert.equal(viaApi.outcome, 'success');
  assert.equal(viaApi.ip, '127.0.0.1');

  before = lines().length;
  const web = await webSignIn(user.email, STRONG_PASSWORD);
  assert.equal(web.statusCode, 200);
  const viaWeb = onlyEvent('sign_in.succeeded', before);
  assert.equal(viaWeb.method, 'password');
  assert.equal(viaWeb.credential, 'session');
  // The event and its request share the request id, so one can be found from the other.
  const requestLine = lines().find((line) => line.msg === 'request' && line.url === '/auth/session');
  assert.equal(requestLine?.reqId, viaWeb.reqId);
  assertNotLogged(STRONG_PASSWORD, api.json<{ token: string }>().token, sessionCookie(web.headers['set-cookie'])?.value ?? assert.fail());
});

test('a wrong password is sign_in.failed (invalid_credentials) naming the account if there is one; over the limit, sign_in.refused (rate_limited)', async () => {
  const user = await signUp(t.app);
  const before = lines().length;
  for (let i = 0; i < 10; i++) assert.equal((await login(user.email, `wrong-guess-${i}`)).statusCode, 401);
  assert.equal((await login('nobody-at-all@example.com', 'wrong-guess-unknown')).statusCode, 401);
  assert.equal((await webSignIn(user.email, STRONG_PASSWORD)).statusCode, 429);

  const failed = lines()
    .slice(before)
    .filter((line) => line.security_event === 'sign_in.failed');
  assert.equal(failed.length, 11);
  for (const line of failed) {
    assert.equal(line.reason, 'invalid_credentials');
    assert.equal(line.method, 'password');
    assert.equal(line.outcome, 'failure');
  }
  assert.equal(failed.filter((line) => line.user_id === user.id).length, 10);
  assert.equal(failed.filter((line) => line.user_id === null).length, 1, 'an unknown address names no account');
  const refused = onlyEvent('sign_in.refused', before);
  assert.equal(refused.reason, 'rate_limited');
  assert.equal(refused.user_id, user.id);
  assert.equal(events('sign_in.succeeded').length, 0);
  assertNotLogged('wrong-guess-', STRONG_PASSWORD);
});

test('a sign-in finished with a TOTP or a recovery code names that method; a wrong code is sign_in.failed (otp_invalid); no code is logged', async () => {
  const user = await signUp(t.app);
  const { secret, recoveryCodes } = await enableTotp(t, user);
  const recoveryCode = recoveryCodes[0] ?? assert.fail();

  let before = lines().length;
  assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 401);
  assert.equal(onlyEvent('sign_in.failed', before).reason, 'otp_required');

  before = lines().length;
  assert.equal((await login(user.email, STRONG_PASSWORD, '000000')).statusCode, 401);
  const wrong = onlyEvent('sign_in.failed', before);
  assert.equal(wrong.reason, 'otp_invalid');
  assert.equal(wrong.user_id, user.id);

  before = lines().length;
  const code = totp(secret, t.clock.now());
  assert.equal((await login(user.email, STRONG_PASSWORD, code)).statusCode, 200);
  assert.equal(onlyEvent('sign_in.succeeded', before).method, 'totp');

  before = lines().length;
  assert.equal((await login(user.email, STRONG_PASSWORD, recoveryCode)).statusCode, 200);
  assert.equal(onlyEvent('sign_in.succeeded', before).method, 'recovery_code');

  // The web: the password alone leaves the sign-in pending (no event yet); the 2FA step finishes it.
  t.clock.advance(30_000);
  before = lines().length;
  const pending = await webSignIn(user.email, STRONG_PASSWORD);
  assert.equal(pending.json<{ second_factor_required: boolean }>().second_factor_required, true);
  assert.equal(events('sign_in.succeeded').length, 2);
  const cookie = sessionCookie(pending.headers['set-cookie'])?.header ?? assert.fail();
  const stepCode = totp(secret, t.clock.now());
  const step = await t.app.inject({ method: 'POST', url: '/auth/2fa', headers: { origin: ORIGIN, cookie }, payload: { code: stepCode } });
  assert.equal(step.statusCode, 200, step.body);
  const viaStep = onlyEvent('sign_in.succeeded', before);
  assert.equal(viaStep.method, 'totp');
  assert.equal(viaStep.credential, 'session');
  assertNotLogged(secret, code, recoveryCode, stepCode, STRONG_PASSWORD);
});

test('a passkey sign-in is sign_in.succeeded with method passkey; a replayed response is sign_in.failed (passkey_invalid)', async () => {
  const user = await signUp(t.app);
  const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
  const registration = await t.app.inject({ method: 'POST', url: '/api/v1/me/passkeys/options', headers: { authorization: user.bearer } });
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/me/passkeys',
    headers: { authorization: user.bearer },
    payload: { response: authenticator.create(registration.json<{ options: CreationOptions }>().options) },
  });
  assert.equal(created.statusCode, 201, created.body);

  const options = await t.app.inject({ method: 'POST', url: '/auth/passkey/options', headers: { origin: ORIGIN } });
  const { options: requestOptions, challenge_id: challengeId } = options.json<{ options: RequestOptions; challenge_id: string }>();
  const response = authenticator.get(requestOptions);
  let before = lines().length;
  const verified = await t.app.inject({ method: 'POST', url: '/auth/passkey/verify', headers: { origin: ORIGIN }, payload: { challenge_id: challengeId, response } });
  assert.equal(verified.statusCode, 200, verified.body);
  const succeeded = onlyEvent('sign_in.succeeded', before);
  assert.equal(succeeded.method, 'passkey');
  assert.equal(succeeded.user_id, user.id);
  assert.equal(succeeded.credential, 'session');

  before = lines().length;
  const replay = await t.app.inject({ method: 'POST', url: '/auth/passkey/verify', headers: { origin: ORIGIN }, payload: { challenge_id: challengeId, response } });
  assert.equal(replay.statusCode, 401);
  const failed = onlyEvent('sign_in.failed', before);
  assert.equal(failed.reason, 'passkey_invalid');
  assert.equal(failed.method, 'passkey');
  assert.deepEqual(failed.details, { code: 'passkey_challenge_invalid' });
  assertNotLogged(response.response.signature);
});

test('the request line names the user and the kind of credential (session, jwt, access_token), and no one for an anonymous request', async () => {
  const user = await signUp(t.app);
  const token = await createAccessToken(t.app, user);
  const web = await webSignIn(user.email, STRONG_PASSWORD);
  const cookie = sessionCookie(web.headers['set-cookie']) ?? assert.fail();
  const before = lines().length;
  for (const headers of [{ cookie: cookie.header }, { authorization: user.bearer }, { authorization: token.header }, {}]) {
    await t.app.inject({ method: 'GET', url: '/api/v1/me', headers });
  }
  const requestLines = lines()
    .slice(before)
    .filter((line) => line.msg === 'request' || line.msg === 'request failed');
  assert.deepEqual(
    requestLines.map((line) => [line.status, line.user_id, line.credential]),
    [
      [200, user.id, 'session'],
      [200, user.id, 'jwt'],
      [200, user.id, 'access_token'],
      [401, undefined, undefined],
    ],
  );
  assertNotLogged(cookie.value, user.jwt, token.token);
});
