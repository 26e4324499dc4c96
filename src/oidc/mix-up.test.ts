import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { buildTestApp, sessionCookie, type TestApp } from '../../test/helpers.js';
import { finishSignIn, pageCode, startSignIn, startOidcProvider, type TestClient, type TestOidcProvider } from '../../test/oidc-provider.js';

// Two providers configured side by side ("alpha" and "beta"), each a real oidc-provider with a
// client for Siteward; alpha also serves another application. What one issues must never sign in
// through the other, nor through Siteward when it was made for someone else.
const ORIGIN = 'http://localhost:3000';
const ALPHA_CLIENT: TestClient = { client_id: 'siteward', client_secret: `alpha-${randomBytes(8).toString('hex')}`, redirect_uris: [`${ORIGIN}/auth/oidc/alpha/callback`] };
const BETA_CLIENT: TestClient = { client_id: 'siteward', client_secret: `beta-${randomBytes(8).toString('hex')}`, redirect_uris: [`${ORIGIN}/auth/oidc/beta/callback`] };
const OTHER_APP: TestClient = { client_id: 'wiki', client_secret: `wiki-${randomBytes(8).toString('hex')}`, redirect_uris: ['http://localhost:4000/oidc/callback'] };
const ADA = { email: 'ada@example.com', email_verified: true, name: 'Ada' };

let alpha: TestOidcProvider;
let beta: TestOidcProvider;
/** beta's twin that signs with alpha's key: only the issuer tells their tokens apart. */
let betaSameKey: TestOidcProvider;
let t: TestApp;
let providersFile: string;

before(async () => {
  alpha = await startOidcProvider({ clients: [ALPHA_CLIENT, OTHER_APP], accounts: { ada: ADA } });
  beta = await startOidcProvider({ clients: [BETA_CLIENT], accounts: { ada: ADA } });
  betaSameKey = await startOidcProvider({ clients: [{ ...BETA_CLIENT, redirect_uris: ALPHA_CLIENT.redirect_uris }], accounts: { ada: ADA }, signingKey: alpha.signingKey });
  providersFile = path.join(mkdtempSync(path.join(tmpdir(), 'siteward-oidc-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify([
      { id: 'alpha', name: 'Alpha', issuer: alpha.issuer, client_id: ALPHA_CLIENT.client_id, client_secret: ALPHA_CLIENT.client_secret },
      { id: 'beta', name: 'Beta', issuer: beta.issuer, client_id: BETA_CLIENT.client_id, client_secret: BETA_CLIENT.client_secret },
    ]),
  );
});
after(async () => {
  await Promise.all([alpha.close(), beta.close(), betaSameKey.close()]);
  rmSync(path.dirname(providersFile), { recursive: true, force: true });
});

beforeEach(async () => {
  t = await buildTestApp({ env: { OIDC_PROVIDERS_FILE: providersFile } });
});
afterEach(async () => {
  await t.close();
});

function assertRefused(response: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body.slice(0, 400));
  assert.equal(pageCode(response.body), code);
  assert.equal(sessionCookie(response.headers['set-cookie'] as string[] | string | undefined), undefined);
}

async function userCount(): Promise<number> {
  return (await t.database.db.selectFrom('users').select('id').execute()).length;
}

test('each configured provider signs in through its own callback', async () => {
  for (const [id, provider] of [['alpha', alpha], ['beta', beta]] as const) {
    const started = await startSignIn(t.app, id);
    assert.equal(started.location.origin, provider.issuer);
    const response = await finishSignIn(t.app, await provider.authorize(started.location.href, 'ada'), started.browser);
    assert.equal(response.statusCode, 303, response.body);
  }
  // The same address at two providers: one account, an identity at each.
  assert.equal(await userCount(), 1);
  assert.deepEqual((await t.database.db.selectFrom('user_identities').select('provider').orderBy('provider').execute()).map((row) => row.provider), ['alpha', 'beta']);
});

