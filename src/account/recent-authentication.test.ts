import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { createSigner } from 'fast-jwt';
import { sql } from 'kysely';
import {
  buildTestApp,
  buildTestAppWithMail,
  mailedMagicLink,
  createAccessToken,
  createPostgresDatabase,
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
import { type AuthenticationResponse, type RequestOptions, SoftwareAuthenticator } from '../../test/software-authenticator.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { openDatabase } from '../db/connect.js';
import { migrateTo, migrateToLatest } from '../db/migrate.js';

const ORIGIN = 'http://localhost:3000';
const WINDOW_MS = 600 * 1000;
const NEW_PASSWORD = 'quartz-meadow-lantern-97';

let smtp: TestSmtpServer;
let t: TestApp;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());

type Headers = Record<string, string>;

/** A web sign-in by password; answers the headers that send its cookie on a write. */
async function webSession(email: string): Promise<Headers> {
  const response = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email, password: STRONG_PASSWORD } });
  const cookie = sessionCookie(response.headers['set-cookie']) ?? assert.fail(`no session cookie: ${response.statusCode} ${response.body}`);
  return { cookie: cookie.header, origin: ORIGIN };
}

function send(method: 'GET' | 'POST' | 'DELETE', url: string, headers: Headers, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

function createToken(headers: Headers, name = 'deploy') {
  return send('POST', '/api/v1/access-tokens', headers, { name });
}

/** Re-authenticates; like a browser's cookie jar, a session's headers take the new cookie it is given. */
async function reauthenticate(headers: Headers, payload: Record<string, unknown>) {
  const response = await send('POST', '/api/v1/me/reauthenticate', headers, payload);
  const renewed = sessionCookie(response.headers['set-cookie']);
  if (renewed !== undefined && headers.cookie !== undefined) headers.cookie = renewed.header;
  return response;
}

async function recentUntil(headers: Headers): Promise<string | null> {
  const response = await send('GET', '/api/v1/me', headers);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ recent_authentication_until: string | null }>().recent_authentication_until;
}

function assertProblem(response: { statusCode: number; body: string; json: () => { code: string } }, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.json().code, code, response.body);
}

/** Every change that could hand the account to whoever holds a stolen session or JWT. */
const GUARDED: Array<{ method: 'POST' | 'DELETE'; url: string; payload?: Record<string, unknown> }> = [
  { method: 'POST', url: '/api/v1/access-tokens', payload: { name: 'persistence' } },
  { method: 'POST', url: '/api/v1/me/passkeys/options' },
  { method: 'POST', url: '/api/v1/me/passkeys', payload: { response: {} } },
  { method: 'DELETE', url: '/api/v1/me/passkeys/0190c0de-0000-7000-8000-000000000000' },
  { method: 'POST', url: '/api/v1/me/totp/setup' },
  { method: 'POST', url: '/api/v1/me/totp/enable', payload: { code: '123456' } },
  { method: 'DELETE', url: '/api/v1/me/totp', payload: { code: '123456' } },
  { method: 'POST', url: '/api/v1/me/totp/recovery-codes', payload: { code: '123456' } },
];

describe('changes that need a recent authentication', () => {
  test('answer 403 reauthentication_required once the sign-in is older than REAUTH_WINDOW_SECONDS, for a session and a JWT alike', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    t.clock.advance(WINDOW_MS - 1000);
    assert.equal((await createToken({ authorization: user.bearer })).statusCode, 201, 'still recent a second before the end');
    t.clock.advance(1000);
    for (const credential of [{ authorization: user.bearer }, session]) {
      for (const route of GUARDED) {
        const response = await send(route.method, route.url, credential, route.payload);
        assertProblem(response, 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
        assert.match(response.json<{ detail: string }>().detail, /POST \/api\/v1\/me\/reauthenticate/);
      }
    }
    // What takes nothing away from the owner stays open.
    assert.equal((await send('GET', '/api/v1/access-tokens', session)).statusCode, 200);
    assert.equal((await send('GET', '/api/v1/me/passkeys', session)).statusCode, 200);
  });

  test('a personal access token can neither make them nor re-authenticate', async () => {
    const user = await signUp(t.app);
    const token = await createAccessToken(t.app, user);
    const headers = { authorization: token.header };
    assertProblem(await createToken(headers), 403, 'access_token_not_allowed');
    assertProblem(await reauthenticate(headers, { password: STRONG_PASSWORD }), 403, 'access_token_not_allowed');
    assert.equal(await recentUntil(headers), null);
  });

  test('a different window is read from REAUTH_WINDOW_SECONDS', async () => {
    const short = await buildTestApp({ env: { REAUTH_WINDOW_SECONDS: '60' } });
    try {
      const user = await signUp(short.app);
      short.clock.advance(60_000);
      const response = await short.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: user.bearer }, payload: { name: 'late' } });
      assertProblem(response, 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    } finally {
      await short.close();
    }
  });
});

