import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSite, createWorkspace, signUp } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// The command palette by keyboard alone: open it, type, move with the arrows, go with Enter;
// a site, a setting of the open site by its name, a workspace, and creating a site. And "/"
// puts the cursor in the sites search.

const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

test('the command palette by keyboard alone: a site, a setting by name, a workspace, a new site; "/" searches the list', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Lighthouse help' });
    await createSite(t.app, user.bearer, { name: 'Harbour sales' });
    const teamId = await createWorkspace(t.app, user, 'Support team');
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

    // "/" goes to the search box.
    await page.locator('body').press('/');
    assert.equal(await page.getByLabel('Search sites').evaluate((element) => element === document.activeElement), true);
    await page.keyboard.press('Escape');

    const palette = page.getByRole('dialog', { name: 'Go to or do anything' });
    const box = palette.getByRole('combobox');
    const open = async () => {
      await page.keyboard.press('Control+K');
      await box.waitFor();
    };

    // A site, found by the server's search.
    await open();
    assert.deepEqual(await seriousAccessibilityProblems(page, { tags: WCAG_AA }), []);
    await dashboard.screenshot('command-palette');
    await page.keyboard.type('lighthouse');
    await palette.getByRole('option', { name: /Lighthouse help/, selected: true }).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/sites/${site.id}`);
    await page.getByRole('heading', { name: 'Lighthouse help', level: 1 }).waitFor();
    await palette.waitFor({ state: 'detached' });

    // In a site: one of its settings by name, the second match chosen with the arrow.
    await open();
    await page.keyboard.type('launcher');
    await palette.getByRole('option', { name: /Launcher text/ }).waitFor();
    const options = await palette.getByRole('option').allTextContents();
    const launcher = options.findIndex((text) => text.startsWith('Launcher text'));
    assert.ok(launcher >= 0, options.join(' | '));
    for (let step = 0; step < launcher; step += 1) await page.keyboard.press('ArrowDown');
    assert.equal(await palette.getByRole('option', { selected: true }).getAttribute('id'), await box.getAttribute('aria-activedescendant'));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/sites/${site.id}/widget`);
    // The field itself is focused and marked, so the eye finds it among the others; the mark goes with the focus.
    const launcherField = page.locator('.setting-highlight').getByLabel('Launcher text');
    await launcherField.waitFor();
    assert.equal(await launcherField.evaluate((element) => element === document.activeElement), true, 'the field has the focus');
    await page.keyboard.press('Tab');
    await page.locator('.setting-highlight').waitFor({ state: 'detached' });

    // A workspace.
    await open();
    await page.keyboard.type('support');
    await palette.getByRole('option', { name: /Support team/, selected: true }).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/settings/workspaces/${teamId}`);

    // Escape closes without going anywhere.
    await open();
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    assert.equal(new URL(page.url()).pathname, `/settings/workspaces/${teamId}`);

    // Creating a site: the dialog opens on the sites list.
    await open();
    await page.keyboard.type('create a site');
    await palette.getByRole('option', { name: /Create a site/, selected: true }).waitFor();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New site' });
    await dialog.waitFor();
    await page.keyboard.type('Keyboard made');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard made', level: 1 }).waitFor();
  } finally {
    await dashboard.close();
  }
});

declare const document: { activeElement: unknown };
