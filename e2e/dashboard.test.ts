import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { createSite, signUp, STRONG_PASSWORD, type TestApp } from '../test/helpers.js';
import { assertBackground, DARK_BACKGROUND, LIGHT_BACKGROUND, scrollsSideways, signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// The browser globals the page-side callbacks touch (the project compiles without the DOM library).
interface BrowserElement {
  tagName: string;
  textContent: string | null;
}
declare const window: {
  history: { back(): void; pushState(state: null, title: string, url: string): void };
  location: { pathname: string; reload(): void };
  localStorage: { getItem(key: string): string | null };
  dispatchEvent(event: object): void;
};
declare const document: { activeElement: BrowserElement | null; querySelector(selector: string): BrowserElement | null; querySelectorAll(selector: string): { length: number }; documentElement: { dataset: Record<string, string | undefined> } };
declare class PopStateEvent {
  constructor(type: string);
}
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: object, options: { childList: boolean; subtree: boolean }): void;
  disconnect(): void;
}

function sitesList(page: Page) {
  return page.getByRole('region', { name: 'Your sites' });
}

async function rowNames(page: Page): Promise<string[]> {
  return sitesList(page).locator('.site-row .site-name').allTextContents();
}

/** Waits until the list shows `first` at the top, i.e. the request for this page has landed. */
async function waitForFirstRow(page: Page, first: string): Promise<void> {
  await page.waitForFunction((name) => document.querySelector('.site-row .site-name')?.textContent === name, first);
}

async function readSiteName(t: TestApp, email: string, id: string): Promise<string> {
  // A fresh JWT: signing out everywhere revokes the older ones.
  const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: STRONG_PASSWORD } });
  assert.equal(login.statusCode, 200);
  const { token } = login.json<{ token: string }>();
  const read = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: `Bearer ${token}` } });
  assert.equal(read.statusCode, 200);
  return read.json<{ site: { name: string } }>().site.name;
}

test('the sites list with 65 sites: pages of 25 with Next and Previous, sort by name, a debounced search, all in the address', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    for (let index = 1; index <= 64; index += 1) {
      t.clock.advance(1000);
      await createSite(t.app, user.bearer, { name: `Site ${String(index).padStart(3, '0')}` });
    }
    t.clock.advance(1000);
    await createSite(t.app, user.bearer, { name: 'Zebra help desk', color: '#111', ai_settings: '{"model":"small"}' });
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);

    // Last updated first, 25 to a page.
    await waitForFirstRow(page, 'Zebra help desk');
    assert.equal((await rowNames(page)).length, 25);
    await sitesList(page).getByText('1–25 of 65 sites').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Previous' }).isDisabled(), true);

    const pages = page.getByRole('navigation', { name: 'Pages' });
    await pages.getByRole('button', { name: 'Next' }).click();
    await waitForFirstRow(page, 'Site 040');
    assert.match(new URL(page.url()).search, /cursor=/);
    await sitesList(page).getByText('26–50 of 65 sites').waitFor();
    await pages.getByRole('button', { name: 'Next' }).click();
    await waitForFirstRow(page, 'Site 015');
    assert.equal((await rowNames(page)).length, 15);
    await sitesList(page).getByText('51–65 of 65 sites').waitFor();
    assert.equal(await pages.getByRole('button', { name: 'Next' }).isDisabled(), true, 'the last page has no next');
    await pages.getByRole('button', { name: 'Previous' }).click();
    await waitForFirstRow(page, 'Site 040');
    await pages.getByRole('button', { name: 'Previous' }).click();
    await waitForFirstRow(page, 'Zebra help desk');
    assert.equal(new URL(page.url()).search, '');

    // Sorted by name, the address says so and survives a reload.
    await page.getByLabel('Sort by').selectOption({ label: 'Name, A to Z' });
    await waitForFirstRow(page, 'Site 001');
    assert.equal(new URL(page.url()).searchParams.get('sort'), 'name');
    await page.reload();
    await waitForFirstRow(page, 'Site 001');
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'name');
    await page.getByLabel('Sort by').selectOption({ label: 'Name, Z to A' });
    await waitForFirstRow(page, 'Zebra help desk');

    // The search waits for a pause in typing, then lands in the address as ?q=.
    const searches: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/v1/sites' && url.searchParams.has('q')) searches.push(url.searchParams.get('q') ?? '');
    });
    await page.getByLabel('Search sites').pressSequentially('zebra', { delay: 40 });
    await page.waitForURL((url) => url.searchParams.get('q') === 'zebra');
    // The previous list also starts with Zebra and stays on screen until the search's answer lands.
    await page.waitForFunction(() => document.querySelectorAll('.site-row .site-name').length === 1);
    assert.deepEqual(await rowNames(page), ['Zebra help desk']);
    // Typing pauses on a busy machine may let a prefix go out, but never one request per key.
    assert.equal(searches.at(-1), 'zebra');
    assert.ok(searches.length < 'zebra'.length, `searched for ${JSON.stringify(searches)}`);
    await sitesList(page).getByText('Configured: AI').waitFor();
    await dashboard.screenshot('sites-list-search');

    await page.getByLabel('Search sites').fill('no such site');
    await page.getByRole('heading', { name: 'No sites match “no such site”' }).waitFor();
    await dashboard.screenshot('sites-list-no-results');
    // A space typed before the next word stays in the box while the search goes out without it.
    await page.getByLabel('Search sites').fill('zebra ');
    await page.waitForURL((url) => url.searchParams.get('q') === 'zebra');
    await waitForFirstRow(page, 'Zebra help desk');
    assert.equal(await page.getByLabel('Search sites').inputValue(), 'zebra ');
    await page.getByLabel('Search sites').fill('no such site');
    await page.getByRole('heading', { name: 'No sites match “no such site”' }).waitFor();
    await page.getByRole('button', { name: 'Clear search' }).click();
    await waitForFirstRow(page, 'Zebra help desk');
    await page.waitForURL((url) => !url.searchParams.has('q'));
    assert.equal((await rowNames(page)).length, 25);

    // An address with a search opens with it.
    await page.goto(`${origin}/sites?q=site%2006&sort=name`);
    await waitForFirstRow(page, 'Site 060');
    assert.deepEqual(await rowNames(page), ['Site 060', 'Site 061', 'Site 062', 'Site 063', 'Site 064']);
    assert.equal(await page.getByLabel('Search sites').inputValue(), 'site 06');
  } finally {
    await dashboard.close();
  }
});