describe('POST /api/v1/me/reauthenticate', () => {
  test('the password renews a web session under a new cookie value (the old one ends), and GET /api/v1/me says until when', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    assert.equal(await recentUntil(session), new Date(t.clock.now().getTime() + WINDOW_MS).toISOString());
    t.clock.advance(WINDOW_MS + 60_000);
    assert.equal(await recentUntil(session), null);
    assertProblem(await createToken(session), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);

    const before = { ...session };
    const response = await reauthenticate(session, { password: STRONG_PASSWORD });
    assert.equal(response.statusCode, 200, response.body);
    const until = new Date(t.clock.now().getTime() + WINDOW_MS).toISOString();
    assert.deepEqual(response.json(), { recent_authentication_until: until });
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.ok(sessionCookie(response.headers['set-cookie']) !== undefined, 'a new session cookie');
    assert.notEqual(session.cookie, before.cookie, 'a new cookie value, as at any sign-in');
    // A copy of the cookie taken before the proof holds nothing any more.
    assert.equal((await send('GET', '/api/v1/me', before)).statusCode, 401);
    assert.equal(await recentUntil(session), until);
    assert.equal((await createToken(session)).statusCode, 201);

    const line = t
      .logs()
      .split('\n')
      .find((entry) => entry.includes('"security_event":"reauthenticated"'));
    assert.ok(line, 'the re-authentication is logged');
    assert.match(line, /"method":"password"/);
    assert.ok(!t.logs().includes(STRONG_PASSWORD), 'never the password');
  });

  test('a JWT caller gets a fresh JWT that carries the new time; the one it sent stays valid but not recent', async () => {
    const user = await signUp(t.app);
    t.clock.advance(WINDOW_MS);
    const response = await reauthenticate({ authorization: user.bearer }, { password: STRONG_PASSWORD });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<{ token: string; token_type: string; expires_at: string; recent_authentication_until: string }>();
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_at, new Date(t.clock.now().getTime() + 7 * 24 * 3600 * 1000).toISOString());
    const claims = JSON.parse(Buffer.from(body.token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { auth_time: number };
    assert.equal(claims.auth_time, t.clock.now().getTime() / 1000);

    assert.equal((await createToken({ authorization: `Bearer ${body.token}` })).statusCode, 201);
    assertProblem(await createToken({ authorization: user.bearer }), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assert.equal((await send('GET', '/api/v1/me', { authorization: user.bearer })).statusCode, 200);
  });

  test('a wrong password is 403 password_invalid and uses up the account\'s sign-in failures; a right one gives its attempt back', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    for (let attempt = 0; attempt < 9; attempt++) {
      assertProblem(await reauthenticate(session, { password: `wrong-guess-${attempt}` }), 403, 'password_invalid');
    }
    assert.equal((await reauthenticate(session, { password: STRONG_PASSWORD })).statusCode, 200, 'the right one is not counted');
    assertProblem(await reauthenticate(session, { password: 'wrong-guess-9' }), 403, 'password_invalid');
    // Ten failures: sign-in is closed for the account, and so is this.
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } });
    assertProblem(login, 429, 'rate_limited');
    assertProblem(await reauthenticate(session, { password: STRONG_PASSWORD }), 429, 'rate_limited');
  });

  test('with 2FA on, the password needs a code: none is otp_required, a wrong one otp_invalid; a TOTP or recovery code passes', async () => {
    const user = await signUp(t.app);
    const { secret, recoveryCodes } = await enableTotp(t, user);
    const headers = { authorization: user.bearer };
    assertProblem(await reauthenticate(headers, { password: STRONG_PASSWORD }), 403, 'otp_required');
    assertProblem(await reauthenticate(headers, { password: STRONG_PASSWORD, otp: totp(secret, t.clock.now(), 5) }), 403, 'otp_invalid');
    assertProblem(await reauthenticate(headers, { password: 'not-the-password', otp: totp(secret, t.clock.now()) }), 403, 'password_invalid');
    assert.equal((await reauthenticate(headers, { password: STRONG_PASSWORD, otp: totp(secret, t.clock.now()) })).statusCode, 200);
    assert.equal((await reauthenticate(headers, { password: STRONG_PASSWORD, otp: recoveryCodes[0] ?? '' })).statusCode, 200);
    // The account's own history says which second factor each confirmation used.
    const events = await t.app.inject({ method: 'GET', url: '/api/v1/me/security-events', headers });
    const methods = events
      .json<{ events: Array<{ type: string; method: string | null }> }>()
      .events.filter((event) => event.type === 'reauthenticated')
      .map((event) => event.method);
    assert.deepEqual(methods, ['recovery_code', 'totp']);
  });

  test('a body with both proofs, or neither, is 400', async () => {
    const user = await signUp(t.app);
    assertProblem(await reauthenticate({ authorization: user.bearer }, {}), 400, 'validation_failed');
    const both = { password: STRONG_PASSWORD, passkey: { challenge_id: 'x', response: { id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: '', authenticatorData: '', signature: '' } } } };
    assertProblem(await reauthenticate({ authorization: user.bearer }, both), 400, 'validation_failed');
  });
});

