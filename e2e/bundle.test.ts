import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { signUp } from '../test/helpers.js';
import { signInPage } from './dashboard-session.js';
import { type Dashboard, openDashboard } from './harness.js';

// What the dashboard's first screens load, and how it copes when the code of a screen does not
// arrive. The sizes are budgets of the build (gzip, the encoding every client accepts); the time a
// cold load takes is measured in dashboard.test.ts, as a diagnostic only.

/** The entry script, the one index.html loads first. */
const ENTRY_BUDGET = 100 * 1024;
/** Everything the sign-in page and the sites list run before they show: entry, frameworks, shared code. */
const FIRST_LOAD_BUDGET = 160 * 1024;

declare const document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null };

let dashboard: Dashboard;

before(async () => {
  dashboard = await openDashboard();
});

after(async () => {
  await dashboard.close();
});

/** Every script the page loads from /assets/ from now on, with its gzip size. */
function recordScripts(page: Page): Map<string, number> {
  const sizes = new Map<string, number>();
  page.on('response', (response: Response) => {
    const { pathname } = new URL(response.url());
    if (!pathname.startsWith('/assets/') || !pathname.endsWith('.js')) return;
    void response.body().then((body) => sizes.set(pathname.slice('/assets/'.length), gzipSync(body, { level: 9 }).length));
  });
  return sizes;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const total = (sizes: Map<string, number>) => [...sizes.values()].reduce((sum, size) => sum + size, 0);

test('the entry script stays under 100 KB gzip; the sign-in page and the sites list load no screen they do not show', { timeout: 120_000 }, async () => {
  const { t, origin } = dashboard;
  const { context, page } = await dashboard.newDevice();
  const signIn = recordScripts(page);
  await page.goto(`${origin}/sign-in`);
  await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
  await page.waitForLoadState('networkidle');
  const entrySrc = await page.evaluate(() => document.querySelector('script[type="module"][src]')?.getAttribute('src') ?? null);
  assert.ok(entrySrc !== null && entrySrc.startsWith('/assets/'), `index.html loads ${String(entrySrc)}`);
  const entry = entrySrc.slice('/assets/'.length);
  const entrySize = signIn.get(entry);
  assert.ok(entrySize !== undefined, `the page did not load its entry script ${entry}`);

  const user = await signUp(t.app);
  await signInPage(page, origin, user.email);
  // The sites list on a cold load of its own (nothing cached), as someone signed in opens the dashboard.
  const { page: cold } = await dashboard.newDevice();
  await cold.context().addCookies(await context.cookies());
  const sitesList = recordScripts(cold);
  await cold.goto(`${origin}/`);
  await cold.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
  await cold.waitForLoadState('networkidle');

  const list = (sizes: Map<string, number>) => [...sizes].map(([name, size]) => `${name} ${kb(size)}`).join(', ');
  console.log(`diagnostic: dashboard entry script ${entry} ${kb(entrySize)} gzip (budget ${kb(ENTRY_BUDGET)}); sign-in page loads ${kb(total(signIn))} of scripts: ${list(signIn)}; the sites list after sign-in: ${kb(total(sitesList))}: ${list(sitesList)}`);
  assert.ok(entrySize < ENTRY_BUDGET, `the entry script is ${kb(entrySize)} gzip`);
  assert.ok(total(signIn) < FIRST_LOAD_BUDGET, `the sign-in page loads ${kb(total(signIn))} of scripts`);
  // Screens not on show, and CodeMirror above all, load when they are opened.
  for (const name of [...signIn.keys(), ...sitesList.keys()]) {
    assert.doesNotMatch(name, /^(SiteEditor|SettingsTextEditor|Security|Profile|AccessTokens|Workspace|Trash|SignUp|CommandPalette)/, `${name} loaded before it was needed`);
  }
});

test('a screen shows a loading state while its code arrives, and the error screen with Reload when it never does', { timeout: 120_000 }, async () => {
  const { t, origin } = dashboard;
  const { page } = await dashboard.newDevice();
  const user = await signUp(t.app);
  await signInPage(page, origin, user.email);
  await page.goto(`${origin}/`);
  await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

  // The screen's code is held until the loading state has been seen.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/assets/Trash-*.js', async (route) => {
    await released;
    await route.continue();
  });
  // From another screen: that screen stays up, and a bar under the top bar says code is on its way.
  await page.getByRole('link', { name: 'Trash' }).click();
  await page.locator('.code-loading[role="status"]').getByText('Loading…').waitFor({ state: 'attached' });
  assert.ok(await page.getByRole('heading', { name: 'Sites', level: 1 }).isVisible());
  release();
  await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  assert.equal(await page.locator('.code-loading').count(), 0);
  await page.unrouteAll();

  // Opened cold at its address: the screen's place says "Loading…" until its code arrives.
  const { page: cold } = await dashboard.newDevice();
  await cold.context().addCookies(await page.context().cookies(origin));
  const coldReleased = new Promise<void>((resolve) => {
    release = resolve;
  });
  await cold.route('**/assets/Trash-*.js', async (route) => {
    await coldReleased;
    await route.continue();
  });
  await cold.goto(`${origin}/trash`);
  await cold.getByRole('main').getByRole('status').filter({ hasText: 'Loading…' }).waitFor();
  release();
  await cold.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();

  // A newer version was deployed since this page loaded: the old chunk is gone (404).
  const { page: stale } = await dashboard.newDevice();
  await stale.context().addCookies(await page.context().cookies(origin));
  await stale.route('**/assets/Trash-*.js', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' }));
  await stale.goto(`${origin}/`);
  await stale.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
  await stale.getByRole('link', { name: 'Trash' }).click();
  const failure = stale.getByRole('alert').filter({ hasText: 'Something went wrong on this screen' });
  await failure.waitFor();
  // The top bar stays, so the rest of the dashboard is a click away; Reload fetches the screen again.
  await stale.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).waitFor();
  await stale.unrouteAll();
  await failure.getByRole('button', { name: 'Reload' }).click();
  await stale.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  assert.equal(new URL(stale.url()).pathname, '/trash');
});
