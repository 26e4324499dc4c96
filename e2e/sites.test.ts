import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import type { App } from '../src/http/types.js';
import { createSite, type SignedUpUser, signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { type Dashboard, openDashboard } from './harness.js';
import type { SiteJson } from '../src/sites/schema.js';

/**
 * Signs the user in with the web session cookie. The sign-in screen is tested on its own; here the
 * page posts the credentials itself, as the screen would, from the app's origin (CSRF rule).
 */
async function signIn(dashboard: Dashboard, user: SignedUpUser): Promise<void> {
  const { page, origin } = dashboard;
  await page.goto(`${origin}/sign-in`);
  const status = await page.evaluate(
    async ({ email, password }) => {
      const response = await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      return response.status;
    },
    { email: user.email, password: STRONG_PASSWORD },
  );
  assert.ok(status >= 200 && status < 300, `web sign-in answered ${status}`);
  await page.goto(`${origin}/`);
  await page.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
}

async function readSite(app: App, user: SignedUpUser, id: string): Promise<{ status: number; site: SiteJson | undefined }> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: user.bearer } });
  return { status: response.statusCode, site: response.statusCode === 200 ? response.json<{ site: SiteJson }>().site : undefined };
}

async function mustReadSite(app: App, user: SignedUpUser, id: string): Promise<SiteJson> {
  const { status, site } = await readSite(app, user, id);
  assert.equal(status, 200);
  assert.ok(site !== undefined);
  return site;
}

function isSitePut(request: Request): boolean {
  return request.method() === 'PUT' && /\/api\/v1\/sites\/[^/]+$/.test(new URL(request.url()).pathname);
}

/** Clicks Save and answers the PUT the page sent. */
async function saveAndCapture(page: Page): Promise<Request> {
  const sent = page.waitForRequest(isSitePut);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  return sent;
}

async function waitForSaveState(page: Page, text: string): Promise<void> {
  await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: new RegExp(`^${text}$`) }).waitFor();
}

/** Opens an editor section from its side navigation, e.g. "Branding & theme" at …/branding. */
async function openSection(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: new RegExp(`^${title}`) }).click();
  await page.locator('.section-heading').getByRole('heading', { name: title, exact: true }).waitFor();
}

/** A settings group's JSON tab (CodeMirror), opened in the section that holds the group. */
async function settingsJson(page: Page, section: string, group: string) {
  await openSection(page, section);
  const tab = page.getByRole('tablist', { name: `${group}: view` }).getByRole('tab', { name: 'JSON' });
  if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
  const box = page.getByRole('textbox', { name: `${group} JSON`, exact: true });
  await box.waitFor();
  return box;
}

function settingsStatus(page: Page, text: string | RegExp) {
  return page.locator('.json-editor .settings-status').getByText(text);
}

function siteIdFromUrl(url: string): string {
  const match = /\/sites\/([^/?]+)$/.exec(new URL(url).pathname);
  assert.ok(match?.[1] !== undefined, `not a site editor address: ${url}`);
  return decodeURIComponent(match[1]);
}

