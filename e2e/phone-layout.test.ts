import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { NAME_MAX_LENGTH } from '../src/sites/contract.js';
import { createSite, signUp } from '../test/helpers.js';
import { scrollsSideways, signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// The dashboard on a 390 px phone: what used to stack, drift or run long.

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  assert.ok(found !== null, 'the element is drawn');
  return found;
}

test('at 390 px: the sites header keeps its actions on one row, the banner lines up, the open section stays in view, a long name stays short', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 390, height: 844 } });
  const { t, page, origin } = dashboard;
  try {
    // Unverified, so the confirmation banner shows.
    const user = await signUp(t.app);
    const longName = `Help centre of the ${'very '.repeat(60)}long name`.slice(0, NAME_MAX_LENGTH);
    const site = await createSite(t.app, user.bearer, { name: longName });
    await signInPage(page, origin, user.email);

    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    const trash = await box(page.getByRole('link', { name: 'Trash' }));
    const create = await box(page.getByRole('button', { name: 'New site' }));
    assert.equal(Math.round(trash.y), Math.round(create.y), 'Trash and New site share a row');
    const banner = await box(page.getByRole('region', { name: 'Confirm your e-mail address' }));
    const heading = await box(page.getByRole('heading', { name: 'Sites', level: 1 }));
    assert.ok(Math.abs(banner.x - heading.x) <= 1, `the banner starts where the content does (${banner.x} and ${heading.x})`);
    assert.equal(await scrollsSideways(page), false);
    await dashboard.screenshot('sites-390');

    // The last sections of the editor's row: opening one scrolls it into view.
    await page.goto(`${origin}/sites/${site.id}/history`);
    const title = page.locator('#site-editor-title');
    await title.waitFor();
    const row = page.getByRole('navigation', { name: 'Site settings' }).locator('ul');
    const active = page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: 'History' });
    await page.waitForFunction(
      (selector) => {
        const list = document.querySelector(selector);
        const link = list?.querySelector('[aria-current="page"]');
        if (list === null || list === undefined || link === null || link === undefined) return false;
        const outer = list.getBoundingClientRect();
        const inner = link.getBoundingClientRect();
        return inner.left >= outer.left - 1 && inner.right <= outer.right + 1;
      },
      '.editor-nav ul',
    );
    const rowBox = await box(row);
    const activeBox = await box(active);
    assert.ok(activeBox.x >= rowBox.x - 1 && activeBox.x + activeBox.width <= rowBox.x + rowBox.width + 1, 'History is in view');

    // A 200-character name is a heading of at most two lines, with the whole name as its title.
    const lineHeight = await title.evaluate((element) => Number.parseFloat(getComputedStyle(element).lineHeight));
    assert.ok((await box(title)).height <= lineHeight * 2 + 2, 'the heading is cut to two lines');
    assert.equal(await title.getAttribute('title'), longName);

    // The Name field counts its characters, so the limit is not met silently.
    await page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: 'General' }).click();
    await page.getByText(`${NAME_MAX_LENGTH} of ${NAME_MAX_LENGTH} characters`).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Help');
    await page.getByText(`4 of ${NAME_MAX_LENGTH} characters`).waitFor();
    await dashboard.screenshot('site-editor-390');
  } finally {
    await dashboard.close();
  }
});

// What the page-side callbacks touch; they run in the browser, where these exist.
declare const document: { querySelector(selector: string): { getBoundingClientRect(): { left: number; right: number }; querySelector(selector: string): { getBoundingClientRect(): { left: number; right: number } } | null } | null };
declare function getComputedStyle(element: object): { lineHeight: string };
