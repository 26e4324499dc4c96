import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { App } from '../src/http/types.js';
import type { SiteJson } from '../src/sites/schema.js';
import { createSite, signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { type Dashboard, openDashboard } from './harness.js';

// Two tabs edit different settings of one settings group and one setting both: the second save
// meets the first (412), the panel asks only about the setting both changed, and after the choice
// the saved site holds everything else each of them changed.

async function openWidgetSection(dashboard: Dashboard, page: Page, site: { id: string; name: string }): Promise<void> {
  await page.goto(`${dashboard.origin}/sites/${site.id}/widget`);
  await page.getByRole('heading', { name: site.name, level: 1 }).waitFor();
  await page.locator('.section-heading').getByRole('heading', { name: 'Widget', level: 2, exact: true }).waitFor();
}

async function readSite(app: App, authorization: string, id: string): Promise<SiteJson> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization } });
  assert.equal(response.statusCode, 200);
  return response.json<{ site: SiteJson }>().site;
}

async function saveState(page: Page, text: string): Promise<void> {
  await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: new RegExp(`^${text}$`) }).waitFor();
}

test('two tabs change settings of one group: the 412 panel asks only about the setting both changed and keeps the rest of both', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page: first, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Shared widget', widget: '{"greeting":"Hello","position":"bottom-right","launcher_text":"Chat"}' });
    await first.goto(`${origin}/sign-in`);
    const status = await first.evaluate(
      async ({ email, password }) => (await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).status,
      { email: user.email, password: STRONG_PASSWORD },
    );
    assert.ok(status >= 200 && status < 300, `web sign-in answered ${status}`);
    // Two tabs of one browser, both opened on the same version of the site.
    const second = await dashboard.context.newPage();
    await openWidgetSection(dashboard, first, site);
    await openWidgetSection(dashboard, second, site);

    // The first tab moves the widget and renames the launcher, and saves.
    await first.getByLabel('Position').selectOption('bottom-left');
    await first.getByLabel('Launcher text').fill('Ask us');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await saveState(first, 'Saved');

    // The second tab changes the greeting and the launcher too; its save meets the first.
    await second.getByLabel('Greeting').fill('Welcome aboard');
    await second.getByLabel('Launcher text').fill('Help');
    await second.getByRole('button', { name: 'Save', exact: true }).click();
    const panel = second.getByRole('region', { name: 'Choose what to keep' });
    await panel.getByText('You both changed one setting').waitFor();
    // One choice, for the launcher text alone.
    const choices = panel.getByRole('radiogroup');
    assert.equal(await choices.count(), 1);
    assert.equal(await choices.first().getAttribute('aria-label'), 'Which value Chat widget › Launcher text keeps');
    // What is kept without asking, from each side, and the merged preview.
    assert.deepEqual(await panel.getByRole('list', { name: 'Kept from their save' }).getByRole('listitem').allTextContents(), ['Chat widget › Position']);
    assert.deepEqual(await panel.getByRole('list', { name: 'Kept from your changes' }).getByRole('listitem').allTextContents(), ['Chat widget › Greeting']);
    const preview = panel.getByTestId('widget-preview');
    await preview.getByText('Welcome aboard').waitFor();
    await preview.getByText('Ask us').waitFor();
    assert.equal(JSON.parse((await readSite(t.app, user.bearer, site.id)).widget).launcher_text, 'Ask us', 'nothing overwritten yet');

    await panel.getByRole('radio', { name: 'Keep mine' }).check();
    await preview.getByText('Help').waitFor();
    const sent = second.waitForRequest((request) => request.method() === 'PUT' && new URL(request.url()).pathname === `/api/v1/sites/${site.id}`);
    await panel.getByRole('button', { name: 'Save on top of their version' }).click();
    await sent;
    await saveState(second, 'Saved');
    assert.deepEqual(JSON.parse((await readSite(t.app, user.bearer, site.id)).widget), { greeting: 'Welcome aboard', position: 'bottom-left', launcher_text: 'Help' });
    // The history names the settings the merged save changed.
    const versions = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}/versions`, headers: { authorization: user.bearer } })).json<{ versions: Array<{ changes: Array<{ path: string }> }> }>().versions;
    assert.deepEqual(versions[0]?.changes.map((change) => change.path), ['/widget/greeting', '/widget/launcher_text']);
    await second.close();
  } finally {
    await dashboard.close();
  }
});