test('the sites list: empty state, a site created in the UI, rows that say what is configured and how the partner is, no delete on rows', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page } = dashboard;
  try {
    const user = await signUp(t.app);
    await signIn(dashboard, user);

    await page.getByRole('heading', { name: 'No sites yet — create your first' }).waitFor();
    await dashboard.screenshot('sites-list-empty');

    await page.getByRole('button', { name: 'New site' }).click();
    const dialog = page.getByRole('dialog', { name: 'New site' });
    await dialog.waitFor();
    // An empty name is refused by the form before anything is sent.
    await dialog.getByRole('button', { name: 'Create site' }).click();
    await dialog.getByText('Enter a name.').waitFor();
    await dialog.getByLabel('Site name').fill('Help centre');
    await dialog.getByRole('textbox', { name: 'Colour', exact: true }).fill('#e11d48');
    await dashboard.screenshot('sites-new-site-form');
    await dialog.getByRole('button', { name: 'Create site' }).click();

    await page.waitForURL(/\/sites\/[^/]+$/);
    const siteId = siteIdFromUrl(page.url());
    await page.getByRole('heading', { name: 'Help centre', level: 1 }).waitFor();
    const created = await mustReadSite(t.app, user, siteId);
    assert.equal(created.name, 'Help centre');
    assert.equal(created.color, '#e11d48');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    const list = page.getByRole('region', { name: 'Your sites' });
    await list.getByRole('link', { name: 'Help centre' }).waitFor();
    assert.equal(await list.getByText('Partner disabled').count(), 1);
    assert.equal(await list.getByText('Nothing configured yet').count(), 1);

    // A second site with settings and an enabled, unchecked integration shows both in its row.
    t.clock.advance(1000);
    await createSite(t.app, user.bearer, { name: 'Sales assistant', color: '#0ea5e9', ai_settings: '{"model":"small"}', widget: '{"position":"left"}', partner_settings: { enabled: true } });
    await page.reload();
    const row = list.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Sales assistant' }) });
    await row.waitFor();
    await row.getByText('Partner not checked').waitFor();
    await row.getByText('Configured: AI, Widget').waitFor();
    await list.getByText('1–2 of 2 sites').waitFor();
    // Deleting lives in the editor's danger zone, not one click away on every row.
    assert.equal(await list.getByRole('button').count(), 0, 'no buttons on the rows');
    await dashboard.screenshot('sites-list');
    await page.setViewportSize({ width: 375, height: 812 });
    await dashboard.screenshot('sites-list-375');
    await page.setViewportSize({ width: 1440, height: 900 });

    // A row leads to its editor.
    await row.getByRole('link', { name: 'Sales assistant' }).click();
    await page.getByRole('heading', { name: 'Sales assistant', level: 1 }).waitFor();
  } finally {
    await dashboard.close();
  }
});

