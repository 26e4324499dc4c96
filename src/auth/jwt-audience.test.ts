import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDecoder, createSigner } from 'fast-jwt';
import { buildTestApp, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpClient, listenOnLoopback } from '../../test/http.js';
import { AUTH_ERRORS } from './errors.js';

/**
 * A JWT names the service it is for (`aud`, PUBLIC_URL's origin), and the service takes only JWTs
 * for itself (ASVS 9.2.3): a token another service signed with a shared key, or one Siteward made
 * for another deployment, is 401 like a forged one. Over real HTTP.
 */

let t: TestApp;
let http: HttpClient;
let user: SignedUpUser;
before(async () => {
  t = await buildTestApp({ env: { PUBLIC_URL: 'https://siteward.example.com/' } });
  http = await listenOnLoopback(t);
  user = await signUp(t.app);
});
after(async () => {
  await t.close();
});

function signWith(claims: Record<string, unknown>): string {
  return createSigner({ key: Buffer.from(t.config.jwtSecret, 'utf8'), algorithm: 'HS256' })(claims);
}

function claimsFor(overrides: Record<string, unknown>, without?: string): Record<string, unknown> {
  const iat = Math.floor(t.clock.now().getTime() / 1000);
  const claims: Record<string, unknown> = { sub: user.id, gen: 0, iat, exp: iat + 3600, iss: 'https://siteward.example.com', aud: 'https://siteward.example.com', jti: `jti-${Math.random()}`, auth_time: iat, ...overrides };
  if (without !== undefined) delete claims[without];
  return claims;
}

function me(token: string) {
  return http.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
}

describe('the JWT audience', () => {
  test('login, sign-up and re-authentication issue JWTs whose aud is PUBLIC_URL\'s origin, and they are accepted', async () => {
    const decode = createDecoder();
    assert.equal(decode(user.jwt).aud, 'https://siteward.example.com');
    const login = await http.request('POST', '/auth/login', { json: { email: user.email, password: 'violet-harbour-cinnamon-42' } });
    const token = login.json<{ token: string }>().token;
    assert.equal(decode(token).aud, 'https://siteward.example.com');
    assert.equal((await me(token)).status, 200);
    const fresh = await http.request('POST', '/api/v1/me/reauthenticate', { headers: { authorization: `Bearer ${token}` }, json: { password: 'violet-harbour-cinnamon-42' } });
    assert.equal(decode(fresh.json<{ token: string }>().token).aud, 'https://siteward.example.com');
  });

  test('a JWT without aud, for another audience, or for an audience this origin only starts with, is 401 invalid_token', async () => {
    assert.equal((await me(signWith(claimsFor({})))).status, 200, 'the control: well-formed claims pass');
    for (const token of [
      signWith(claimsFor({}, 'aud')),
      signWith(claimsFor({ aud: 'https://other-service.example.com' })),
      signWith(claimsFor({ aud: 'https://siteward.example.com.evil.example' })),
      signWith(claimsFor({ aud: 'https://siteward.example.com/api' })),
      signWith(claimsFor({ aud: ['https://other-service.example.com'] })),
      signWith(claimsFor({ aud: '' })),
      signWith(claimsFor({ aud: 42 })),
    ]) {
      assertProblem(await me(token), 401, AUTH_ERRORS.INVALID_TOKEN);
    }
  });

  test('a token refused for its audience stays refused when sent again (the verified-token memory holds no exception)', async () => {
    const foreign = signWith(claimsFor({ aud: 'https://other-service.example.com' }));
    for (let round = 0; round < 3; round++) assertProblem(await me(foreign), 401, AUTH_ERRORS.INVALID_TOKEN);
  });
});