test('dark mode follows the system, the switch overrides it and is remembered; the server-rendered pages follow the system too', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    await assertBackground(page, DARK_BACKGROUND);
    await page.emulateMedia({ colorScheme: 'light' });
    await assertBackground(page, LIGHT_BACKGROUND);

    // The switch wins over the system, and is still chosen after a reload.
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    const theme = page.getByRole('combobox', { name: 'Theme' });
    assert.equal(await theme.inputValue(), 'system');
    await theme.selectOption('dark');
    await assertBackground(page, DARK_BACKGROUND);
    await page.reload();
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    await assertBackground(page, DARK_BACKGROUND);
    assert.equal(await page.getByRole('combobox', { name: 'Theme' }).inputValue(), 'dark');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await assertBackground(page, LIGHT_BACKGROUND, 'light chosen on a dark system');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
    await assertBackground(page, DARK_BACKGROUND, 'back to the system, which is dark');
    assert.equal(await page.evaluate(() => window.localStorage.getItem('siteward.theme')), null);

    // The e-mail link's page has no script: it follows the system alone.
    await page.goto(`${origin}/magic?token=unknown`);
    await page.getByRole('heading', { name: 'This sign-in link no longer works' }).waitFor();
    await assertBackground(page, DARK_BACKGROUND);
    await page.emulateMedia({ colorScheme: 'light' });
    await assertBackground(page, LIGHT_BACKGROUND);
  } finally {
    await dashboard.close();
  }
});

test('signing out with unsaved edits asks first; the back button and reload ask too', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Guarded site' });
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    await sitesList(page).getByRole('link', { name: 'Guarded site' }).click();
    await page.getByRole('heading', { name: 'Guarded site', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Guarded site, edited');

    // Each dialog is awaited itself: the screen looks the same before it appears as after.
    const nextDialog = () =>
      new Promise<string>((resolve) => {
        page.once('dialog', (dialog) => {
          resolve(`${dialog.type()}: ${dialog.message()}`);
          void dialog.dismiss();
        });
      });
    let asked = nextDialog();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    assert.match(await asked, /^confirm: .*unsaved changes/i, 'signing out asked');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Guarded site, edited', 'the edit is still there');
    const stillSignedIn = await page.evaluate(async () => (await fetch('/api/v1/me')).status);
    assert.equal(stillSignedIn, 200);

    // The back button: the list is one step back, and the guard holds it.
    asked = nextDialog();
    await page.evaluate(() => window.history.back());
    assert.match(await asked, /unsaved changes/i, 'the back button asked');
    await page.waitForFunction(() => window.location.pathname.startsWith('/sites/'));
    assert.equal(new URL(page.url()).pathname, `/sites/${site.id}`);
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Guarded site, edited');

    // Reloading asks through the browser's own dialog.
    const beforeUnload = new Promise<string>((resolve) => {
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      });
    });
    void page.evaluate(() => window.location.reload());
    assert.equal(await beforeUnload, 'beforeunload');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Guarded site, edited');

    // Choosing to leave signs out, and the edit is dropped as asked.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    assert.equal(await page.evaluate(async () => (await fetch('/api/v1/me')).status), 401);
    assert.equal(await readSiteName(t, user.email, site.id), 'Guarded site');
  } finally {
    await dashboard.close();
  }
});