test('the site editor saves every field, sends only what changed, and never shows the partner token', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page } = dashboard;
  try {
    const user = await signUp(t.app);
    await signIn(dashboard, user);

    await page.getByRole('button', { name: 'New site' }).click();
    const dialog = page.getByRole('dialog', { name: 'New site' });
    await dialog.getByLabel('Site name').fill('Docs');
    await dialog.getByRole('button', { name: 'Create site' }).click();
    await page.waitForURL(/\/sites\/[^/]+$/);
    const siteId = siteIdFromUrl(page.url());
    await page.getByRole('heading', { name: 'Docs', level: 1 }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled(), true, 'nothing to save yet');
    await waitForSaveState(page, 'No changes');

    // General.
    await page.getByLabel('Name', { exact: true }).fill('Docs portal');
    await page.getByRole('textbox', { name: 'Colour', exact: true }).fill('#0a7');
    assert.equal(await page.getByLabel('Colour picker').inputValue(), '#00aa77', 'the picker follows the hex field');
    await waitForSaveState(page, 'Unsaved changes');

    // Settings groups through their JSON tabs (their forms are tested in site-editor.test.ts): keys
    // the schema does not name are kept, and Format JSON pretty-prints.
    const aiJson = '{"model":"large","temperature":0.2,"prompts":["be brief"]}';
    const aiBox = await settingsJson(page, 'AI', 'AI assistant');
    await aiBox.fill(aiJson);
    await settingsStatus(page, 'Valid: matches the settings\' shape.').waitFor();
    await page.getByRole('button', { name: 'Format JSON' }).click();
    const aiFormatted = JSON.stringify(JSON.parse(aiJson), null, 2);
    // CodeMirror draws each line as an element of its own: the text has no line breaks.
    assert.equal(await aiBox.textContent(), aiFormatted.replaceAll('\n', ''));

    const json: Array<[section: string, group: string, value: string]> = [
      ['E-mail', 'E-mail', '{"sender_name":"Help","reply_to":"support@example.com"}'],
      ['Widget', 'Chat widget', '{"position":"bottom-right"}'],
      ['Portal', 'Help portal', '{"title":"Guides","sections":["guides","faq"]}'],
      ['Branding & theme', 'Branding', '{"logo_url":"https://example.com/logo.svg"}'],
      ['Branding & theme', 'Public theme', '{"appearance":"light"}'],
      ['Knowledge', 'Knowledge sources', '{"sources":[{"type":"sitemap","url":"https://example.com/sitemap.xml"}]}'],
    ];
    for (const [section, group, value] of json) {
      await (await settingsJson(page, section, group)).fill(value);
      await page.getByRole('region', { name: new RegExp(`^${group}`) }).locator('.settings-status').getByText('Valid: matches the settings\' shape.').waitFor();
    }

    // Text that is not JSON is a visible warning and blocks the save: no request leaves the page.
    const portalBox = await settingsJson(page, 'Portal', 'Help portal');
    await portalBox.fill('{"sections": [');
    await settingsStatus(page, /^Not valid JSON: /).waitFor();
    let puts = 0;
    const countPuts = (request: Request) => {
      if (isSitePut(request)) puts += 1;
    };
    page.on('request', countPuts);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'The site was not saved' }).getByText('Help portal').waitFor();
    assert.equal(puts, 0, 'invalid JSON was not sent');
    page.off('request', countPuts);
    await portalBox.fill(json[2]?.[2] ?? '');

    // Partner integration: every field, tags and toggles included.
    await openSection(page, 'Integration');
    await page.getByLabel('Integration enabled').check();
    await page.getByLabel('Read enabled').uncheck();
    await page.getByLabel('Write enabled').check();
    await page.getByLabel('Base URL').fill('https://partner.example.com/');
    await page.getByLabel('MCP URL').fill('https://partner.example.com/mcp');
    await page.getByLabel('Project ID', { exact: true }).fill('proj-42');
    await page.getByLabel('Auth type').selectOption('token');
    const collections = page.getByRole('textbox', { name: 'Collections', exact: true });
    await collections.fill('faq');
    await collections.press('Enter');
    await collections.pressSequentially('guides,');
    await collections.pressSequentially('scratch');
    await collections.press('Enter');
    assert.equal(await collections.inputValue(), '', 'the input empties after each tag');
    // Backspace in the empty input removes the last tag; a tag's own button removes it too.
    await collections.press('Backspace');
    await collections.pressSequentially('temporary');
    await collections.press('Enter');
    await page.getByRole('button', { name: 'Remove temporary from Collections' }).click();
    assert.deepEqual(await page.getByRole('list', { name: 'Collections: added' }).getByRole('listitem').allTextContents(), ['faq×', 'guides×']);
    const sources = page.getByRole('textbox', { name: 'Widget search sources', exact: true });
    await sources.pressSequentially('docs,blog');
    await sources.press('Enter');
    await page.getByLabel('Widget project ID').fill('widget-7');
    const token = 'partner-secret-7f3a9c';
    await page.getByRole('group', { name: 'Access token' }).getByRole('button', { name: 'Set token' }).click();
    await page.getByLabel('New access token').fill(token);
    await page.getByRole('region', { name: 'Partner integration' }).scrollIntoViewIfNeeded();
    await dashboard.screenshot('site-editor-partner');

    const firstPut = await saveAndCapture(page);
    await waitForSaveState(page, 'Saved');
    assert.ok((firstPut.headers()['if-match'] ?? '') !== '', 'the save carries If-Match');
    const firstBody = firstPut.postDataJSON() as Record<string, unknown>;
    assert.deepEqual(Object.keys(firstBody).sort(), [
      'ai_settings',
      'branding',
      'color',
      'email_settings',
      'knowledge_sources',
      'name',
      'partner_settings',
      'portal',
      'public_theme',
      'widget',
    ]);
    assert.deepEqual(Object.keys(firstBody.partner_settings as Record<string, unknown>).sort(), [
      'access_token',
      'auth_type',
      'base_url',
      'collections',
      'enabled',
      'mcp_url',
      'project_id',
      'read_enabled',
      'widget_project_id',
      'widget_search_sources',
      'write_enabled',
    ]);

    const saved = await mustReadSite(t.app, user, siteId);
    assert.equal(saved.name, 'Docs portal');
    assert.equal(saved.color, '#0a7');
    assert.equal(saved.ai_settings, aiFormatted);
    assert.deepEqual(
      [saved.email_settings, saved.widget, saved.portal, saved.branding, saved.public_theme, saved.knowledge_sources],
      json.map(([, , value]) => value),
      'each group is stored exactly as typed',
    );
    assert.deepEqual(
      { ...saved.partner_settings, last_checked_at: undefined },
      {
        enabled: true,
        base_url: 'https://partner.example.com/',
        mcp_url: 'https://partner.example.com/mcp',
        project_id: 'proj-42',
        auth_type: 'token',
        access_token_configured: true,
        read_enabled: false,
        write_enabled: true,
        collections: ['faq', 'guides'],
        widget_project_id: 'widget-7',
        widget_search_sources: ['docs', 'blog'],
        last_status: 'unchecked',
        last_error: null,
        last_checked_at: undefined,
      },
    );
    // Write-only: the token is neither shown nor kept in the page once saved.
    await page.getByRole('group', { name: 'Access token' }).getByText('Configured').waitFor();
    assert.equal(await page.getByLabel('New access token').count(), 0);
    assert.ok(!(await page.content()).includes(token), 'the token string is not in the page');

    // A second edit sends only the two fields it touched.
    await page.getByLabel('MCP URL').fill('https://partner.example.com/mcp/v2');
    await (await settingsJson(page, 'Branding & theme', 'Public theme')).fill('{"appearance":"dark","custom":true}');
    const secondPut = await saveAndCapture(page);
    await waitForSaveState(page, 'Saved');
    const secondBody = secondPut.postDataJSON() as Record<string, unknown>;
    assert.deepEqual(Object.keys(secondBody).sort(), ['partner_settings', 'public_theme']);
    assert.deepEqual(secondBody.partner_settings, { mcp_url: 'https://partner.example.com/mcp/v2' });
    const afterSecond = await mustReadSite(t.app, user, siteId);
    assert.equal(afterSecond.partner_settings.mcp_url, 'https://partner.example.com/mcp/v2');
    assert.equal(afterSecond.public_theme, '{"appearance":"dark","custom":true}');
    assert.equal(afterSecond.name, 'Docs portal', 'untouched fields keep their value');
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await dashboard.screenshot('site-editor-top');

    // The server's own verdict on a URL appears next to that field, and the summary names its label.
    await openSection(page, 'Integration');    await page.getByLabel('Base URL').fill('ftp://files.example.com/');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'The site was not saved' }).getByText('Base URL', { exact: true }).waitFor();
    const baseUrl = page.getByLabel('Base URL');
    assert.equal(await baseUrl.getAttribute('aria-invalid'), 'true');
    const describedBy = ((await baseUrl.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id !== '');
    const descriptions = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    const description = descriptions.join(' ');
    assert.match(description, /must be empty or an absolute http\(s\) URL/);
    assert.equal((await mustReadSite(t.app, user, siteId)).partner_settings.base_url, 'https://partner.example.com/');
    await baseUrl.fill('https://partner.example.com/');
    assert.equal(await baseUrl.getAttribute('aria-invalid'), 'false', 'editing the field clears its error');

    // Clearing the token asks first, then sends access_token "".
    await page.getByRole('group', { name: 'Access token' }).getByRole('button', { name: 'Clear' }).click();
    const clearDialog = page.getByRole('dialog', { name: 'Clear the access token?' });
    await clearDialog.getByRole('button', { name: 'Clear token' }).click();
    await page.getByText('Will be cleared').waitFor();
    const clearPut = await saveAndCapture(page);
    await waitForSaveState(page, 'Saved');
    assert.deepEqual(clearPut.postDataJSON(), { partner_settings: { access_token: '' } });
    assert.equal((await mustReadSite(t.app, user, siteId)).partner_settings.access_token_configured, false);
    await page.getByRole('group', { name: 'Access token' }).getByText('Not set').waitFor();

    await page.setViewportSize({ width: 375, height: 812 });
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await dashboard.screenshot('site-editor-375');
  } finally {
    await dashboard.close();
  }
});

