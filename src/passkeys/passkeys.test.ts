import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createAccessToken, enableTotp, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { type AuthenticationResponse, type CreationOptions, type RegistrationResponse, type RequestOptions, SoftwareAuthenticator } from '../../test/software-authenticator.js';
import { AdminService } from '../admin/service.js';
import { sha256 } from '../lib/crypto.js';

const ORIGIN = 'http://localhost:3000';
const FIVE_MINUTES = 5 * 60 * 1000;

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

function registrationOptions(user: SignedUpUser) {
  return t.app.inject({ method: 'POST', url: '/api/v1/me/passkeys/options', headers: { authorization: user.bearer } });
}

async function creationOptions(user: SignedUpUser): Promise<CreationOptions & Record<string, unknown>> {
  const response = await registrationOptions(user);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().options;
}

function submitRegistration(user: SignedUpUser, response: RegistrationResponse, name?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/me/passkeys',
    headers: { authorization: user.bearer },
    payload: name === undefined ? { response } : { name, response },
  });
}

/** Registers a passkey on the authenticator for the user through the API; answers its id. */
async function addPasskey(user: SignedUpUser, authenticator: SoftwareAuthenticator, name?: string): Promise<string> {
  const created = await submitRegistration(user, authenticator.create(await creationOptions(user)), name);
  assert.equal(created.statusCode, 201, created.body);
  return created.json().passkey.id;
}

function signInOptions(headers: Record<string, string> = { origin: ORIGIN }, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/auth/passkey/options', remoteAddress, headers });
}

async function startSignIn(): Promise<{ options: RequestOptions & Record<string, unknown>; challengeId: string }> {
  const response = await signInOptions();
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  return { options: body.options, challengeId: body.challenge_id };
}

function verify(challengeId: string, response: AuthenticationResponse, headers: Record<string, string> = { origin: ORIGIN }, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/auth/passkey/verify', remoteAddress, headers, payload: { challenge_id: challengeId, response } });
}

/** A whole discoverable sign-in with the authenticator; answers the HTTP response. */
async function signInWith(authenticator: SoftwareAuthenticator, overrides: Parameters<SoftwareAuthenticator['get']>[1] = {}) {
  const { options, challengeId } = await startSignIn();
  return verify(challengeId, authenticator.get(options, overrides));
}

function sessionCookieOf(response: { headers: Record<string, unknown> }): string | undefined {
  const lines = [response.headers['set-cookie'] ?? []].flat() as string[];
  return lines.find((line) => line.startsWith('siteward_session='));
}

function assertRefused(response: { statusCode: number; body: string; json: () => { code: string } }, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.json().code, code, response.body);
}

