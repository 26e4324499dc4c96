import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, createSite, signUp } from '../../test/helpers.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-body.js';

const deepArray = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

const ORIGIN = { origin: 'http://localhost:3000' };
const ASSERTION = '"id":"abc","rawId":"abc","type":"public-key","response":{"clientDataJSON":"a","authenticatorData":"a","signature":"a"},"clientExtensionResults":{}';

/**
 * Each body puts the deep value where the route's schema lets an unknown value through, the place
 * where a recursive walk of the parsed body once ran out of stack (a 500).
 */
const UNAUTHENTICATED: Array<{ url: string; body: (deep: string) => string }> = [
  { url: '/magic', body: (deep) => `{"token":"x","extra":${deep}}` },
  { url: '/magic/resend', body: (deep) => `{"email":"someone@example.com","extra":${deep}}` },
  { url: '/auth/2fa', body: (deep) => `{"code":"123456","extra":${deep}}` },
  { url: '/auth/passkey/verify', body: (deep) => `{"challenge_id":"x","response":{${ASSERTION},"extra":${deep}}}` },
];

interface ProblemBody {
  code: string;
  errors?: Array<{ path: string; message: string }>;
}

function assertTooDeep(response: { statusCode: number; headers: Record<string, unknown>; json: <T>() => T }, what: string): void {
  assert.equal(response.statusCode, 400, what);
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8', what);
  const body = response.json<ProblemBody>();
  assert.equal(body.code, 'validation_failed', what);
  assert.deepEqual(body.errors, [{ path: '', message: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` }], what);
}

describe('JSON nested too deep', () => {
  test('is refused with 400 validation_failed on the sign-in routes, before anything walks it', async () => {
    const t = await buildTestApp();
    try {
      for (const route of UNAUTHENTICATED) {
        for (const [shape, deep] of [['array', deepArray(8000)], ['object', deepObject(8000)]] as const) {
          const response = await t.app.inject({ method: 'POST', url: route.url, headers: { 'content-type': 'application/json', ...ORIGIN }, payload: route.body(deep) });
          assertTooDeep(response, `${route.url} with a deep ${shape}`);
        }
      }
    } finally {
      await t.close();
    }
  });

  test('is refused on the signed-in routes, and the limit is 64 levels exactly', async () => {
    const t = await buildTestApp();
    try {
      const user = await signUp(t.app);
      const site = await createSite(t.app, user.bearer, { name: 'Deep' });
      const headers = { authorization: user.bearer, 'content-type': 'application/json' };
      for (const deep of [deepArray(8000), deepObject(8000)]) {
        assertTooDeep(await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers, payload: `{"id":${deep}}` }), 'PUT a site');
        assertTooDeep(await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers, payload: `{"name":"x","created_at":${deep}}` }), 'POST a site');
      }
      // The body object is the first level: an ignored field holding 63 levels is 64 in all.
      const atLimit = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers, payload: `{"id":${deepArray(MAX_JSON_DEPTH - 1)}}` });
      assert.equal(atLimit.statusCode, 200, atLimit.body);
      const pastLimit = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers, payload: `{"id":${deepObject(MAX_JSON_DEPTH)}}` });
      assertTooDeep(pastLimit, 'one level past the limit');
      // Brackets inside strings, escaped quotes included, are text, not nesting.
      const text = `\\"${'['.repeat(200)}{\\\\`;
      const inStrings = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers, payload: `{"ai_settings":"${text}","widget":"${'{'.repeat(100)}"}` });
      assert.equal(inStrings.statusCode, 200, inStrings.body);
      assert.equal(inStrings.json<{ site: { ai_settings: string } }>().site.ai_settings, `"${'['.repeat(200)}{\\`);
    } finally {
      await t.close();
    }
  });
});

describe('nestedDeeperThan', () => {
  test('counts arrays and objects outside strings only', () => {
    assert.equal(nestedDeeperThan('[[1]]', 2), false);
    assert.equal(nestedDeeperThan('[[[1]]]', 2), true);
    assert.equal(nestedDeeperThan('[{"a":[]}]', 2), true);
    assert.equal(nestedDeeperThan('[[],[],[]]', 2), false);
    assert.equal(nestedDeeperThan('["[[[", "\\"[[["]', 1), false);
    assert.equal(nestedDeeperThan('["\\\\", [[1]]]', 2), true);
    // An unterminated string ends the scan; JSON.parse refuses the body afterwards.
    assert.equal(nestedDeeperThan('["[[[[', 1), false);
  });
});
