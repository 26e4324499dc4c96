import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import { buildTestApp, signUp, STRONG_PASSWORD } from '../../test/helpers.js';
import { PAGE_CSP } from '../pages/layout.js';

// Runs once, on SQLite: the headers are computed once, whatever the database.

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

test('every answer under /api/v1 and /auth carries Cache-Control: no-store, errors and 304s included', async () => {
  const t = await buildTestApp();
  try {
    const user = await signUp(t.app);
    const authorization = user.bearer;
    const site = await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers: { authorization }, payload: { name: 'Cached nowhere' } });
    const siteId = site.json<{ site: { id: string } }>().site.id;
    const responses = {
      created: site,
      me: await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization } }),
      list: await t.app.inject({ method: 'GET', url: '/api/v1/sites?limit=5', headers: { authorization } }),
      notModified: await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization, 'if-none-match': '"1"' } }),
      unauthenticated: await t.app.inject({ method: 'GET', url: '/api/v1/sites' }),
      invalid: await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers: { authorization }, payload: { name: 5 } }),
      notFound: await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }),
      openapi: await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' }),
      login: await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } }),
      wrongPassword: await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: 'not the password at all' } }),
      magicLink: await t.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email: user.email } }),
      authNotFound: await t.app.inject({ method: 'GET', url: '/auth?x=1' }),
    };
    const statuses = Object.fromEntries(Object.entries(responses).map(([kind, response]) => [kind, response.statusCode]));
    assert.deepEqual(statuses, {
      created: 201,
      me: 200,
      list: 200,
      notModified: 304,
      unauthenticated: 401,
      invalid: 400,
      notFound: 404,
      openapi: 200,
      login: 200,
      wrongPassword: 401,
      magicLink: 202,
      authNotFound: 404,
    });
    for (const [kind, response] of Object.entries(responses)) assert.equal(response.headers['cache-control'], 'no-store', kind);
    // Elsewhere the route decides (the dashboard revalidates, its assets are cached for good).
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.headers['cache-control'], undefined);
    const lookalike = await t.app.inject({ method: 'GET', url: '/authority' });
    assert.notEqual(lookalike.headers['cache-control'], 'no-store');
  } finally {
    await t.close();
  }
});