test('a save over someone else\'s newer save is refused with an explanation, and leaving with unsaved edits asks first', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Shared site' });
    await signIn(dashboard, user);
    await page.goto(`${origin}/sites/${site.id}`);
    await page.getByRole('heading', { name: 'Shared site', level: 1 }).waitFor();

    // Another writer saves after the editor loaded.
    const other = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer }, payload: { name: 'Renamed elsewhere', portal: '{"title":"Theirs"}' } });
    assert.equal(other.statusCode, 200);

    const portal = await settingsJson(page, 'Portal', 'Help portal');
    await portal.fill('{"title":"Mine"}');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Someone else saved this site since you opened it').waitFor();
    await dashboard.screenshot('site-editor-conflict');
    // Nothing was overwritten, and the edit is still on screen.
    const stored = await mustReadSite(t.app, user, site.id);
    assert.equal(stored.name, 'Renamed elsewhere');
    assert.equal(stored.portal, '{"title":"Theirs"}');
    assert.equal(await portal.textContent(), '{"title":"Mine"}');

    // Leaving with unsaved edits asks; dismissing keeps the editor and the edits.
    // The dialog is awaited itself: the heading is on screen before the click, so it proves nothing.
    const leaving = new Promise<string>((resolve) => {
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.dismiss();
      });
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    assert.match(await leaving, /unsaved changes/i);
    await page.getByRole('heading', { name: 'Shared site', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/sites/${site.id}/portal`);
    assert.equal(await portal.textContent(), '{"title":"Mine"}');

    // The person chooses to take the other version.
    await page.getByRole('button', { name: 'Reload their version (your changes will be lost)' }).click();
    await page.getByRole('heading', { name: 'Renamed elsewhere', level: 1 }).waitFor();
    await waitForSaveState(page, 'No changes');
    // Their version matches the shape, so its form can show it.
    await page.getByRole('tab', { name: 'Form' }).click();
    const title = page.getByLabel('Portal title');
    assert.equal(await title.inputValue(), 'Theirs');

    // With their version loaded, a save goes through with the new ETag.
    await title.fill('Theirs, extended');
    await saveAndCapture(page);
    await waitForSaveState(page, 'Saved');
    assert.deepEqual(JSON.parse((await mustReadSite(t.app, user, site.id)).portal), { title: 'Theirs, extended' });

    // Nothing unsaved: leaving does not ask.
    let asked = false;
    page.once('dialog', (dialog) => {
      asked = true;
      void dialog.dismiss();
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    await page.getByRole('region', { name: 'Your sites' }).waitFor();
    assert.equal(asked, false);

    // An unknown site gets its own screen.
    await page.goto(`${origin}/sites/00000000-0000-7000-8000-000000000000`);
    await page.getByRole('heading', { name: 'Site not found' }).waitFor();
  } finally {
    await dashboard.close();
  }
});

test('Check now records a refused loopback address as an error, shown as the API stores it', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Partner site' });
    await signIn(dashboard, user);
    await page.goto(`${origin}/sites/${site.id}`);
    await page.getByRole('heading', { name: 'Partner site', level: 1 }).waitFor();
    await openSection(page, 'Integration');
    const connection = page.getByRole('group', { name: 'Connection' });
    await connection.getByText('Not checked').waitFor();

    await page.getByLabel('Integration enabled').check();
    await page.getByLabel('Base URL').fill('http://127.0.0.1:9/');
    await page.getByLabel('Auth type').selectOption('none');
    // Unsaved partner edits: the UI says the check uses the saved settings.
    await connection.getByText('The check uses the saved settings').waitFor();
    await saveAndCapture(page);
    await waitForSaveState(page, 'Saved');
    assert.equal(await connection.getByText('The check uses the saved settings').count(), 0);

    await connection.getByRole('button', { name: 'Check now' }).click();
    await connection.getByText('Error', { exact: true }).waitFor();
    const stored = (await mustReadSite(t.app, user, site.id)).partner_settings;
    assert.equal(stored.last_status, 'error');
    assert.ok(stored.last_checked_at !== null);
    assert.ok(stored.last_error !== null && stored.last_error !== '');
    await connection.getByText(stored.last_error).waitFor();
    const checkedAt = connection.locator('time');
    assert.equal(await checkedAt.getAttribute('datetime'), stored.last_checked_at);
    assert.ok(((await checkedAt.getAttribute('title')) ?? '') !== '', 'the exact time is in the title');
    await page.getByRole('region', { name: 'Partner integration' }).scrollIntoViewIfNeeded();
    await dashboard.screenshot('site-editor-partner-check');

    // The check moved the ETag; the editor took it up, so the next save is not a false conflict.
    await page.getByLabel('Project ID', { exact: true }).fill('after-check');
    await saveAndCapture(page);
    await waitForSaveState(page, 'Saved');
    const after = (await mustReadSite(t.app, user, site.id)).partner_settings;
    assert.equal(after.project_id, 'after-check');
    assert.equal(after.last_status, 'error', 'the save kept the check result');

    // The list shows the integration's state too.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    await page.getByRole('region', { name: 'Your sites' }).getByText('Partner error').waitFor();
  } finally {
    await dashboard.close();
  }
});
