import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildTestApp } from '../../test/helpers.js';
import { until } from '../../test/wait.js';
import { finishSignIn, pageCode, startOidcProvider, startSignIn, type TestOidcProvider } from '../../test/oidc-provider.js';

const CLIENT_SECRET = `secret-${randomBytes(12).toString('hex')}`;
const CLIENT = { client_id: 'siteward', client_secret: CLIENT_SECRET, redirect_uris: ['http://localhost:3000/auth/oidc/oidc/callback'] };

let idp: TestOidcProvider;
before(async () => {
  idp = await startOidcProvider({ clients: [CLIENT], accounts: { ada: { email: 'ada@example.com', email_verified: true } } });
});
after(async () => {
  await idp.close();
});

function environment(issuer = idp.issuer): Record<string, string> {
  return { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT.client_id, OIDC_CLIENT_SECRET: CLIENT_SECRET };
}

/** Waits (bounded) for the app to log a line matching `pattern`: the event, not a guess at its time. */
async function untilLogged(logs: () => string, pattern: RegExp, count = 1): Promise<void> {
  await until(() => (logs().match(new RegExp(pattern, 'g')) ?? []).length >= count, `${count} log lines matching ${pattern}`);
}

test('a provider down at start-up stops nothing; sign-ins meanwhile get a page; once it is back, the next try works', async () => {
  await idp.stop();
  // The background retry waits a minute here, so only the sign-ins below try again.
  const t = await buildTestApp({ env: environment(), oidc: { firstRetryDelayMs: 60_000 } });
  try {
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'the server is up');
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/auth/config' })).json().oidc, [{ id: 'oidc', name: 'Single sign-on' }], 'its button stays');
    await untilLogged(t.logs, /OpenID Connect provider did not answer discovery/);
    const down = await t.app.inject({ method: 'GET', url: '/auth/oidc/oidc/start?next=/sites' });
    assert.equal(down.statusCode, 503);
    assert.equal(pageCode(down.body), 'oidc_provider_unreachable');
    assert.match(down.body, /href="\/auth\/oidc\/oidc\/start\?next=%2Fsites"/, 'a way to try again');
    assert.match(down.body, /href="\/sign-in\?next=%2Fsites"/, 'and the other ways in');

    await idp.start();
    // A try right after a failed one is not made: a burst of clicks does not become a burst of requests to the provider.
    assert.equal((await t.app.inject({ method: 'GET', url: '/auth/oidc/oidc/start' })).statusCode, 503);
    t.clock.advance(5_000);
    const started = await startSignIn(t.app, 'oidc');
    assert.equal(started.location.origin, idp.issuer);
    const response = await finishSignIn(t.app, await idp.authorize(started.location.href, 'ada'), started.browser);
    assert.equal(response.statusCode, 303, response.body);

    const warning = t.logs().split('\n').find((line) => line.includes('did not answer discovery')) ?? '';
    assert.match(warning, /"oidc_provider":"oidc"/);
    assert.match(warning, /"reason":"ECONNREFUSED"/);
    assert.ok(!t.logs().includes(CLIENT_SECRET), 'the client secret is never logged');
  } finally {
    await t.close();
    if (!(await isListening(idp.issuer))) await idp.start();
  }
});

test('discovery is retried in the background, waiting longer each time, until the provider answers', async () => {
  await idp.stop();
  const t = await buildTestApp({ env: environment(), oidc: { firstRetryDelayMs: 20, maxRetryDelayMs: 80 } });
  try {
    await untilLogged(t.logs, /did not answer discovery/, 4);
    const waits = [...t.logs().matchAll(/"failures":(\d+),"retry_in_s":(\d+)/g)].map((match) => Number(match[1]));
    assert.deepEqual(waits.slice(0, 4), [1, 2, 3, 4], 'each failure counted');
    await idp.start();
    await untilLogged(t.logs, /OpenID Connect provider discovered/);
    // No clock moved, no sign-in asked: the background found it.
    const started = await startSignIn(t.app, 'oidc');
    assert.equal(started.location.origin, idp.issuer);
  } finally {
    await t.close();
    if (!(await isListening(idp.issuer))) await idp.start();
  }
});

test('a discovery document that names another issuer is never used', async () => {
  // The same provider reached under another name: its document says it is 127.0.0.1, not localhost.
  const t = await buildTestApp({ env: environment(idp.issuer.replace('127.0.0.1', 'localhost')) });
  try {
    await untilLogged(t.logs, /did not answer discovery/);
    assert.match(t.logs(), /"reason":"OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED"/);
    const response = await t.app.inject({ method: 'GET', url: '/auth/oidc/oidc/start' });
    assert.equal(response.statusCode, 503);
    assert.equal(pageCode(response.body), 'oidc_provider_unreachable');
  } finally {
    await t.close();
  }
});

async function isListening(issuer: string): Promise<boolean> {
  try {
    await fetch(`${issuer}/.well-known/openid-configuration`);
    return true;
  } catch {
    return false;
  }
}
