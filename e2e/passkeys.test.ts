import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildTestApp, ManualClock, signUp, STRONG_PASSWORD, type TestApp } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { PASSKEY_TEST_PAGE, PASSKEY_TEST_PAGE_PATH } from './passkey-page.js';
import { freePort } from '../test/processes.js';

/** Debian's Chromium. The browser tests fail without it: a skipped browser test proves nothing. */
const CHROMIUM = '/usr/bin/chromium';


/** Clicks the button and answers what the page's status says once that action has finished. */
async function act(page: Page, button: string): Promise<string> {
  const status = page.getByRole('status');
  const run = Number(await status.getAttribute('data-run')) + 1;
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.locator(`#status[data-run="${run}"][data-state="done"]`).waitFor({ timeout: 20_000 });
  return (await status.textContent()) ?? '';
}

test(
  'in Chromium with a virtual authenticator: sign in by password, add a passkey, sign out, sign in with the passkey alone',
  { timeout: 90_000 },
  async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);

    const port = await freePort();
    const origin = `http://localhost:${port}`;
    // Real time: the browser's cookies and the server's sessions and challenges must agree on it.
    const t: TestApp = await buildTestApp({ env: { PUBLIC_URL: origin }, clock: new ManualClock(Date.now()) });
    const userDataDir = mkdtempSync(path.join(tmpdir(), 'siteward-chromium-'));
    let context: BrowserContext | undefined;
    try {
      await t.app.listen({ port, host: '127.0.0.1' });
      const user = await signUp(t.app);

      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      const page = context.pages()[0] ?? (await context.newPage());
      // The test page is answered by Playwright at the app's origin; everything else goes to the app.
      await page.route(`${origin}${PASSKEY_TEST_PAGE_PATH}`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: PASSKEY_TEST_PAGE }));

      // Chromium's virtual authenticator: a platform authenticator that holds resident keys and
      // verifies its user (as a fingerprint reader would) without a prompt.
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });

      await page.goto(`${origin}${PASSKEY_TEST_PAGE_PATH}`);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Password').fill(STRONG_PASSWORD);
      assert.equal(await act(page, 'Sign in with password'), `signed in as ${user.email}`);

      assert.equal(await act(page, 'Add a passkey'), 'added passkey Test laptop');
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      assert.equal(credentials.length, 1);
      assert.equal(credentials[0]?.isResidentCredential, true, 'a discoverable credential');
      assert.equal(credentials[0]?.rpId, 'localhost');

      assert.equal(await act(page, 'Sign out'), 'signed out');
      assert.equal(await act(page, 'Who am I?'), 'not signed in (401 unauthenticated)');
      assert.deepEqual(await context.cookies(origin), []);

      // No e-mail, no password: the authenticator names the account.
      await page.getByLabel('E-mail').fill('');
      await page.getByLabel('Password').fill('');
      assert.equal(await act(page, 'Sign in with a passkey'), `signed in with a passkey as ${user.email}`);
      assert.equal(await act(page, 'Who am I?'), `you are ${user.email}`);

      // The session cookie is HttpOnly, and works on its own against the API.
      const cookie = (await context.cookies(origin)).find((candidate) => candidate.name === 'siteward_session') ?? assert.fail('no session cookie');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { user: { id: string } }).user.id, user.id);

      const passkeys = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
      const [passkey] = passkeys.json<{ passkeys: Array<{ name: string; last_used_at: string | null }> }>().passkeys;
      assert.equal(passkey?.name, 'Test laptop');
      assert.notEqual(passkey?.last_used_at, null);

      // Settings > Security tells the owner what happened, newest first, with the device.
      await page.goto(`${origin}/settings/security`);
      const activity = page.getByRole('list', { name: 'Recent activity' });
      await activity.getByRole('listitem').first().waitFor();
      const lines = (await activity.getByRole('listitem').allInnerTexts()).map((line) => line.split('\n')[0]);
      assert.deepEqual(lines.slice(0, 3), ['Signed in with a passkey', 'Passkey “Test laptop” added', 'Signed in with your password']);
      assert.match(await activity.getByRole('listitem').first().innerText(), /Chrome on Linux · 127\.0\.0\.1/);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        assert.deepEqual(await seriousAccessibilityProblems(page, { scope: 'section[aria-labelledby="activity-title"]' }), [], colorScheme);
      }
    } finally {
      await context?.close();
      await t.close();
      rmSync(userDataDir, { recursive: true, force: true });
    }
  },
);
