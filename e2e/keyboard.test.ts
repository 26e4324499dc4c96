import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { openDashboard } from './harness.js';

// Names the functions passed to page.evaluate use; they run in the browser, where these exist.
interface BrowserElement {
  id: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  closest(selector: string): BrowserElement | null;
}
declare const document: { activeElement: BrowserElement | null; querySelector(selector: string): BrowserElement | null };
declare const CSS: { escape(text: string): string };

/** The name of the focused element: its aria-label, its <label>, or its text. */
function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (element === null) return '';
    const labelled = element.id === '' ? null : document.querySelector(`label[for="${CSS.escape(element.id)}"]`);
    return (element.getAttribute('aria-label') ?? labelled?.textContent ?? element.textContent ?? '').trim();
  });
}

/** Presses Tab until the element named `name` has the focus (it may have it already); fails after `limit` presses. */
async function tabTo(page: Page, name: string, limit = 30): Promise<void> {
  for (let presses = 0; presses <= limit; presses++) {
    if ((await focusedName(page)) === name) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached "${name}"`);
}

test('the keyboard alone signs in, creates a site, saves a change and signs out', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();

    await tabTo(page, 'E-mail');
    await page.keyboard.type(user.email);
    await tabTo(page, 'Password');
    await page.keyboard.type(STRONG_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sites', exact: true }).waitFor();

    await tabTo(page, 'New site');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New site' });
    await dialog.waitFor();
    // The modal takes the focus, and Tab stays inside it.
    assert.ok(await page.evaluate(() => document.activeElement?.closest('dialog[open]') != null), 'the focus moved into the dialog');
    await tabTo(page, 'Site name', 6);
    await page.keyboard.type('Keyboard site');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard site', level: 1 }).waitFor();

    await tabTo(page, 'Name');
    await page.keyboard.press('End');
    await page.keyboard.type(' (edited)');
    await page.keyboard.press('Control+s');
    await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();

    const sites = await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: user.bearer } });
    assert.deepEqual(
      sites.json<{ sites: Array<{ name: string }> }>().sites.map((site) => site.name),
      ['Keyboard site (edited)'],
    );

    await tabTo(page, 'Sign out', 80);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    assert.deepEqual(await dashboard.context.cookies(origin), []);
  } finally {
    await dashboard.close();
  }
});