describe('adding and managing passkeys', () => {
  test('registration options ask for a discoverable passkey with user verification, on PUBLIC_URL\'s host', async () => {
    const user = await signUp(t.app);
    const response = await registrationOptions(user);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const { options } = response.json();
    assert.deepEqual(options.rp, { name: 'Siteward', id: 'localhost' });
    assert.equal(options.user.name, user.email);
    assert.equal(Buffer.from(options.user.id, 'base64url').length, 16, 'the user handle is the user id, not the e-mail');
    assert.equal(options.authenticatorSelection.residentKey, 'required');
    assert.equal(options.authenticatorSelection.requireResidentKey, true);
    assert.equal(options.authenticatorSelection.userVerification, 'required');
    assert.equal(options.attestation, 'none');
    assert.deepEqual(options.excludeCredentials, []);
    assert.equal(options.timeout, FIVE_MINUTES);
    assert.equal(Buffer.from(options.challenge, 'base64url').length, 32, 'at least 16 random bytes');

    // The challenge is stored only as a hash, tagged with its ceremony and user, expiring in 5 minutes.
    const rows = await t.database.db.selectFrom('webauthn_challenges').selectAll().execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.challenge_hash, sha256(options.challenge));
    assert.equal(rows[0]?.ceremony, 'registration');
    assert.equal(rows[0]?.user_id, user.id);
    assert.equal(rows[0]?.expires_at, new Date(t.clock.now().getTime() + FIVE_MINUTES).toISOString());
  });

  test('a signed-in user adds a passkey and sees it listed, without its key', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const created = await submitRegistration(user, authenticator.create(await creationOptions(user)), 'Laptop');
    assert.equal(created.statusCode, 201, created.body);
    const { passkey } = created.json();
    assert.deepEqual(Object.keys(passkey).sort(), ['backed_up', 'created_at', 'device_type', 'id', 'last_used_at', 'name']);
    assert.equal(passkey.name, 'Laptop');
    assert.equal(passkey.device_type, 'single_device');
    assert.equal(passkey.backed_up, false);
    assert.equal(passkey.last_used_at, null);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json(), { passkeys: [passkey] });

    // Listed oldest first: ids are time-ordered, to the millisecond.
    t.clock.advance(1000);
    const second = await addPasskey(user, new SoftwareAuthenticator({ origin: ORIGIN }));
    const names = (await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } })).json().passkeys;
    assert.deepEqual(names.map((item: { id: string; name: string }) => [item.id, item.name]), [[passkey.id, 'Laptop'], [second, 'Passkey']]);
  });

  test('options exclude the passkeys the user already has', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const options = await creationOptions(user);
    const credentialId = authenticator.credentials[0]?.id.toString('base64url');
    assert.deepEqual(options.excludeCredentials, [{ id: credentialId, transports: ['internal'], type: 'public-key' }]);
  });

  test('the same credential cannot be registered twice', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const credential = authenticator.credentials[0] ?? assert.fail('no credential');
    const again = await submitRegistration(user, authenticator.attest(credential, await creationOptions(user)));
    assertRefused(again, 409, 'passkey_already_registered');
    const other = await signUp(t.app);
    const elsewhere = await submitRegistration(other, authenticator.attest(credential, await creationOptions(other)));
    assertRefused(elsewhere, 409, 'passkey_already_registered');
  });

  test('a passkey is renamed and removed; another user\'s passkey is 404', async () => {
    const owner = await signUp(t.app);
    const stranger = await signUp(t.app);
    const id = await addPasskey(owner, new SoftwareAuthenticator({ origin: ORIGIN }));

    const renamed = await t.app.inject({ method: 'PATCH', url: `/api/v1/me/passkeys/${id}`, headers: { authorization: owner.bearer }, payload: { name: '  YubiKey  ' } });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().passkey.name, 'YubiKey');
    const blank = await t.app.inject({ method: 'PATCH', url: `/api/v1/me/passkeys/${id}`, headers: { authorization: owner.bearer }, payload: { name: '   ' } });
    assertRefused(blank, 400, 'validation_failed');

    for (const request of [
      { method: 'PATCH', url: `/api/v1/me/passkeys/${id}`, payload: { name: 'Mine now' } },
      { method: 'DELETE', url: `/api/v1/me/passkeys/${id}` },
      { method: 'DELETE', url: '/api/v1/me/passkeys/0190d6a0-0000-7000-8000-000000000000' },
    ] as const) {
      const refused = await t.app.inject({ ...request, headers: { authorization: stranger.bearer } });
      assertRefused(refused, 404, 'passkey_not_found');
    }
    const strangerList = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: stranger.bearer } });
    assert.deepEqual(strangerList.json(), { passkeys: [] });

    const removed = await t.app.inject({ method: 'DELETE', url: `/api/v1/me/passkeys/${id}`, headers: { authorization: owner.bearer } });
    assert.equal(removed.statusCode, 204);
    const twice = await t.app.inject({ method: 'DELETE', url: `/api/v1/me/passkeys/${id}`, headers: { authorization: owner.bearer } });
    assertRefused(twice, 404, 'passkey_not_found');
  });

  test('a personal access token cannot manage passkeys', async () => {
    const user = await signUp(t.app);
    const token = await createAccessToken(t.app, user);
    for (const request of [
      { method: 'POST', url: '/api/v1/me/passkeys/options' },
      { method: 'GET', url: '/api/v1/me/passkeys' },
    ] as const) {
      const refused = await t.app.inject({ ...request, headers: { authorization: token.header } });
      assertRefused(refused, 403, 'access_token_not_allowed');
    }
  });

  test('a registration challenge is used once', async () => {
    const user = await signUp(t.app);
    const response = new SoftwareAuthenticator({ origin: ORIGIN }).create(await creationOptions(user));
    assert.equal((await submitRegistration(user, response)).statusCode, 201);
    assertRefused(await submitRegistration(user, response), 400, 'passkey_challenge_invalid');
  });

  test('a registration challenge expires after 5 minutes', async () => {
    const user = await signUp(t.app);
    const options = await creationOptions(user);
    t.clock.advance(FIVE_MINUTES);
    assertRefused(await submitRegistration(user, new SoftwareAuthenticator({ origin: ORIGIN }).create(options)), 400, 'passkey_challenge_invalid');
  });

  test('a registration challenge issued to one user cannot add a passkey to another', async () => {
    const alice = await signUp(t.app);
    const mallory = await signUp(t.app);
    const response = new SoftwareAuthenticator({ origin: ORIGIN }).create(await creationOptions(alice));
    assertRefused(await submitRegistration(mallory, response), 400, 'passkey_challenge_invalid');
  });

  test('a sign-in challenge cannot register a passkey (wrong ceremony)', async () => {
    const user = await signUp(t.app);
    const registration = await creationOptions(user);
    const { options } = await startSignIn();
    const response = new SoftwareAuthenticator({ origin: ORIGIN }).create({ ...registration, challenge: options.challenge });
    assertRefused(await submitRegistration(user, response), 400, 'passkey_challenge_invalid');
  });

  test('a registration made on a foreign origin, for another RP or without user verification is refused', async () => {
    const user = await signUp(t.app);
    const foreign = new SoftwareAuthenticator({ origin: 'https://evil.example' }).create(await creationOptions(user));
    const refused = await submitRegistration(user, foreign);
    assertRefused(refused, 400, 'passkey_verification_failed');
    assert.match(refused.json().detail, /origin/);

    const options = await creationOptions(user);
    const otherRp = await submitRegistration(user, new SoftwareAuthenticator({ origin: ORIGIN }).create({ ...options, rp: { id: 'evil.example' } }));
    assertRefused(otherRp, 400, 'passkey_verification_failed');
    assert.match(otherRp.json().detail, /RP ID/);

    const unverified = await submitRegistration(user, new SoftwareAuthenticator({ origin: ORIGIN }).create(await creationOptions(user), { userVerified: false }));
    assertRefused(unverified, 400, 'passkey_verification_failed');
    assert.match(unverified.json().detail, /User verification was required/);

    const assertionType = await submitRegistration(user, new SoftwareAuthenticator({ origin: ORIGIN }).create(await creationOptions(user), { type: 'webauthn.get' }));
    assertRefused(assertionType, 400, 'passkey_verification_failed');
    assert.match(assertionType.json().detail, /type/);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
    assert.deepEqual(list.json(), { passkeys: [] });
  });
});

