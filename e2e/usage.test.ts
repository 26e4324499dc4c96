import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SiteJson } from '../src/sites/schema.js';
import type { SiteUsageJson } from '../src/usage/schema.js';
import { EventStreamClient } from '../test/event-stream.js';
import { createSite, signUp } from '../test/helpers.js';
import { until } from '../test/wait.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// Usage in a real Chromium against the real app: the sites list's sparkline and the Usage
// section's chart show what the API says, and the section follows new loads while it is open.
// axe in light and dark.

const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

async function accessibilityProblems(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const problem of await seriousAccessibilityProblems(page, { tags: WCAG_AA })) found.push(`${where} (${colorScheme}): ${problem}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('the sparkline and the Usage chart show what the API says, and the section updates while open', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ usage: { flushIntervalMs: 100, liveReportIntervalMs: 100 } });
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site: SiteJson = (await createSite(t.app, user.bearer, { name: 'Counted shop' })) as unknown as SiteJson;
    const load = async () => {
      const response = await fetch(`${origin}/public/v1/sites/${site.public_key}`, { headers: { origin: 'https://shop.example' } });
      await response.arrayBuffer();
      assert.equal(response.status, 200);
    };
    const usage = async (query = '') => (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}/usage${query}`, headers: { authorization: user.bearer } })).json<SiteUsageJson>();
    const total = (answer: SiteUsageJson) => answer.series.reduce((sum, bucket) => sum + bucket.loads, 0);
    for (let i = 0; i < 3; i++) await load();
    await until(async () => total(await usage()) === 3, 'three loads written');

    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    const week = (await usage(`?granularity=day&from=${new Date(Date.now() - 6 * 86_400_000).toISOString()}`)).series.map((bucket) => bucket.loads);
    const sparkline = page.getByTestId('sparkline');
    await sparkline.waitFor();
    assert.equal(await sparkline.getAttribute('data-values'), week.join(','));
    await page.getByText(/Last loaded/).waitFor();
    assert.equal(await page.getByTestId('visitors-now').textContent(), '0');

    await page.goto(`${origin}/sites/${encodeURIComponent(site.id)}/usage`);
    await page.getByRole('heading', { name: 'Loads', level: 2 }).waitFor();
    const hours = (await usage()).series.map((bucket) => bucket.loads);
    assert.equal(await page.getByTestId('usage-chart').getAttribute('data-loads'), hours.join(','));
    assert.equal(await page.getByTestId('usage-loads').textContent(), '3');
    await page.getByRole('row', { name: /https:\/\/shop\.example 3/ }).waitFor();
    assert.deepEqual(await accessibilityProblems(page, 'usage section'), []);
    await dashboard.screenshot('site-usage');

    // While it is open: two more loads and a visitor arrive, and the section follows.
    await load();
    await load();
    const stream = await EventStreamClient.open(`${origin}/public/v1/sites/${site.public_key}/events`);
    try {
      await page.getByTestId('usage-loads').filter({ hasText: /^5$/ }).waitFor({ timeout: 60_000 });
      await page.getByTestId('usage-live').filter({ hasText: /^1$/ }).waitFor({ timeout: 60_000 });
    } finally {
      stream.close();
    }
    assert.equal(await page.getByTestId('usage-chart').getAttribute('data-loads'), (await usage()).series.map((bucket) => bucket.loads).join(','));
  } finally {
    await dashboard.close();
  }
});
