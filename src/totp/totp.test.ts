import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { createAccessToken, enableTotp, signUp, STRONG_PASSWORD, type SignedUpUser, type TestApp, buildTestApp, usingPostgres } from '../../test/helpers.js';
import { base32Decode, hotp, totp } from '../../test/rfc6238.js';
import { sql } from 'kysely';
import { SecretBox, sha256 } from '../lib/crypto.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

function login(email: string, otp?: string, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password: STRONG_PASSWORD, ...(otp === undefined ? {} : { otp }) } });
}

function status(user: SignedUpUser) {
  return t.app.inject({ method: 'GET', url: '/api/v1/me/totp', headers: { authorization: user.bearer } });
}

function setup(user: SignedUpUser) {
  return t.app.inject({ method: 'POST', url: '/api/v1/me/totp/setup', headers: { authorization: user.bearer } });
}

function enable(user: SignedUpUser, code: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/me/totp/enable', headers: { authorization: user.bearer }, payload: { code } });
}

function disable(user: SignedUpUser, code: string) {
  return t.app.inject({ method: 'DELETE', url: '/api/v1/me/totp', headers: { authorization: user.bearer }, payload: { code } });
}

function regenerate(user: SignedUpUser, code: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/me/totp/recovery-codes', headers: { authorization: user.bearer }, payload: { code } });
}

/** The code the user's app shows now, `offset` steps away (clock drift). */
function codeNow(secret: string, offset = 0): string {
  return totp(secret, t.clock.now(), offset);
}