describe('signing in with a passkey', () => {
  test('a passkey signs in without a user name: a full session, and no 2FA step even with TOTP on', async () => {
    const user = await signUp(t.app);
    await enableTotp(t, user);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const passkeyId = await addPasskey(user, authenticator);

    const { options, challengeId } = await startSignIn();
    assert.deepEqual(options.allowCredentials, [], 'discoverable: the browser offers what it holds');
    assert.equal(options.userVerification, 'required');
    assert.equal(options.rpId, 'localhost');
    assert.equal(Buffer.from(options.challenge, 'base64url').length, 32);
    const row = await t.database.db.selectFrom('webauthn_challenges').selectAll().where('id', '=', challengeId).executeTakeFirstOrThrow();
    assert.deepEqual([row.ceremony, row.user_id, row.challenge_hash], ['authentication', null, sha256(options.challenge)]);

    const response = await verify(challengeId, authenticator.get(options));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.json().user.id, user.id);
    assert.deepEqual(Object.keys(response.json()), ['user']);
    const cookie = sessionCookieOf(response) ?? assert.fail('no session cookie');
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\//);

    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: cookie.split(';')[0] ?? '' } });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().user.id, user.id);
    const sessions = await t.app.inject({ method: 'GET', url: '/api/v1/me/sessions', headers: { authorization: user.bearer } });
    assert.ok(sessions.json().sessions.every((session: { second_factor_pending: boolean }) => !session.second_factor_pending));

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
    assert.equal(list.json().passkeys[0].id, passkeyId);
    assert.equal(list.json().passkeys[0].last_used_at, t.clock.now().toISOString());
  });

  test('a sign-in challenge is used once: a replayed assertion is refused', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const { options, challengeId } = await startSignIn();
    const assertion = authenticator.get(options);
    assert.equal((await verify(challengeId, assertion)).statusCode, 200);

    const replayed = await verify(challengeId, assertion);
    assertRefused(replayed, 401, 'passkey_challenge_invalid');
    assert.ok(replayed.headers['www-authenticate']);
    assert.equal(sessionCookieOf(replayed), undefined);

    // Under a fresh challenge the old assertion signs the wrong challenge.
    const fresh = await startSignIn();
    const underFresh = await verify(fresh.challengeId, assertion);
    assertRefused(underFresh, 401, 'passkey_verification_failed');
    assert.equal(sessionCookieOf(underFresh), undefined);
  });

  test('of two concurrent verifications of one challenge, exactly one signs in', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, synced: true });
    await addPasskey(user, authenticator);
    const { options, challengeId } = await startSignIn();
    const assertion = authenticator.get(options);
    const results = await Promise.all([verify(challengeId, assertion), verify(challengeId, assertion), verify(challengeId, assertion)]);
    assert.deepEqual(results.map((result) => result.statusCode).sort(), [200, 401, 401]);
  });

  test('a sign-in challenge expires after 5 minutes', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const { options, challengeId } = await startSignIn();
    t.clock.advance(FIVE_MINUTES - 1);
    const justInTime = await startSignIn();
    t.clock.advance(1);
    assertRefused(await verify(challengeId, authenticator.get(options)), 401, 'passkey_challenge_invalid');
    // One made later is still good.
    assert.equal((await verify(justInTime.challengeId, authenticator.get(justInTime.options))).statusCode, 200);
  });

  test('a registration challenge cannot sign in (wrong ceremony)', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const registration = await creationOptions(user);
    const row = await t.database.db.selectFrom('webauthn_challenges').select('id').where('challenge_hash', '=', sha256(registration.challenge)).executeTakeFirstOrThrow();
    const assertion = authenticator.get({ challenge: registration.challenge, rpId: 'localhost' });
    assertRefused(await verify(row.id, assertion), 401, 'passkey_challenge_invalid');
  });

  test('an assertion made on a foreign origin is refused', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const refused = await signInWith(authenticator, { origin: 'https://siteward.evil.example' });
    assertRefused(refused, 401, 'passkey_verification_failed');
    assert.match(refused.json().detail, /origin/);
    assert.equal(sessionCookieOf(refused), undefined);
  });

  test('an unknown or removed credential is refused', async () => {
    const user = await signUp(t.app);
    const stranger = new SoftwareAuthenticator({ origin: ORIGIN });
    stranger.create({ challenge: 'AAAA', rp: { id: 'localhost' }, user: { id: 'AAAA' } });
    assertRefused(await signInWith(stranger), 401, 'passkey_unknown_credential');

    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await addPasskey(user, authenticator);
    assert.equal((await signInWith(authenticator)).statusCode, 200);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/me/passkeys/${id}`, headers: { authorization: user.bearer } });
    assertRefused(await signInWith(authenticator), 401, 'passkey_unknown_credential');
  });

  test('a disabled account\'s passkey is refused once verified, with no session and no success recorded; enabled, it signs in again', async () => {
    const admin = await signUp(t.app);
    await new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).promote(admin.email);
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    assert.equal((await t.app.inject({ method: 'POST', url: `/api/v1/admin/users/${user.id}/disable`, headers: { authorization: admin.bearer } })).statusCode, 200);

    const refused = await signInWith(authenticator);
    assertRefused(refused, 403, 'account_disabled');
    assert.equal(sessionCookieOf(refused), undefined);
    // An assertion that fails its checks says only that: "disabled" is told once the passkey was verified.
    assertRefused(await signInWith(authenticator, { userVerified: false }), 401, 'passkey_verification_failed');
    const lines = t.logs().split('\n').filter((line) => line.includes(user.id) && line.includes('"method":"passkey"'));
    assert.equal(lines.filter((line) => line.includes('"security_event":"sign_in.refused"') && line.includes('"reason":"account_disabled"')).length, 1);
    assert.equal(lines.filter((line) => line.includes('"security_event":"sign_in.succeeded"')).length, 0);

    assert.equal((await t.app.inject({ method: 'POST', url: `/api/v1/admin/users/${user.id}/enable`, headers: { authorization: admin.bearer } })).statusCode, 200);
    const again = await signInWith(authenticator);
    assert.equal(again.statusCode, 200, again.body);
    assert.ok(sessionCookieOf(again) !== undefined);
  });

  test('a forged signature, a missing user verification or a foreign user handle is refused', async () => {
    const user = await signUp(t.app);
    const other = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);

    const { options, challengeId } = await startSignIn();
    const assertion = authenticator.get(options);
    const signature = Buffer.from(assertion.response.signature, 'base64url');
    signature[signature.length - 1] = (signature[signature.length - 1] ?? 0) ^ 0x01;
    const forged = { ...assertion, response: { ...assertion.response, signature: signature.toString('base64url') } };
    const badSignature = await verify(challengeId, forged);
    assertRefused(badSignature, 401, 'passkey_verification_failed');
    assert.match(badSignature.json().detail, /signature/);

    const unverified = await signInWith(authenticator, { userVerified: false });
    assertRefused(unverified, 401, 'passkey_verification_failed');
    assert.match(unverified.json().detail, /User verification required/);

    const handle = Buffer.from(other.id.replace(/-/g, ''), 'hex');
    const foreignHandle = await signInWith(authenticator, { userHandle: handle });
    assertRefused(foreignHandle, 401, 'passkey_verification_failed');
    assert.match(foreignHandle.json().detail, /user handle/);

    const wrongType = await signInWith(authenticator, { type: 'webauthn.create' });
    assertRefused(wrongType, 401, 'passkey_verification_failed');
    assert.match(wrongType.json().detail, /type/);
  });

  test('synced passkeys, whose counter is always 0, sign in again and again', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, synced: true });
    const created = await submitRegistration(user, authenticator.create(await creationOptions(user)));
    assert.equal(created.json().passkey.device_type, 'multi_device');
    assert.equal(created.json().passkey.backed_up, true);
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await signInWith(authenticator);
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.equal(authenticator.credentials[0]?.counter, 0);
  });

  test('a device-bound passkey whose counter does not go up is refused as a possible clone', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    assert.equal((await signInWith(authenticator, { counter: 5 })).statusCode, 200);

    const same = await signInWith(authenticator, { counter: 5 });
    assertRefused(same, 401, 'passkey_counter_not_increased');
    assert.equal(sessionCookieOf(same), undefined);
    assertRefused(await signInWith(authenticator, { counter: 3 }), 401, 'passkey_counter_not_increased');
    assertRefused(await signInWith(authenticator, { counter: 0 }), 401, 'passkey_counter_not_increased');

    assert.equal((await signInWith(authenticator, { counter: 6 })).statusCode, 200);
    const stored = await t.database.db.selectFrom('passkeys').select('counter').executeTakeFirstOrThrow();
    assert.equal(Number(stored.counter), 6);
  });

  test('both passkey sign-in steps take requests from Siteward\'s own pages only (login CSRF)', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    assertRefused(await signInOptions({}), 403, 'cross_site_request');
    assertRefused(await signInOptions({ origin: 'https://evil.example' }), 403, 'cross_site_request');
    assert.equal((await signInOptions({ 'sec-fetch-site': 'same-origin' })).statusCode, 200);

    const { options, challengeId } = await startSignIn();
    const assertion = authenticator.get(options);
    assertRefused(await verify(challengeId, assertion, { origin: 'https://evil.example' }), 403, 'cross_site_request');
    assert.equal((await verify(challengeId, assertion)).statusCode, 200, 'the refused request did not use up the challenge');
  });

  test('failed passkey sign-ins are limited per client address; successes do not count', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, synced: true });
    await addPasskey(user, authenticator);
    const attacker = '203.0.113.9';

    // A success from the same address gives its attempt back.
    const good = await startSignIn();
    assert.equal((await verify(good.challengeId, authenticator.get(good.options), { origin: ORIGIN }, attacker)).statusCode, 200);

    const { options } = await startSignIn();
    const assertion = authenticator.get(options);
    for (let attempt = 0; attempt < 50; attempt++) {
      const failed = await verify('00000000-0000-7000-8000-000000000000', assertion, { origin: ORIGIN }, attacker);
      assert.equal(failed.statusCode, 401);
    }
    const limited = await verify('00000000-0000-7000-8000-000000000000', assertion, { origin: ORIGIN }, attacker);
    assertRefused(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);

    // Even a right sign-in from that address waits; another address is not affected.
    const locked = await startSignIn();
    assertRefused(await verify(locked.challengeId, authenticator.get(locked.options), { origin: ORIGIN }, attacker), 429, 'rate_limited');
    const elsewhere = await startSignIn();
    assert.equal((await verify(elsewhere.challengeId, authenticator.get(elsewhere.options), { origin: ORIGIN }, '198.51.100.7')).statusCode, 200);

    t.clock.advance(15 * 60 * 1000);
    const later = await startSignIn();
    assert.equal((await verify(later.challengeId, authenticator.get(later.options), { origin: ORIGIN }, attacker)).statusCode, 200);
  });

  test('malformed sign-in bodies are refused by name', async () => {
    const { challengeId } = await startSignIn();
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/passkey/verify',
      headers: { origin: ORIGIN },
      payload: { challenge_id: challengeId, response: { id: 'a b', rawId: 'a b', type: 'public-key', response: {} } },
    });
    assertRefused(response, 400, 'validation_failed');
    const paths = response.json().errors.map((error: { path: string }) => error.path);
    assert.ok(paths.includes('/response/id'), paths.join());
    assert.ok(paths.includes('/response/response/signature'), paths.join());
  });
});
