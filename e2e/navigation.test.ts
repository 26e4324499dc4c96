import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { createSite, createWorkspace, signUp } from '../test/helpers.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// Moving around the dashboard never breaks it: every screen of Settings, then every place the top
// bar leads to, in one browser session (so each screen meets the query cache the one before left,
// which is where two screens caching different shapes under one key used to crash the app). And
// when a screen does fail, the error screen keeps the top bar and offers a reload.

const ERROR_HEADING = /Something went wrong/;

async function assertNoErrorScreen(page: Page, where: string): Promise<void> {
  assert.equal(await page.getByRole('heading', { name: ERROR_HEADING }).count(), 0, `the error screen showed ${where}`);
}

test('every top-bar destination opens from every settings screen, without an error screen', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    const user = await signUp(t.app);
    await createSite(t.app, user.bearer, { name: 'Help centre' });
    const teamId = await createWorkspace(t.app, user, 'Support team');
    await signInPage(page, origin, user.email);

    const settingsScreens = [
      { path: '/settings/profile', heading: 'Profile' },
      { path: '/settings/access-tokens', heading: 'Access tokens' },
      { path: '/settings/security', heading: 'Security' },
      { path: '/settings/workspaces', heading: 'Workspaces' },
      { path: `/settings/workspaces/${teamId}`, heading: 'Support team' },
      { path: `/settings/workspaces/${teamId}/audit-log`, heading: 'Audit log' },
      { path: `/settings/workspaces/${teamId}/webhooks`, heading: 'Webhooks' },
    ];
    const topBar = [
      { link: 'Sites', heading: 'Sites' },
      { link: 'Settings', heading: 'Profile' },
      { link: 'Siteward home', heading: 'Sites' },
    ];
    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    for (const screen of settingsScreens) {
      for (const destination of topBar) {
        // Into the settings screen the way a person gets there (client-side navigation), so the cache carries over.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
        await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
        await page.evaluate((path) => {
          window.history.pushState(null, '', path);
          window.dispatchEvent(new PopStateEvent('popstate'));
        }, screen.path);
        await page.getByRole('heading', { name: screen.heading, level: 1 }).first().waitFor();
        // Let the screen's own requests land in the cache before leaving.
        await page.waitForLoadState('networkidle');
        await assertNoErrorScreen(page, `on ${screen.path}`);
        const link = destination.link === 'Siteward home' ? page.getByRole('link', { name: 'Siteward home' }) : page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: destination.link });
        await link.click();
        await page.getByRole('heading', { name: destination.heading, level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        await assertNoErrorScreen(page, `after ${screen.path} → ${destination.link}`);
      }
    }
    // The sites list drew its rows and the workspace switcher from the cache the settings screens filled.
    await page.getByRole('link', { name: 'Help centre' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Workspace', exact: true }).count(), 1);
    assert.deepEqual(errors, []);
  } finally {
    await dashboard.close();
  }
});

test('a screen that fails to load shows the error screen inside the frame, and the top bar and Reload recover', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/settings/profile`);
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    // The Security screen's code cannot be fetched (a deployment replaced it, or the network dropped).
    await page.route('**/assets/Security-*.js', (route) => route.abort());
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Something went wrong on this screen', level: 1 }).waitFor();
    await dashboard.screenshot('screen-error');
    // The frame stays: the top bar leads on, and the error is left behind.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    await assertNoErrorScreen(page, 'after leaving the failed screen');
    // Back on the failed screen, Reload fetches the dashboard afresh.
    await page.goBack();
    await page.getByRole('heading', { name: 'Something went wrong on this screen', level: 1 }).waitFor();
    await page.unroute('**/assets/Security-*.js');
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await assertNoErrorScreen(page, 'after the reload');
  } finally {
    await dashboard.close();
  }
});

declare const window: { history: { pushState(state: null, title: string, url: string): void }; dispatchEvent(event: object): void };
declare class PopStateEvent {
  constructor(type: string);
}
