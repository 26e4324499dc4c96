import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SiteJson } from '../src/sites/schema.js';
import { signUp } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// The site editor's Install section in a real Chromium against the real app: offered right after a
// site is made, the snippet and its copy button, where the configuration was fetched from, and
// rotating the key with a confirmation that names the 24-hour overlap. Checked through the API
// and the public path, never through the page alone; axe in light and dark.

declare const navigator: { clipboard: { readText(): Promise<string> } };

/** The rules checked: WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

async function accessibilityProblems(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const problem of await seriousAccessibilityProblems(page, { tags: WCAG_AA })) found.push(`${where} (${colorScheme}, ${width} px): ${problem}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
  return found;
}

test('a new site offers its install step; the snippet copies, the pages it was fetched from show, and the key rotates with its 24-hour overlap named', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin, context } = dashboard;
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const user = await signUp(t.app);
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    await page.getByRole('button', { name: /new site/i }).first().click();
    await page.getByLabel('Site name').fill('Shop help');
    await page.getByRole('button', { name: 'Create site' }).click();

    // Right after creating it, the editor offers the next step.
    await page.getByRole('heading', { name: 'Shop help', level: 1 }).waitFor();
    const offer = page.getByRole('region', { name: 'Next: put the site on your pages' });
    await offer.waitFor();
    await offer.getByRole('link', { name: 'Show the install snippet' }).click();
    await page.locator('.section-heading').getByRole('heading', { name: 'Install', level: 2 }).waitFor();
    const siteId = new URL(page.url()).pathname.split('/')[2] ?? '';
    const site = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: user.bearer } })).json<{ site: SiteJson }>().site;

    const snippet = `<script src="${origin}/embed.js" data-site="${site.public_key}" async></script>`;
    await page.getByLabel('Embed snippet', { exact: true }).filter({ hasText: snippet }).waitFor();
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet);
    await page.getByText('No page has loaded it yet').waitFor();

    // A page elsewhere loads the configuration: its origin is listed (this server shows what it saw before writing it).
    const fetched = await fetch(`${origin}/public/v1/sites/${site.public_key}`, { headers: { origin: 'https://shop.example' } });
    assert.equal(fetched.status, 200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('region', { name: 'Where it was fetched from' }).getByText('https://shop.example').waitFor();
    assert.deepEqual(await accessibilityProblems(page, 'install section'), []);
    await dashboard.screenshot('site-install');

    // An unsaved edit elsewhere in the editor survives the rotation, and saves after it.
    await page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: /^General/ }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop help desk');
    await page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: /^Install/ }).click();

    await page.getByRole('button', { name: 'Rotate key…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the public key of Shop help?' });
    await dialog.waitFor();
    await dialog.getByText(/keeps working for 24 hours/).waitFor();
    assert.match((await dialog.textContent()) ?? '', new RegExp(`current key, ${site.public_key}, keeps working for 24 hours`));
    assert.deepEqual(await accessibilityProblems(page, 'rotation dialog'), []);
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('status').filter({ hasText: /The key was rotated/ }).waitFor();

    const rotated = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: user.bearer } })).json<{ site: SiteJson }>().site;
    assert.notEqual(rotated.public_key, site.public_key);
    await page.getByLabel('Current public key', { exact: true }).filter({ hasText: rotated.public_key }).waitFor();
    await page.getByLabel('Embed snippet', { exact: true }).filter({ hasText: rotated.public_key }).waitFor();
    await page.getByText(`The previous key, ${site.public_key}, keeps working until`).waitFor();
    // The server refuses another rotation while the previous key answers, and the button says so by being off.
    assert.equal(await page.getByRole('button', { name: 'Rotate key…' }).isDisabled(), true);
    // Both keys answer on the public path during the overlap.
    for (const key of [site.public_key, rotated.public_key]) assert.equal((await fetch(`${origin}/public/v1/sites/${key}`)).status, 200, key);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();
    const saved = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: user.bearer } })).json<{ site: SiteJson }>().site;
    assert.equal(saved.name, 'Shop help desk');
    assert.equal(saved.public_key, rotated.public_key);
  } finally {
    await dashboard.close();
  }
});