/** A 6-digit string that is none of the codes accepted around now. */
function wrongCode(secret: string): string {
  const valid = new Set([-1, 0, 1].map((offset) => codeNow(secret, offset)));
  for (let candidate = 0; ; candidate++) {
    const code = String(candidate).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

describe('the independent RFC 6238 implementation', () => {
  test('matches the RFC 6238 appendix B test vectors for SHA-1', () => {
    const key = Buffer.from('12345678901234567890', 'ascii');
    const at = (seconds: number) => Math.floor(seconds / 30);
    assert.equal(hotp(key, at(59), 8), '94287082');
    assert.equal(hotp(key, at(59), 6), '287082');
    assert.equal(hotp(key, at(1111111109), 8), '07081804');
    assert.equal(hotp(key, at(1234567890), 8), '89005924');
    assert.equal(hotp(key, at(20000000000), 8), '65353130');
    // The same key in base32, through the time-based entry point.
    assert.equal(totp('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', new Date(59_000), 0, 8), '94287082');
  });

  test('matches the RFC 4226 appendix D HOTP values', () => {
    const key = Buffer.from('12345678901234567890', 'ascii');
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    assert.deepEqual(expected.map((_, counter) => hotp(key, counter)), expected);
  });
});

describe('setup and enable', () => {
  test('setup answers a base32 secret, an otpauth URL for Siteward and the e-mail, and an SVG QR code', async () => {
    const user = await signUp(t.app, 'setup@example.com');
    const response = await setup(user);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['otpauth_url', 'qr_svg', 'secret']);
    assert.match(body.secret, /^[A-Z2-7]{32}$/, '160 bits of base32');
    assert.equal(base32Decode(body.secret).length, 20);
    const url = new URL(body.otpauth_url);
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.host, 'totp');
    assert.equal(decodeURIComponent(url.pathname), '/Siteward:setup@example.com');
    assert.equal(url.searchParams.get('issuer'), 'Siteward');
    assert.equal(url.searchParams.get('secret'), body.secret);
    assert.equal(url.searchParams.get('algorithm'), 'SHA1');
    assert.equal(url.searchParams.get('digits'), '6');
    assert.equal(url.searchParams.get('period'), '30');
    assert.match(body.qr_svg, /^<svg[\s\S]*<\/svg>\s*$/);
    assert.deepEqual((await status(user)).json(), { enabled: false, recovery_codes_remaining: 0 }, 'setup alone turns nothing on');
    assert.equal((await login(user.email)).statusCode, 200, 'sign-in needs no code until enabled');
  });

  test('enable refuses a wrong code, then accepts the app code and shows 10 recovery codes once', async () => {
    const user = await signUp(t.app);
    const { secret } = (await setup(user)).json();
    const wrong = await enable(user, wrongCode(secret));
    assert.equal(wrong.statusCode, 403);
    assert.equal(wrong.json().code, 'otp_invalid');
    assert.equal((await status(user)).json().enabled, false);

    const response = await enable(user, codeNow(secret));
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const codes: string[] = response.json().recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[a-z2-7]{5}-[a-z2-7]{5}$/);
    assert.deepEqual((await status(user)).json(), { enabled: true, recovery_codes_remaining: 10 });

    const again = await enable(user, codeNow(secret, 1));
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'totp_already_enabled');
    const resetup = await setup(user);
    assert.equal(resetup.statusCode, 409, 'a new secret cannot replace the one in use');
    assert.ok(!resetup.body.includes(secret));
  });

  test('enable before setup is 409 totp_setup_required', async () => {
    const user = await signUp(t.app);
    const response = await enable(user, '123456');
    assert.equal(response.statusCode, 409);
    assert.equal(response.json().code, 'totp_setup_required');
  });

  test('a second setup replaces the unconfirmed secret: only the newest one enables', async () => {
    const user = await signUp(t.app);
    const first = (await setup(user)).json().secret;
    const second = (await setup(user)).json().secret;
    assert.notEqual(first, second);
    assert.equal((await enable(user, codeNow(first))).statusCode, 403);
    assert.equal((await enable(user, codeNow(second))).statusCode, 200);
  });

  test('the code that enabled 2FA cannot sign in', async () => {
    const user = await signUp(t.app);
    const { secret } = (await setup(user)).json();
    const code = codeNow(secret);
    assert.equal((await enable(user, code)).statusCode, 200);
    const replay = await login(user.email, code);
    assert.equal(replay.statusCode, 401);
    assert.equal(replay.json().code, 'otp_invalid');
    t.clock.advance(30_000);
    assert.equal((await login(user.email, codeNow(secret))).statusCode, 200);
  });

  test('no response after enable carries the secret', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const bodies = [
      (await status(user)).body,
      (await setup(user)).body,
      (await login(user.email, codeNow(secret))).body,
      (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: user.bearer } })).body,
      (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).body,
    ];
    for (const body of bodies) assert.ok(!body.includes(secret));
  });

  test('personal access tokens cannot read or change 2FA (403)', async () => {
    const user = await signUp(t.app);
    const pat = await createAccessToken(t.app, user);
    const requests = [
      { method: 'GET', url: '/api/v1/me/totp' },
      { method: 'POST', url: '/api/v1/me/totp/setup' },
      { method: 'POST', url: '/api/v1/me/totp/enable', payload: { code: '123456' } },
      { method: 'DELETE', url: '/api/v1/me/totp', payload: { code: '123456' } },
      { method: 'POST', url: '/api/v1/me/totp/recovery-codes', payload: { code: '123456' } },
    ] as const;
    for (const request of requests) {
      const response = await t.app.inject({ ...request, headers: { authorization: pat.header } });
      assert.equal(response.statusCode, 403, request.url);
      assert.equal(response.json().code, 'access_token_not_allowed');
    }
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/v1/me/totp/setup' });
    assert.equal(anonymous.statusCode, 401);
  });
});