test('a session ended from another device: saving opens a sign-in dialog over the editor, and the draft is saved after signing in', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Long edit' });
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/sites/${site.id}`);
    await page.getByRole('heading', { name: 'Long edit', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Long edit, finished');

    // "Sign out everywhere" from another device ends this browser's session too.
    const everywhere = await t.app.inject({ method: 'DELETE', url: '/api/v1/me/sessions', headers: { authorization: user.bearer } });
    assert.equal(everywhere.statusCode, 204);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Done, I signed in there' }).waitFor();
    await dashboard.screenshot('sign-in-again-dialog');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Long edit, finished', 'the draft is still on screen');

    // A wrong password is said so in the dialog; the right one carries on with the save.
    await dialog.getByLabel('Password').fill('not the password at all');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.getByText('That is not your password.').waitFor();
    await dialog.getByLabel('Password').fill(STRONG_PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Long edit, finished', level: 1 }).waitFor();
    assert.equal(await readSiteName(t, user.email, site.id), 'Long edit, finished');
    assert.equal(await page.evaluate(async () => (await fetch('/api/v1/me')).status), 200, 'signed in again');
  } finally {
    await dashboard.close();
  }
});

test('unknown addresses show the not-found screen; focus moves to each new screen\'s heading', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

    const focused = () => page.evaluate(() => `${document.activeElement?.tagName ?? ''} ${document.activeElement?.textContent ?? ''}`);
    // The clicked link has the heading's words and holds focus until the new screen takes it.
    const headingFocused = (name: string) => page.waitForFunction(
      (text) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === text, name);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    await headingFocused('Profile');
    assert.equal(await focused(), 'H1 Profile');
    assert.equal(await page.title(), 'Profile · Siteward');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Security' }).click();
    await headingFocused('Security');
    assert.equal(await focused(), 'H1 Security');
    assert.equal(await page.title(), 'Security · Siteward');
    await page.goBack();
    await headingFocused('Profile');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    await headingFocused('Sites');
    assert.equal(await page.title(), 'Sites · Siteward');
    // The next Tab continues from the heading, not from the top of the page.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Trash');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'New site');

    // An address the dashboard does not know, reached inside the app.
    await page.evaluate(() => {
      window.history.pushState(null, '', '/no/such/screen');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    assert.equal(await page.title(), 'Not found · Siteward');
    await dashboard.screenshot('not-found');
    await page.getByRole('link', { name: 'Go to your sites' }).click();
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

    // Loaded directly: the server answers 404 with the dashboard, which shows the same screen.
    const direct = await page.goto(`${origin}/nope`);
    assert.equal(direct?.status(), 404);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign out', exact: true }).count(), 1, 'inside the signed-in frame');
    const section = await page.goto(`${origin}/sites/${'0'.repeat(8)}-0000-7000-8000-000000000000/no-such-section`);
    assert.equal(section?.status(), 200, 'an editor section address is a screen of its own');

    // Signed out, an unknown address says so too, with the way to sign in.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    await page.goto(`${origin}/nope`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Go to sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
  } finally {
    await dashboard.close();
  }
});

test('at 320 px no screen scrolls sideways and Sign out is in view', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 320, height: 640 } });
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'A site with a rather long name that has to wrap somewhere', partner_settings: { enabled: true } });
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    assert.equal(await scrollsSideways(page), false, '/sign-in');
    await page.goto(`${origin}/sign-up`);
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    assert.equal(await scrollsSideways(page), false, '/sign-up');

    await signInPage(page, origin, user.email);
    const screens: Array<[string, string]> = [
      ['/', 'Sites'],
      [`/sites/${site.id}`, site.name],
      ['/settings/profile', 'Profile'],
      ['/settings/access-tokens', 'Access tokens'],
      ['/settings/security', 'Security'],
    ];
    for (const [path, heading] of screens) {
      await page.goto(`${origin}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      assert.equal(await scrollsSideways(page), false, `${path} scrolls sideways`);
      const signOut = await page.getByRole('button', { name: 'Sign out', exact: true }).boundingBox();
      assert.ok(signOut !== null && signOut.x >= 0 && signOut.x + signOut.width <= 320, `Sign out is cut off on ${path}`);
    }
    await dashboard.screenshot('sites-list-320');
  } finally {
    await dashboard.close();
  }
});

