import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { OPEN_REDIRECT_PAYLOADS } from '../../test/open-redirect-payloads.js';
import { startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.js';
import { freePort } from '../../test/processes.js';

// `next` through the real single sign-on round trip over HTTP (a real provider, the app listening
// on 127.0.0.1), on SQLite and (with TEST_DATABASE_URL) PostgreSQL: whatever a link puts in it, the
// Location the sign-in ends with never leaves the site.

let idp: TestOidcProvider;
let t: TestApp;
let origin: string;
const CLIENT_SECRET = `secret-${randomBytes(12).toString('hex')}`;
const LOGIN = 'pat';

before(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({
    clients: [{ client_id: 'siteward', client_secret: CLIENT_SECRET, redirect_uris: [`${origin}/auth/oidc/oidc/callback`] }],
    accounts: { [LOGIN]: { email: 'pat@example.com', email_verified: true, name: 'Pat Example' } },
  });
  t = await buildTestApp({ env: { PUBLIC_URL: origin, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'siteward', OIDC_CLIENT_SECRET: CLIENT_SECRET } });
  await t.app.listen({ host: '127.0.0.1', port });
});
after(async () => {
  await t.close();
  await idp.close();
});

/** Starts a sign-in with `next` as a link would carry it, signs in at the provider, and returns where the callback sends the browser. */
async function signInLocation(next: string): Promise<string> {
  const start = await fetch(`${origin}/auth/oidc/oidc/start?next=${encodeURIComponent(next)}`, { redirect: 'manual' });
  assert.equal(start.status, 302, `${JSON.stringify(next)}: ${await start.text()}`);
  const browser = start.headers.getSetCookie().find((line) => line.startsWith('siteward_oidc='))?.split(';')[0];
  assert.ok(browser !== undefined, 'the browser is bound to its sign-in');
  const callback = await idp.authorize(String(start.headers.get('location')), LOGIN);
  const finished = await fetch(`${origin}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie: browser } });
  assert.equal(finished.status, 303, `${JSON.stringify(next)}: ${await finished.text()}`);
  return String(finished.headers.get('location'));
}

test('no known open-redirect payload in next makes the sign-in end off the site', async () => {
  for (const next of OPEN_REDIRECT_PAYLOADS) {
    const location = await signInLocation(next);
    // Resolved as a browser resolves a Location against the page that sent it.
    assert.equal(new URL(location, origin).origin, origin, `${JSON.stringify(next)} → ${location}`);
    assert.equal(location, '/', JSON.stringify(next));
  }
});

test("a path of this site is where the sign-in ends, its dot segments resolved", async () => {
  assert.equal(await signInLocation('/sites?sort=name#top'), '/sites?sort=name#top');
  assert.equal(await signInLocation('/a/../settings/security'), '/settings/security');
});
