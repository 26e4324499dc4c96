import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { createSite, signUp } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { type Dashboard, openDashboard } from './harness.js';

// The sites list at a glance in a real Chromium: dense rows that nothing pushes down while the
// parts around them load (layout shift measured by the browser), j and k through the rows, and a
// one-row header on a phone.

// What the page-side callbacks touch; they run in the browser, where these exist.
interface LayoutShift {
  value: number;
  hadRecentInput: boolean;
}
declare const window: { siteLayoutShift: number };
declare const PerformanceObserver: new (callback: (list: { getEntries(): LayoutShift[] }) => void) => { observe(options: { type: string; buffered: boolean }): void };
declare const document: { activeElement: { textContent: string | null; className: string; tagName: string } | null };
declare function getComputedStyle(element: object): { backgroundColor: string };

/** Adds up the page's layout shifts (CLS, as the browser reports them), from its first script on. */
async function measureLayoutShift(page: Page): Promise<void> {
  await page.addInitScript(() => {
    window.siteLayoutShift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.siteLayoutShift += entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** A workspace that requires review, with sites and a change waiting for review; its owner signed in on a new device. */
async function siteListWithReviews(dashboard: Dashboard, sites: number): Promise<{ page: Page; names: string[] }> {
  const { t, origin } = dashboard;
  const owner = await signUp(t.app);
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Support team' } });
  assert.equal(created.statusCode, 201, created.body);
  const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
  const policy = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspaceId}`, headers: { authorization: owner.bearer }, payload: { review: { required: true, approvals: 1 } } });
  assert.equal(policy.statusCode, 200, policy.body);
  const names: string[] = [];
  for (let index = 0; index < sites; index++) {
    const name = `Shop ${String(index + 1).padStart(2, '0')}`;
    names.push(name);
    const site = await createSite(t.app, owner.bearer, { name, workspace_id: workspaceId });
    if (index < 2) {
      const proposed = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${site.id}/change-requests`, headers: { authorization: owner.bearer }, payload: { title: `Warmer greeting ${index + 1}`, changes: { widget: '{"greeting":"Welcome aboard"}' } } });
      assert.equal(proposed.statusCode, 201, proposed.body);
    }
  }
  const { page } = await dashboard.newDevice();
  await signInPage(page, origin, owner.email);
  return { page, names };
}

test('the sites list loads with pending reviews without moving its rows (CLS under 0.1), in rows about 40 px high', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { page, names } = await siteListWithReviews(dashboard, 12);
    await measureLayoutShift(page);
    await page.goto(`${dashboard.origin}/`);
    // Everything the screen loads: the rows, the queue waiting for review, each row's usage.
    await page.getByRole('list', { name: 'Waiting for review in Support team' }).getByRole('link', { name: 'Warmer greeting 1' }).waitFor();
    await page.locator('.site-row').filter({ hasText: names[0] ?? '' }).getByTestId('sparkline').waitFor();
    await page.waitForLoadState('networkidle');
    const shift = await page.evaluate(() => window.siteLayoutShift);
    console.log(`diagnostic: the sites list's layout shift while loading: ${shift.toFixed(4)}`);
    assert.ok(shift < 0.1, `the sites list shifted by ${shift.toFixed(4)} while loading`);

    const heights = await page.locator('.site-list > li.site-row').evaluateAll((rows) => rows.map((row) => (row as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height));
    assert.equal(heights.length, names.length);
    for (const height of heights) assert.ok(height >= 36 && height <= 44, `a row is ${height.toFixed(1)} px high`);
    assert.deepEqual(await seriousAccessibilityProblems(page), []);
  } finally {
    await dashboard.close();
  }
});

test('j and k move a visible focus through the rows, Enter opens the focused site, and neither acts in the search box', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { page, names } = await siteListWithReviews(dashboard, 3);
    await page.goto(`${dashboard.origin}/?sort=name`);
    await page.getByRole('link', { name: names[2] ?? '' }).waitFor();
    const focused = () => page.evaluate(() => ({ name: document.activeElement?.textContent ?? '', className: document.activeElement?.className ?? '', tag: document.activeElement?.tagName ?? '' }));
    // Leave whatever focus navigation gave the page: j starts at the first row.
    await page.locator('body').click({ position: { x: 1, y: 300 } });
    await page.keyboard.press('j');
    assert.deepEqual(await focused(), { name: names[0], className: 'site-name', tag: 'A' });
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal((await focused()).name, names[2], 'j stops at the last row');
    await page.keyboard.press('k');
    assert.equal((await focused()).name, names[1]);
    // The focused row shows it: the browser draws the link's focus ring, and the row is highlighted.
    const row = page.locator('.site-row').filter({ hasText: names[1] ?? '' });
    assert.equal(await row.locator('.site-name').evaluate((link) => (link as unknown as { matches(selector: string): boolean }).matches(':focus-visible')), true);
    assert.notEqual(await row.evaluate((element) => getComputedStyle(element).backgroundColor), 'rgba(0, 0, 0, 0)');
    assert.deepEqual(await seriousAccessibilityProblems(page), []);

    // Typing j and k in the search box types them.
    await page.keyboard.press('/');
    await page.keyboard.type('jk');
    assert.equal(await page.getByLabel('Search sites').inputValue(), 'jk');
    assert.equal((await focused()).tag, 'INPUT');
    await page.goto(`${dashboard.origin}/?sort=name`);
    await page.getByRole('link', { name: names[2] ?? '' }).waitFor();
    await page.locator('body').click({ position: { x: 1, y: 300 } });
    await page.keyboard.press('k');
    assert.equal((await focused()).name, names[2], 'k from nowhere starts at the last row');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: names[2], level: 1 }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/sites\/[^/]+$/);
  } finally {
    await dashboard.close();
  }
});

test('at 390 px the header is one row and search is a button named and labelled "Search"', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 390, height: 844 } });
  try {
    const { page } = await siteListWithReviews(dashboard, 1);
    await page.goto(`${dashboard.origin}/`);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    const header = page.locator('header.topbar');
    const height = (await header.boundingBox())?.height ?? Number.POSITIVE_INFINITY;
    assert.ok(height <= 64, `the header is ${height.toFixed(1)} px high`);
    const search = header.getByRole('button', { name: 'Search', exact: true });
    assert.ok(await search.isVisible());
    assert.equal((await search.innerText()).trim(), 'Search', 'the button shows its label, not the key');
    // Everything in the header is within the window, on the one row.
    const boxes = await header.locator('a, button, select').evaluateAll((elements) =>
      elements.map((element) => (element as unknown as { getBoundingClientRect(): { top: number; right: number } }).getBoundingClientRect()).map((box) => ({ top: box.top, right: box.right })),
    );
    for (const box of boxes) assert.ok(box.right <= 390 + 0.5, `a header control ends at ${box.right.toFixed(1)} px`);
    await search.click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    assert.deepEqual(await seriousAccessibilityProblems(page), []);
    await dashboard.screenshot('sites-header-390', page);
  } finally {
    await dashboard.close();
  }
});