test('cold load with 200 sites: the time to the first site row is reported', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    for (let index = 1; index <= 200; index += 1) {
      await createSite(t.app, user.bearer, { name: `Cold site ${index}`, ai_settings: '{"model":"small"}', widget: 'x'.repeat(2000) });
    }
    await signInPage(page, origin, user.email);
    // A browser profile of its own: nothing cached, only the session cookie carried over.
    const { context, page: cold, settled } = await dashboard.newDevice();
    await context.addCookies(await dashboard.context.cookies());
    // Timed in a browser that has finished starting, with the first one gone: the load is the page's.
    await dashboard.context.close();
    await settled();
    // The page says when its first row is in, on the console: waiting through a locator would run
    // Playwright's own script in the page just before the first render, inside the figure
    // (docs/decisions/dashboard-first-load.md).
    await cold.addInitScript(() => {
      const observer = new MutationObserver(() => {
        if (document.querySelector('.site-row .site-name') === null) return;
        (window as unknown as { firstRowAt: number }).firstRowAt = performance.now();
        observer.disconnect();
        console.debug('first site row');
      });
      observer.observe(document, { childList: true, subtree: true });
    });
    // Each address the page asked the server for, counted: an early start must not ask twice.
    const asked = new Map<string, number>();
    cold.on('request', (request) => {
      const { pathname } = new URL(request.url());
      asked.set(pathname, (asked.get(pathname) ?? 0) + 1);
    });
    const firstRowShown = cold.waitForEvent('console', (message) => message.text() === 'first site row');
    await cold.goto(`${origin}/`);
    await firstRowShown;
    const firstRowAt = await cold.evaluate(() => (window as unknown as { firstRowAt: number }).firstRowAt);
    assert.ok(Number.isFinite(firstRowAt) && firstRowAt > 0);
    await cold.waitForLoadState('networkidle');
    for (const path of ['/api/v1/me', '/api/v1/sites']) assert.equal(asked.get(path), 1, `${path} was requested ${String(asked.get(path) ?? 0)} times`);
    // Where the time went: the page itself, then when each request the page made started and ended.
    const timings = await cold.evaluate(() => {
      // The browser's Performance API (Node's types know fewer entry types).
      const timeline = performance as unknown as { getEntriesByType(type: string): unknown[] };
      const entries = timeline.getEntriesByType('resource') as Array<{ name: string; startTime: number; requestStart: number; responseEnd: number }>;
      const [navigation] = timeline.getEntriesByType('navigation') as Array<{ responseEnd: number; domContentLoadedEventEnd: number } | undefined>;
      return {
        html: Math.round(navigation?.responseEnd ?? Number.NaN),
        ready: Math.round(navigation?.domContentLoadedEventEnd ?? Number.NaN),
        requests: entries.map((entry) => ({ path: new URL(entry.name).pathname, start: Math.round(entry.startTime), sent: Math.round(entry.requestStart), end: Math.round(entry.responseEnd) })),
      };
    });
    const started = (path: string) => timings.requests.find((request) => request.path === path)?.start ?? Number.NaN;
    // Asked for, sent (later when it waited for one of the browser's six connections), answered.
    const requests = timings.requests.map((request) => `${request.path} ${request.start}/${request.sent}–${request.end} ms`);
    console.log(
      `diagnostic: cold load with 200 sites, first site row visible ${Math.round(firstRowAt)} ms after navigation start; /api/v1/me started at ${started('/api/v1/me')} ms, /api/v1/sites at ${started('/api/v1/sites')} ms; ` +
        `page received ${timings.html} ms, entry script run (DOMContentLoaded) by ${timings.ready} ms; requests (asked/sent–answered): ${requests.join(', ')}`,
    );
  } finally {
    await dashboard.close();
  }
});