describe('re-authenticating with a passkey', () => {
  async function addPasskey(user: SignedUpUser, authenticator: SoftwareAuthenticator): Promise<void> {
    const options = await send('POST', '/api/v1/me/passkeys/options', { authorization: user.bearer });
    assert.equal(options.statusCode, 200, options.body);
    const created = await send('POST', '/api/v1/me/passkeys', { authorization: user.bearer }, { name: 'Laptop', response: authenticator.create(options.json().options) });
    assert.equal(created.statusCode, 201, created.body);
  }

  async function passkeyOptions(headers: Headers): Promise<{ options: RequestOptions & { allowCredentials: Array<{ id: string }> }; challengeId: string }> {
    const response = await send('POST', '/api/v1/me/reauthenticate/passkey-options', headers);
    assert.equal(response.statusCode, 200, response.body);
    return { options: response.json().options, challengeId: response.json().challenge_id };
  }

  function withPasskey(headers: Headers, challengeId: string, response: AuthenticationResponse) {
    return reauthenticate(headers, { passkey: { challenge_id: challengeId, response } });
  }

  test('a challenge issued to the signed-in user, answered by their own passkey, renews it once', async () => {
    const user = await signUp(t.app);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(user, authenticator);
    const session = await webSession(user.email);
    t.clock.advance(WINDOW_MS);

    const { options, challengeId } = await passkeyOptions(session);
    assert.deepEqual(
      options.allowCredentials.map((credential) => credential.id),
      authenticator.credentials.map((credential) => credential.id.toString('base64url')),
      'only the account\'s passkeys are offered',
    );
    const rows = await t.database.db.selectFrom('webauthn_challenges').select(['ceremony', 'user_id']).where('id', '=', challengeId).execute();
    assert.deepEqual(rows, [{ ceremony: 'reauthentication', user_id: user.id }]);

    const response = authenticator.get(options);
    const done = await withPasskey(session, challengeId, response);
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await createToken(session)).statusCode, 201);
    assertProblem(await withPasskey(session, challengeId, authenticator.get(options)), 403, 'passkey_challenge_invalid');
  });

  test('another user\'s challenge or passkey, or a sign-in challenge, does not count', async () => {
    const owner = await signUp(t.app);
    const other = await signUp(t.app);
    const ownerKey = new SoftwareAuthenticator({ origin: ORIGIN });
    const otherKey = new SoftwareAuthenticator({ origin: ORIGIN });
    await addPasskey(owner, ownerKey);
    await addPasskey(other, otherKey);
    const headers = { authorization: owner.bearer };

    // A challenge issued to someone else.
    const theirs = await passkeyOptions({ authorization: other.bearer });
    assertProblem(await withPasskey(headers, theirs.challengeId, ownerKey.get(theirs.options)), 403, 'passkey_challenge_invalid');
    // The owner's challenge, answered by another account's passkey.
    const mine = await passkeyOptions(headers);
    assertProblem(await withPasskey(headers, mine.challengeId, otherKey.get(mine.options)), 403, 'passkey_unknown_credential');
    // A challenge of the sign-in ceremony.
    const signIn = await t.app.inject({ method: 'POST', url: '/auth/passkey/options', headers: { origin: ORIGIN } });
    const signInBody = signIn.json<{ options: RequestOptions; challenge_id: string }>();
    assertProblem(await withPasskey(headers, signInBody.challenge_id, ownerKey.get(signInBody.options)), 403, 'passkey_challenge_invalid');
    // A wrong origin fails the signature check, as 403: the caller is still signed in.
    const again = await passkeyOptions(headers);
    assertProblem(await withPasskey(headers, again.challengeId, ownerKey.get(again.options, { origin: 'https://evil.example' })), 403, 'passkey_verification_failed');
  });

  test('an account without passkeys is told to use its password', async () => {
    const user = await signUp(t.app);
    assertProblem(await send('POST', '/api/v1/me/reauthenticate/passkey-options', { authorization: user.bearer }), 409, 'no_passkeys');
  });
});