test("mix-up: alpha's authorization response delivered to beta's callback is refused before beta is asked", async () => {
  const atBeta = await startSignIn(t.app, 'beta');
  const atAlpha = await startSignIn(t.app, 'alpha', { browser: atBeta.browser });
  const alphaResponse = await alpha.authorize(atAlpha.location.href, 'ada');
  const betaExchanges = beta.tokenRequests();
  // With beta's own state, as an attacker in the middle would rewrite it: the response's iss is alpha's.
  const rewritten = new URL(`${ORIGIN}/auth/oidc/beta/callback`);
  rewritten.search = alphaResponse.search;
  rewritten.searchParams.set('state', atBeta.location.searchParams.get('state') ?? '');
  assertRefused(await finishSignIn(t.app, rewritten, atBeta.browser), 502, 'oidc_response_invalid');
  assert.match(t.logs(), /"oidc_provider":"beta","failure":"invalid","reason":"OAUTH_INVALID_RESPONSE"/);
  // Without the iss parameter too: beta announces it sends one, so its absence is refused.
  const stripped = await startSignIn(t.app, 'beta', { browser: atBeta.browser });
  const withoutIss = new URL(rewritten);
  withoutIss.searchParams.delete('iss');
  withoutIss.searchParams.set('state', stripped.location.searchParams.get('state') ?? '');
  assertRefused(await finishSignIn(t.app, withoutIss, atBeta.browser), 502, 'oidc_response_invalid');
  // As it came, with alpha's state: that request belongs to alpha, not to beta.
  const asIs = new URL(`${ORIGIN}/auth/oidc/beta/callback${alphaResponse.search}`);
  assertRefused(await finishSignIn(t.app, asIs, atBeta.browser), 400, 'oidc_state_invalid');
  assert.equal(beta.tokenRequests(), betaExchanges, "beta's token endpoint never saw alpha's code");
  assert.equal(await userCount(), 0);
});

test('an ID token from another issuer, in place of the real one, is refused: with its own key, and with the same key', async () => {
  for (const other of [beta, betaSameKey]) {
    const started = await startSignIn(t.app, 'alpha');
    const nonce = started.location.searchParams.get('nonce') ?? '';
    // Real tokens from the other issuer, for a client of the same id, with this very nonce: all
    // that differs is who issued them (and, for beta, the key that signed them).
    alpha.replaceNextTokenResponse(await other.issueTokens({ ...BETA_CLIENT, redirect_uris: other === beta ? BETA_CLIENT.redirect_uris : ALPHA_CLIENT.redirect_uris }, 'ada', nonce));
    const callback = await alpha.authorize(started.location.href, 'ada');
    assertRefused(await finishSignIn(t.app, callback, started.browser), 502, 'oidc_response_invalid');
  }
  assert.match(t.logs(), /"reason":"OAUTH_JWT_CLAIM_COMPARISON_FAILED"/, 'the issuer check refused the twin with the same key');
  assert.equal(await userCount(), 0);
});

test('an ID token the same provider issued to another client is refused (audience)', async () => {
  const started = await startSignIn(t.app, 'alpha');
  const nonce = started.location.searchParams.get('nonce') ?? '';
  alpha.replaceNextTokenResponse(await alpha.issueTokens(OTHER_APP, 'ada', nonce));
  const callback = await alpha.authorize(started.location.href, 'ada');
  assertRefused(await finishSignIn(t.app, callback, started.browser), 502, 'oidc_response_invalid');
  assert.match(t.logs(), /"reason":"OAUTH_JWT_CLAIM_COMPARISON_FAILED"/);
  assert.equal(await userCount(), 0);
});

test('code injection: a code made for another client, or for another browser’s sign-in, is refused by the provider', async () => {
  // A code the wiki got for its own sign-in, replayed into Siteward's callback with a valid state.
  const wikiAuthorization = new URL(`${alpha.issuer}/auth`);
  const wikiVerifier = randomBytes(32).toString('base64url');
  wikiAuthorization.search = new URLSearchParams({
    client_id: OTHER_APP.client_id,
    redirect_uri: OTHER_APP.redirect_uris[0] ?? '',
    response_type: 'code',
    scope: 'openid email',
    state: 'wiki-state',
    nonce: 'wiki-nonce',
    code_challenge: createHash('sha256').update(wikiVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const wikiCode = (await alpha.authorize(wikiAuthorization.href, 'ada')).searchParams.get('code') ?? '';
  const victim = await startSignIn(t.app, 'alpha');
  const injected = new URL(`${ORIGIN}/auth/oidc/alpha/callback`);
  injected.search = new URLSearchParams({ code: wikiCode, state: victim.location.searchParams.get('state') ?? '', iss: alpha.issuer }).toString();
  assertRefused(await finishSignIn(t.app, injected, victim.browser), 400, 'oidc_refused');

  // The attacker's own Siteward sign-in at alpha, its code pasted into the victim's: PKCE ties the
  // code to the browser that began it, so the victim's verifier does not redeem it.
  const attacker = await startSignIn(t.app, 'alpha');
  const attackerCode = (await alpha.authorize(attacker.location.href, 'ada')).searchParams.get('code') ?? '';
  const victimAgain = await startSignIn(t.app, 'alpha');
  const pasted = new URL(`${ORIGIN}/auth/oidc/alpha/callback`);
  pasted.search = new URLSearchParams({ code: attackerCode, state: victimAgain.location.searchParams.get('state') ?? '', iss: alpha.issuer }).toString();
  assertRefused(await finishSignIn(t.app, pasted, victimAgain.browser), 400, 'oidc_refused');
  assert.match(t.logs(), /"reason":"token_invalid_grant"/);
  assert.equal(await userCount(), 0);
});
