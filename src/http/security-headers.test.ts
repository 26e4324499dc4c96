import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import { buildTestApp, signUp } from '../../test/helpers.js';
import { PAGE_CSP } from '../pages/layout.js';

/** What @fastify/helmet, as the service registered it before the headers were computed once, sends. */
async function helmetReference(https: boolean): Promise<Record<string, string>> {
  const reference = Fastify();
  await reference.register(helmet, {
    global: true,
    hsts: https,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } },
  });
  reference.get('/', async () => ({}));
  const response = await reference.inject({ method: 'GET', url: '/' });
  await reference.close();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (!['content-type', 'content-length', 'date', 'connection'].includes(name)) headers[name] = String(value);
  }
  return headers;
}

for (const https of [false, true]) {
  describe(`security headers with PUBLIC_URL on ${https ? 'https' : 'http'}`, () => {
    test('every kind of response carries exactly the headers @fastify/helmet sent', async () => {
      const expected = await helmetReference(https);
      assert.ok(Object.keys(expected).length >= 11, 'the reference produced the helmet headers');
      assert.equal('strict-transport-security' in expected, https);
      const t = await buildTestApp({ env: { PUBLIC_URL: https ? 'https://siteward.example.com' : 'http://localhost:3000' } });
      try {
        const user = await signUp(t.app);
        const responses = {
          ok: await t.app.inject({ method: 'GET', url: '/healthz' }),
          authenticated: await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: user.bearer } }),
          unauthenticated: await t.app.inject({ method: 'GET', url: '/api/v1/sites' }),
          notFound: await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }),
          badBody: await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers: { authorization: user.bearer, 'content-type': 'text/plain' }, payload: 'x' }),
        };
        for (const [kind, response] of Object.entries(responses)) {
          for (const [name, value] of Object.entries(expected)) assert.equal(response.headers[name], value, `${kind}: ${name}`);
        }
        assert.equal(responses.authenticated.statusCode, 200);
        assert.equal(responses.unauthenticated.statusCode, 401);
        assert.equal(responses.notFound.statusCode, 404);
        assert.equal(responses.badBody.statusCode, 415);
      } finally {
        await t.close();
      }
    });
  });
}

test("a route's own security headers are kept, not overwritten by the defaults", async () => {
  const t = await buildTestApp();
  try {
    const page = await t.app.inject({ method: 'GET', url: '/magic?token=unknown', headers: { accept: 'text/html' } });
    assert.equal(page.headers['content-security-policy'], PAGE_CSP);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    // Defaults the page does not set itself are still there.
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
  } finally {
    await t.close();
  }
});