describe('sign-in with TOTP on (POST /auth/login)', () => {
  test('no otp is 401 otp_required, a wrong one 401 otp_invalid, the right one a JWT', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const missing = await login(user.email);
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().code, 'otp_required');
    assert.ok(missing.headers['www-authenticate']);
    assert.equal((await login(user.email, '')).json().code, 'otp_required');
    const wrong = await login(user.email, wrongCode(secret));
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().code, 'otp_invalid');
    assert.equal((await login(user.email, 'not a code')).json().code, 'otp_invalid');
    const right = await login(user.email, codeNow(secret));
    assert.equal(right.statusCode, 200);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${right.json().token}` } });
    assert.equal(me.json().user.id, user.id);
  });

  test('a wrong password says nothing about 2FA; an account without 2FA ignores otp', async () => {
    const withTotp = await signUp(t.app);
    await enableTotp(t, withTotp);
    const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: withTotp.email, password: 'wrong-password-here' } });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'invalid_credentials');
    const without = await signUp(t.app);
    assert.equal((await login(without.email, '000000')).statusCode, 200);
  });

  test('one step of drift either way is accepted, two are refused', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    t.clock.advance(10 * 30_000);
    assert.equal((await login(user.email, codeNow(secret, -2))).json().code, 'otp_invalid');
    assert.equal((await login(user.email, codeNow(secret, 2))).json().code, 'otp_invalid');
    assert.equal((await login(user.email, codeNow(secret, -1))).statusCode, 200, 'a phone 30 s slow');
    assert.equal((await login(user.email, codeNow(secret, 1))).statusCode, 200, 'a phone 30 s fast');
  });

  test('the clock decides: a code is good within its step and the next, not two steps later', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const code = codeNow(secret);
    t.clock.advance(59_000);
    assert.equal((await login(user.email, code)).statusCode, 200, 'the previous step is within the drift window');
    const later = codeNow(secret);
    t.clock.advance(60_000);
    assert.equal((await login(user.email, later)).json().code, 'otp_invalid', 'two steps on it has expired');
  });

  test('a code is accepted once: a replay is refused, and so is any earlier step', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const code = codeNow(secret);
    assert.equal((await login(user.email, code)).statusCode, 200);
    const replay = await login(user.email, code, '203.0.113.9');
    assert.equal(replay.statusCode, 401, 'not from another address either');
    assert.equal(replay.json().code, 'otp_invalid');
    assert.equal((await login(user.email, codeNow(secret, -1))).json().code, 'otp_invalid', 'an older step is refused after a newer one');
    t.clock.advance(30_000);
    assert.equal((await login(user.email, codeNow(secret))).statusCode, 200, 'the next step works');
  });

  test('ten parallel sign-ins with one code: exactly one succeeds', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const code = codeNow(secret);
    const responses = await Promise.all(Array.from({ length: 10 }, () => login(user.email, code)));
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 1);
    assert.equal(responses.filter((response) => response.json().code === 'otp_invalid').length, 9);
  });

  test('parallel wrong codes cannot exceed the limit: 10 are checked, the rest get 429', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const wrong = wrongCode(secret);
    const responses = await Promise.all(Array.from({ length: 15 }, () => disable(user, wrong)));
    assert.equal(responses.filter((response) => response.statusCode === 403).length, 10);
    assert.equal(responses.filter((response) => response.statusCode === 429).length, 5);
    assert.equal((await status(user)).json().enabled, true);
  });
});

describe('recovery codes', () => {
  test('a recovery code signs in once, in any case and with or without the hyphen', async () => {
    const user = await signUp(t.app);
    const { recoveryCodes } = await enableTotp(t, user);
    const [first = '', second = ''] = recoveryCodes;
    assert.equal((await login(user.email, first)).statusCode, 200);
    const again = await login(user.email, first);
    assert.equal(again.statusCode, 401);
    assert.equal(again.json().code, 'otp_invalid');
    assert.equal((await login(user.email, ` ${second.replace('-', '').toUpperCase()} `)).statusCode, 200);
    assert.deepEqual((await status(user)).json(), { enabled: true, recovery_codes_remaining: 8 });
  });

  test('one recovery code used in parallel: exactly one success', async () => {
    const user = await signUp(t.app);
    const { recoveryCodes } = await enableTotp(t, user);
    const code = recoveryCodes[0] ?? '';
    const responses = await Promise.all(Array.from({ length: 10 }, () => login(user.email, code)));
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 1);
    assert.equal(responses.filter((response) => response.statusCode === 401).length, 9);
    assert.equal((await status(user)).json().recovery_codes_remaining, 9);
  });

  test("one user's recovery code does nothing for another", async () => {
    const alice = await signUp(t.app);
    const bob = await signUp(t.app);
    const aliceCodes = await enableTotp(t, alice);
    await enableTotp(t, bob);
    assert.equal((await login(bob.email, aliceCodes.recoveryCodes[0])).json().code, 'otp_invalid');
    assert.equal((await login(alice.email, aliceCodes.recoveryCodes[0])).statusCode, 200);
  });

  test('regenerating needs a valid code and kills the old set', async () => {
    const user = await signUp(t.app);
    const { secret, recoveryCodes } = await enableTotp(t, user);
    const refused = await regenerate(user, wrongCode(secret));
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'otp_invalid');
    const response = await regenerate(user, codeNow(secret));
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const fresh: string[] = response.json().recovery_codes;
    assert.equal(fresh.length, 10);
    assert.equal(fresh.filter((code) => recoveryCodes.includes(code)).length, 0);
    assert.deepEqual((await status(user)).json(), { enabled: true, recovery_codes_remaining: 10 });
    for (const old of recoveryCodes.slice(0, 3)) assert.equal((await login(user.email, old)).json().code, 'otp_invalid');
    assert.equal((await login(user.email, fresh[0])).statusCode, 200);
  });

  test('a recovery code can confirm regeneration (a lost phone) and is used up by it', async () => {
    const user = await signUp(t.app);
    const { recoveryCodes } = await enableTotp(t, user);
    const response = await regenerate(user, recoveryCodes[0] ?? '');
    assert.equal(response.statusCode, 200);
    assert.equal((await status(user)).json().recovery_codes_remaining, 10);
  });

  test('regenerating or disabling without 2FA on is 409 totp_not_enabled', async () => {
    const user = await signUp(t.app);
    assert.equal((await regenerate(user, '123456')).json().code, 'totp_not_enabled');
    assert.equal((await disable(user, '123456')).json().code, 'totp_not_enabled');
  });
});

describe('disable', () => {
  test('needs a valid code: a wrong one is 403 and changes nothing, none is 400', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const wrong = await disable(user, wrongCode(secret));
    assert.equal(wrong.statusCode, 403);
    assert.equal(wrong.json().code, 'otp_invalid');
    const missing = await t.app.inject({ method: 'DELETE', url: '/api/v1/me/totp', headers: { authorization: user.bearer }, payload: {} });
    assert.equal(missing.statusCode, 400);
    assert.equal((await status(user)).json().enabled, true);
    assert.equal((await login(user.email)).json().code, 'otp_required');
  });

  test('with a TOTP code it turns 2FA off and removes the secret and the recovery codes', async () => {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);
    const response = await disable(user, codeNow(secret));
    assert.equal(response.statusCode, 204);
    assert.deepEqual((await status(user)).json(), { enabled: false, recovery_codes_remaining: 0 });
    assert.equal((await login(user.email)).statusCode, 200);
    assert.equal((await t.database.db.selectFrom('user_totp').selectAll().execute()).length, 0);
    assert.equal((await t.database.db.selectFrom('recovery_codes').selectAll().execute()).length, 0);
    const { secret: newSecret } = (await setup(user)).json();
    assert.notEqual(newSecret, secret, 'turning it on again starts with a new secret');
  });

  test('a recovery code works too', async () => {
    const user = await signUp(t.app);
    const { recoveryCodes } = await enableTotp(t, user);
    assert.equal((await disable(user, recoveryCodes[4] ?? '')).statusCode, 204);
    assert.equal((await status(user)).json().enabled, false);
  });
});

describe('secrets at rest and in logs', () => {
  test('the TOTP secret is stored encrypted (bound to the user) and recovery codes only as a digest keyed by the server', async () => {
    const user = await signUp(t.app);
    const { secret, recoveryCodes } = await enableTotp(t, user);
    const row = await t.database.db.selectFrom('user_totp').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.pending_secret, null);
    assert.ok(row.secret !== null && row.secret.startsWith('v1:'));
    const box = new SecretBox(t.config.encryptionKey);
    assert.equal(box.decrypt(row.secret, `user:${user.id}:totp_secret`), secret);
    assert.throws(() => box.decrypt(row.secret ?? '', 'user:someone-else:totp_secret'), 'another user id does not open it');

    const codes = await t.database.db.selectFrom('recovery_codes').selectAll().where('user_id', '=', user.id).execute();
    assert.equal(codes.length, 10);
    const hashes = new Set(codes.map((code) => code.code_hash));
    // HMAC-SHA-256 of the code's SHA-256, keyed by HKDF(ENCRYPTION_KEY) under its own label,
    // computed here independently of the service: without the key, the digests cannot be searched.
    const key = Buffer.from(hkdfSync('sha256', t.config.encryptionKey, Buffer.alloc(0), 'siteward recovery-code digest v1', 32));
    for (const code of recoveryCodes) {
      const plain = sha256(code.replace('-', ''));
      assert.ok(hashes.has(`hmac:${createHmac('sha256', key).update(plain).digest('hex')}`));
      assert.ok(!hashes.has(plain));
    }

    const everything = JSON.stringify([row, codes]);
    assert.ok(!everything.includes(secret));
    assert.ok(!everything.toLowerCase().includes(secret.toLowerCase()));
    assert.ok(!everything.includes(base32Decode(secret).toString('hex')));
    for (const code of recoveryCodes) {
      assert.ok(!everything.includes(code));
      assert.ok(!everything.includes(code.replace('-', '')));
    }
  });

  test('nothing the database holds contains the secret or a recovery code', async () => {
    const user = await signUp(t.app);
    await setup(user); // a pending secret first: it must not linger in clear either
    const { secret, recoveryCodes } = await enableTotp(t, user);
    let stored: string;
    if (usingPostgres()) {
      // Every row of every table, as PostgreSQL renders it.
      const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(t.database.db)).rows;
      const dumps = await Promise.all(
        tables.map(async ({ table_name }) => (await sql<{ row: string }>`select row_to_json(r)::text as row from ${sql.table(table_name)} r`.execute(t.database.db)).rows.map((entry) => entry.row)),
      );
      stored = dumps.flat().join('\n');
    } else {
      // The raw SQLite files, write-ahead log included: free pages and the log keep old contents too.
      const files = readdirSync(t.dataDir).filter((file) => file.startsWith('siteward.db'));
      assert.ok(files.length > 0);
      stored = files.map((file) => readFileSync(path.join(t.dataDir, file)).toString('latin1')).join('');
    }
    assert.ok(stored.includes(user.email), 'what was read holds the data');
    assert.ok(!stored.includes(secret));
    for (const code of recoveryCodes) assert.ok(!stored.includes(code.replace('-', '')) && !stored.includes(code));
    // Nor their unsalted SHA-256, which a GPU would turn back into the 50-bit codes.
    for (const code of recoveryCodes) assert.ok(!stored.includes(sha256(code.replace('-', ''))), 'a plain SHA-256 of a recovery code is stored');
  });

  test('no secret, code or recovery code reaches the logs', async () => {
    const user = await signUp(t.app);
    const { secret } = (await setup(user)).json();
    const used: string[] = [codeNow(secret)];
    const recoveryCodes: string[] = (await enable(user, used[0] ?? '')).json().recovery_codes;
    t.clock.advance(30_000);
    used.push(wrongCode(secret));
    await login(user.email, used[1]);
    used.push(codeNow(secret));
    await login(user.email, used[2]);
    await login(user.email, recoveryCodes[0]);
    await regenerate(user, recoveryCodes[1] ?? '');
    t.clock.advance(30_000);
    used.push(codeNow(secret));
    await disable(user, used[3] ?? '');
    const logs = t.logs();
    assert.ok(logs.includes('/api/v1/me/totp'), 'the requests were logged');
    assert.ok(!logs.includes(secret));
    for (const code of recoveryCodes) assert.ok(!logs.includes(code) && !logs.includes(code.replace('-', '')));
    // Digits could occur inside a timestamp; a code on its own could not.
    for (const code of used) assert.doesNotMatch(logs, new RegExp(`(?<![0-9])${code}(?![0-9])`));
  });
});