describe('changing the password with a recent authentication', () => {
  function changePassword(headers: Headers, body: Record<string, unknown>) {
    return send('POST', '/api/v1/me/password', headers, body);
  }

  function login(email: string, password: string) {
    return t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
  }

  test('within the window the current password may be left out; outside it that is 403 reauthentication_required, and a given one is checked', async () => {
    const user = await signUp(t.app);
    const session = await webSession(user.email);
    t.clock.advance(WINDOW_MS);
    assertProblem(await changePassword(session, { new_password: NEW_PASSWORD }), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    assertProblem(await changePassword(session, { current_password: 'not-it-at-all', new_password: NEW_PASSWORD }), 403, 'current_password_invalid');
    assert.equal((await changePassword(session, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD })).statusCode, 204);

    assert.equal((await reauthenticate(session, { password: NEW_PASSWORD })).statusCode, 200);
    assert.equal((await changePassword(session, { new_password: STRONG_PASSWORD })).statusCode, 204);
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 200);
  });

  test('forgot password: sign in by e-mail link, set a new password without the old one, sign in with it', async () => {
    // Confirmed, as the owner's own account would be: an unconfirmed one stops at the claim first.
    const user = await signUpConfirmed(t.app, smtp);
    const token = (await mailedMagicLink(t.app, smtp, user.email)).searchParams.get('token') ?? '';
    const redeemed = await t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN }, payload: { token } });
    assert.equal(redeemed.statusCode, 303, redeemed.body);
    const cookie = sessionCookie(redeemed.headers['set-cookie']) ?? assert.fail('no session from the link');

    const changed = await changePassword({ cookie: cookie.header, origin: ORIGIN }, { new_password: NEW_PASSWORD });
    assert.equal(changed.statusCode, 204, changed.body);
    assert.equal((await login(user.email, NEW_PASSWORD)).statusCode, 200);
    assert.equal((await login(user.email, STRONG_PASSWORD)).statusCode, 401);
  });
});

describe('the authentication time JWTs and sessions carry', () => {
  function signJwt(claims: Record<string, unknown>): string {
    return createSigner({ key: Buffer.from(t.config.jwtSecret, 'utf8'), algorithm: 'HS256' })(claims);
  }

  test('a JWT from before auth_time existed counts from its iat; one whose auth_time is later than its iat is refused', async () => {
    const user = await signUp(t.app);
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    const base = { sub: user.id, gen: 0, iat, exp: iat + 3600, iss: t.config.publicOrigin, aud: t.config.publicOrigin, jti: 'legacy' };
    const legacy = { authorization: `Bearer ${signJwt(base)}` };
    assert.equal((await createToken(legacy, 'legacy')).statusCode, 201);
    t.clock.advance(WINDOW_MS);
    assertProblem(await createToken(legacy, 'legacy late'), 403, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);

    const forged = { authorization: `Bearer ${signJwt({ ...base, jti: 'future', auth_time: iat + WINDOW_MS / 1000 })}` };
    assertProblem(await send('GET', '/api/v1/me', forged), 401, 'invalid_token');
  });

  test('sessions from before migration 006 count from their creation', async () => {
    const adminUrl = process.env.TEST_DATABASE_URL ?? '';
    const dir = mkdtempSync(path.join(tmpdir(), 'siteward-migration-'));
    const postgres = adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
    const database = openDatabase(postgres === undefined ? { kind: 'sqlite', file: path.join(dir, 'old.db') } : { kind: 'postgres', url: postgres.url, poolSize: 2 });
    try {
      const { db } = database;
      await migrateTo(db, '004-passkeys');
      const at = '2025-12-01T08:00:00.000Z';
      await db.insertInto('users').values({ id: 'u1', email: 'old@example.com', name: '', password_hash: 'x', jwt_generation: 0, created_at: at, updated_at: at }).execute();
      // Written as the schema stood at 004: no authenticated_at yet.
      await sql`insert into sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at) values ('s1', 'u1', 'h', ${at}, ${at}, ${at})`.execute(db);
      await migrateToLatest(db);
      const row = await db.selectFrom('sessions').select('authenticated_at').where('id', '=', 's1').executeTakeFirstOrThrow();
      assert.equal(row.authenticated_at, at);
    } finally {
      await database.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
