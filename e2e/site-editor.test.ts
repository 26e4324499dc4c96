import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator, Page, Request } from 'playwright-core';
import type { App } from '../src/http/types.js';
import type { SiteJson } from '../src/sites/schema.js';
import { WorkspaceService } from '../src/workspaces/service.js';
import { createSite, type SignedUpUser, signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { EventStreamClient } from '../test/event-stream.js';
import { seriousAccessibilityProblems } from './axe.js';
import { type Dashboard, openDashboard } from './harness.js';

// The site editor in a real Chromium against the real app: sections, the settings forms, the JSON
// tab, the widget preview, the danger zone, conflicts and the keyboard. Every save is checked
// through the API, never through the page alone.

async function signIn(dashboard: Dashboard, user: SignedUpUser): Promise<void> {
  const { page, origin } = dashboard;
  await page.goto(`${origin}/sign-in`);
  const status = await page.evaluate(
    async ({ email, password }) => (await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).status,
    { email: user.email, password: STRONG_PASSWORD },
  );
  assert.ok(status >= 200 && status < 300, `web sign-in answered ${status}`);
}

async function readSite(app: App, user: SignedUpUser, id: string): Promise<SiteJson> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200);
  return response.json<{ site: SiteJson }>().site;
}

async function openEditor(dashboard: Dashboard, user: SignedUpUser, site: { id: string; name: string }): Promise<Page> {
  const { page, origin } = dashboard;
  await signIn(dashboard, user);
  await page.goto(`${origin}/sites/${site.id}`);
  await page.getByRole('heading', { name: site.name, level: 1 }).waitFor();
  return page;
}

function sectionLink(page: Page, title: string): Locator {
  return page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: new RegExp(`^${title.replace(/[&]/g, '\\$&')}`) });
}

async function openSection(page: Page, title: string, path: string): Promise<void> {
  await sectionLink(page, title).click();
  await page.waitForURL((url) => url.pathname.endsWith(path));
  await page.locator('.section-heading').getByRole('heading', { name: title, level: 2, exact: true }).waitFor();
}

function isSitePut(request: Request): boolean {
  return request.method() === 'PUT' && /\/api\/v1\/sites\/[^/]+$/.test(new URL(request.url()).pathname);
}

async function save(page: Page): Promise<Record<string, unknown>> {
  const sent = page.waitForRequest(isSitePut);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const body = (await sent).postDataJSON() as Record<string, unknown>;
  await saveState(page, 'Saved');
  return body;
}

async function saveState(page: Page, text: string): Promise<void> {
  await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: new RegExp(`^${text}$`) }).waitFor();
}

// What the functions passed to evaluate use; they run in the browser, where these exist.
declare const getComputedStyle: (element: unknown) => { backgroundColor: string };
declare const document: { activeElement: unknown };

/**
 * Run in the page: names the focused element when its box reaches under the save bar, else null.
 * A string, since the browser's globals are not in this file's types.
 */
const FOCUS_UNDER_SAVE_BAR = `(() => {
  const focused = document.activeElement;
  const bar = document.querySelector('.save-bar');
  if (focused === null || focused === document.body || bar === null || bar.contains(focused)) return null;
  const box = focused.getBoundingClientRect();
  const barTop = bar.getBoundingClientRect().top;
  const name = focused.getAttribute('aria-label') || (focused.textContent || '').slice(0, 40);
  return box.bottom > barTop + 1 ? focused.tagName + ' "' + name + '" ends at ' + box.bottom + ', the bar starts at ' + barTop : null;
})()`;

/**
 * A full-page screenshot with the page scrolled to its end first, so the sticky save bar is drawn
 * where it rests and not over the middle of the form.
 */
async function screenshot(dashboard: Dashboard, name: string): Promise<void> {
  await dashboard.page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
  await dashboard.screenshot(name);
}

function parsed(text: string): unknown {
  return JSON.parse(text);
}

test('every section edits its group with real form fields; each save reaches the API in the documented shape, unknown keys kept', { timeout: 300_000 }, async () => {
  const dashboard = await openDashboard();
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Help centre', ai_settings: JSON.stringify({ tone: 'professional', vendor: { beta: true } }) });
    const page = await openEditor(dashboard, user, site);
    await screenshot(dashboard, 'site-editor-general');

    // AI: text, a paragraph, a choice, a number, a switch, several choices and an address.
    await openSection(page, 'AI', '/ai');
    assert.equal(await page.getByLabel('Tone').inputValue(), 'professional', 'the stored value fills the form');
    await page.getByLabel('Model').fill('gpt-4o-mini');
    await page.getByLabel('Instructions').fill('Answer questions about invoices.');
    await page.getByLabel('Tone').selectOption('friendly');
    await page.getByLabel('Creativity').fill('0.4');
    await page.getByLabel('Hand off to a person').check();
    await page.getByLabel('The visitor asks for a person').check();
    await page.getByLabel('The visitor seems upset').check();
    await page.getByLabel('Notify address').fill('team@acme.example');
    await screenshot(dashboard, 'site-editor-ai');
    const aiBody = await save(page);
    assert.deepEqual(Object.keys(aiBody), ['ai_settings'], 'only the edited group is sent');
    assert.deepEqual(parsed((await readSite(t.app, user, site.id)).ai_settings), {
      tone: 'friendly',
      vendor: { beta: true },
      model: 'gpt-4o-mini',
      instructions: 'Answer questions about invoices.',
      temperature: 0.4,
      handoff: { enabled: true, triggers: ['visitor_asks', 'negative_sentiment'], email: 'team@acme.example' },
    });

    // E-mail.
    await openSection(page, 'E-mail', '/email');
    await page.getByLabel('Sender name').fill('Acme Support');
    await page.getByLabel('Sender address').fill('support@acme.example');
    await page.getByLabel('Reply-to address').fill('help@acme.example');
    await page.getByLabel('Signature').fill('The Acme team');
    await page.getByLabel('Send transcripts').check();
    await screenshot(dashboard, 'site-editor-email');
    await save(page);
    assert.deepEqual(parsed((await readSite(t.app, user, site.id)).email_settings), {
      sender_name: 'Acme Support',
      sender_address: 'support@acme.example',
      reply_to: 'help@acme.example',
      signature: 'The Acme team',
      send_transcripts: true,
    });

    // Widget.
    await openSection(page, 'Widget', '/widget');
    assert.equal(await page.getByLabel('Show the widget').isChecked(), true, 'the schema\'s default: shown unless turned off');
    await page.getByLabel('Position').selectOption('bottom-left');
    await page.getByLabel('Launcher text').fill('Ask us');
    await page.getByLabel('Greeting').fill('Hello there!');
    await page.getByRole('textbox', { name: 'Accent colour', exact: true }).fill('#e11d48');
    await screenshot(dashboard, 'site-editor-widget');
    await save(page);
    assert.deepEqual(parsed((await readSite(t.app, user, site.id)).widget), { position: 'bottom-left', launcher_text: 'Ask us', greeting: 'Hello there!', accent_color: '#e11d48' });

    // Portal, with a field the browser refuses until it is right.
    await openSection(page, 'Portal', '/portal');
    await page.getByLabel('Portal title').fill('Acme Help');
    await page.getByLabel('Custom domain').fill('https://help.acme.example');
    await page.getByLabel('Path').fill('/help');
    await page.getByLabel('Who can see it').selectOption('signed_in');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'The site was not saved' });
    await summary.getByText('Help portal › Custom domain').waitFor();
    await page.getByText('Enter a host name such as help.example.com, without http://.').first().waitFor();
    await page.getByLabel('Custom domain').fill('help.acme.example');
    await screenshot(dashboard, 'site-editor-portal');
    await save(page);
    assert.deepEqual(parsed((await readSite(t.app, user, site.id)).portal), { title: 'Acme Help', custom_domain: 'help.acme.example', path: '/help', visibility: 'signed_in' });

    // Branding & theme: two groups in one section.
    await openSection(page, 'Branding & theme', '/branding');
    await page.getByLabel('Company name').fill('Acme');
    await page.getByRole('textbox', { name: 'Primary colour', exact: true }).fill('#0f172a');
    await page.getByLabel('Font').selectOption('serif');
    await page.getByLabel('Appearance').selectOption('dark');
    await page.getByLabel('Corner radius').fill('4');
    await screenshot(dashboard, 'site-editor-branding');
    const brandingBody = await save(page);
    assert.deepEqual(Object.keys(brandingBody).sort(), ['branding', 'public_theme']);
    const afterBranding = await readSite(t.app, user, site.id);
    assert.deepEqual(parsed(afterBranding.branding), { company_name: 'Acme', primary_color: '#0f172a', font: 'serif' });
    assert.deepEqual(parsed(afterBranding.public_theme), { appearance: 'dark', corner_radius: 4 });

    // Knowledge: a list of entries, added and removed in place.
    await openSection(page, 'Knowledge', '/knowledge');
    await page.getByText('None yet.').waitFor();
    await page.getByRole('button', { name: 'Add source' }).click();
    await page.getByRole('button', { name: 'Add source' }).click();
    const first = page.getByRole('group', { name: 'Source 1' });
    await first.getByLabel('Name').fill('Help articles');
    await first.getByLabel('Type').selectOption('sitemap');
    await first.getByLabel('Address').fill('https://acme.example/sitemap.xml');
    await first.getByLabel('Update').selectOption('daily');
    await page.getByRole('button', { name: 'Remove source 2' }).click();
    await page.getByRole('group', { name: 'Source 2' }).waitFor({ state: 'detached' });
    await screenshot(dashboard, 'site-editor-knowledge');
    await save(page);
    assert.deepEqual(parsed((await readSite(t.app, user, site.id)).knowledge_sources), {
      sources: [{ name: 'Help articles', type: 'sitemap', url: 'https://acme.example/sitemap.xml', sync_interval: 'daily', enabled: true }],
    });

    // Integration holds the partner form; General the name, sent trimmed.
    await openSection(page, 'Integration', '/integration');
    await page.getByRole('group', { name: 'Connection' }).waitFor();
    await screenshot(dashboard, 'site-editor-integration');
    await openSection(page, 'General', `/sites/${site.id}`);
    await page.getByLabel('Name', { exact: true }).fill('  Acme help  ');
    const nameBody = await save(page);
    assert.deepEqual(nameBody, { name: 'Acme help' });
    assert.equal((await readSite(t.app, user, site.id)).name, 'Acme help');
    await page.getByRole('heading', { name: 'Acme help', level: 1 }).waitFor();
  } finally {
    await dashboard.close();
  }
});

test('the JSON tab lints as you type, completes from the schema, and a refused save names the field by its label', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Lint site', widget: JSON.stringify({ position: 'bottom-right', custom: 1 }) });
    const page = await openEditor(dashboard, user, site);
    await openSection(page, 'Widget', '/widget');
    await page.getByRole('tab', { name: 'JSON' }).click();
    const editor = page.getByRole('textbox', { name: 'Chat widget JSON' });
    await editor.waitFor();
    assert.deepEqual(parsed((await editor.textContent()) ?? ''), { position: 'bottom-right', custom: 1 });

    // Broken syntax: the JSON linter marks it and the status says so.
    await editor.fill('{"position": "bottom-left",');
    await page.getByText(/^Not valid JSON: /).waitFor();
    await page.locator('.cm-lint-marker-error').first().waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Form' }).isDisabled(), true, 'the form cannot show broken JSON');

    // Valid JSON breaking a rule: marked at the value, explained in words.
    await editor.fill('{"position": "top", "accent_color": "red", "custom": 1}');
    await page.getByText(/Valid JSON that breaks 2 rules/).waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    await screenshot(dashboard, 'site-editor-json-lint');

    // Completion offers the schema's property names.
    await editor.fill('{\n  \n}');
    await editor.press('ArrowDown');
    await editor.press('End');
    await editor.press('Control+Space');
    const completion = page.locator('.cm-tooltip-autocomplete');
    await completion.getByText('"launcher_text"').waitFor();
    await completion.getByText('"accent_color"').waitFor();
    await editor.press('Escape');

    // A save with a rule broken is refused before any request, naming the field by its label.
    await editor.fill('{"accent_color": "#12"}');
    let puts = 0;
    page.on('request', (request) => {
      if (isSitePut(request)) puts += 1;
    });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'The site was not saved' });
    await summary.getByText('Chat widget › Accent colour').waitFor();
    assert.equal(puts, 0);
    // The refused save moves the focus into the JSON text a frame or two later; typing before that
    // would have the focus move land in the middle of the typing.
    await page.waitForFunction((text) => (text as unknown as { getRootNode(): { activeElement: unknown } }).getRootNode().activeElement === text, await editor.elementHandle());

    // Fixed, it saves; the form tab opens again with the value.
    await editor.fill('{"accent_color": "#123", "custom": 1}');
    await page.getByText('Valid: matches the settings\' shape.').waitFor();
    await save(page);
    assert.equal((await readSite(t.app, user, site.id)).widget, '{"accent_color": "#123", "custom": 1}', 'saved exactly as typed');
    await page.getByRole('tab', { name: 'Form' }).click();
    assert.equal(await page.getByRole('textbox', { name: 'Accent colour', exact: true }).inputValue(), '#123');
  } finally {
    await dashboard.close();
  }
});

test('a stored value that does not match the shape opens in the JSON tab with its explanation and survives saving another field', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const plain = 'You are a helpful assistant for Acme.';
    const broken = '{"accent_color":"red","position":"top"}';
    const site = await createSite(t.app, user.bearer, { name: 'Legacy site', ai_settings: plain, widget: broken });
    const page = await openEditor(dashboard, user, site);

    await openSection(page, 'AI', '/ai');
    const notice = page.getByRole('status').filter({ hasText: 'Stored in a shape the form cannot show' });
    await notice.getByText(/This text is not JSON/).waitFor();
    assert.equal(await page.getByRole('tab', { name: 'JSON' }).getAttribute('aria-selected'), 'true');
    assert.equal(await page.getByRole('tab', { name: 'Form' }).isDisabled(), true);
    assert.equal(await page.getByRole('textbox', { name: 'AI assistant JSON' }).textContent(), plain);
    await screenshot(dashboard, 'site-editor-not-matching');

    await openSection(page, 'Widget', '/widget');
    await page.getByText(/Accent colour: Use a colour as #rgb or #rrggbb/).first().waitFor();
    await page.getByText(/Position: Choose one of: Bottom right, Bottom left/).first().waitFor();

    await openSection(page, 'General', `/sites/${site.id}`);
    await page.getByLabel('Name', { exact: true }).fill('Legacy site, renamed');
    assert.deepEqual(await save(page), { name: 'Legacy site, renamed' });
    const stored = await readSite(t.app, user, site.id);
    assert.equal(stored.ai_settings, plain, 'not rewritten');
    assert.equal(stored.widget, broken, 'not rewritten');
  } finally {
    await dashboard.close();
  }
});

test('the widget preview follows the unsaved draft as you type, and draws no logo from another server', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Preview site' });
    const page = await openEditor(dashboard, user, site);
    await openSection(page, 'Widget', '/widget');
    const preview = page.getByTestId('widget-preview');
    // No launcher text yet: an icon only, as the field's hint says.
    await preview.getByLabel('Chat button (icon only)').waitFor();
    assert.equal(await preview.locator('.preview-launcher-text').count(), 0);

    await page.getByLabel('Launcher text').fill('Need help?');
    await preview.getByText('Need help?').waitFor();
    // Emptied again (the form then writes no key): an icon only again, not a default text.
    await page.getByLabel('Launcher text').fill('');
    await preview.getByLabel('Chat button (icon only)').waitFor();
    await page.getByLabel('Launcher text').fill('Need help?');
    await page.getByLabel('Greeting').fill('Welcome to Acme!');
    await preview.getByText('Welcome to Acme!').waitFor();
    await page.getByLabel('Position').selectOption('bottom-left');
    assert.match((await preview.getAttribute('class')) ?? '', /preview-left/);
    await page.getByRole('textbox', { name: 'Accent colour', exact: true }).fill('#ff0000');
    const launcherColour = await preview.locator('.preview-launcher').evaluate((element) => getComputedStyle(element).backgroundColor);
    assert.equal(launcherColour, 'rgb(255, 0, 0)');
    await screenshot(dashboard, 'site-editor-preview');

    await openSection(page, 'Branding & theme', '/branding');
    await page.getByLabel('Company name').fill('Acme Corp');
    await preview.getByText('Acme Corp').waitFor();
    await page.getByLabel('Logo URL').fill('https://cdn.example.com/logo.png');
    await page.getByText(/The logo at cdn\.example\.com is not drawn here/).waitFor();
    assert.equal(await preview.locator('img').count(), 0, 'no request to another server');
    const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    // A data: URL breaks the schema's http(s) rule, so it is typed into the JSON; the preview still draws it.
    await page.getByLabel('Logo URL').fill(pixel);
    await preview.getByRole('img', { name: 'Acme Corp logo' }).waitFor();
    await page.getByLabel('Appearance').selectOption('dark');
    const windowBackground = await preview.locator('.preview-window').evaluate((element) => getComputedStyle(element).backgroundColor);
    assert.equal(windowBackground, 'rgb(17, 24, 39)');
    // Nothing of this was saved.
    assert.equal((await readSite(t.app, user, site.id)).widget, '');
  } finally {
    await dashboard.close();
  }
});

test('the danger zone moves the site to the trash after a confirmation, and the trash brings it back', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Doomed site' });
    const page = await openEditor(dashboard, user, site);
    const zone = page.getByRole('region', { name: 'Danger zone' });
    await zone.getByRole('button', { name: 'Delete this site…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Doomed site?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await readSite(t.app, user, site.id)).name, 'Doomed site');

    // An unsaved edit is dropped without a second question: the dialog said so.
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Doomed site, edited');
    await zone.getByRole('button', { name: 'Delete this site…' }).click();
    await dialog.getByRole('button', { name: 'Delete site' }).click();
    // Back on the Sites list, the site gone from it, with the toast to undo.
    await page.waitForURL(`${dashboard.origin}/`);
    await page.getByRole('heading', { name: 'Sites', exact: true, level: 1 }).waitFor();
    await page.getByText('Doomed site was moved to the trash.').waitFor();
    await page.getByRole('heading', { name: 'No sites yet — create your first' }).waitFor();
    assert.equal(await page.getByRole('link', { name: /Doomed site/ }).count(), 0, 'the list no longer shows it');
    await screenshot(dashboard, 'site-editor-deleted');
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer } });
    assert.equal(response.statusCode, 404);

    // The trash has it, and brings it back after a confirmation.
    await page.getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
    const entry = page.getByRole('listitem').filter({ hasText: 'Doomed site' });
    await entry.getByText('Deleted', { exact: false }).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await seriousAccessibilityProblems(page), [], colorScheme);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await entry.getByRole('button', { name: 'Restore Doomed site' }).click();
    const confirm = page.getByRole('dialog', { name: 'Restore Doomed site?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer } })).statusCode, 404);
    await entry.getByRole('button', { name: 'Restore Doomed site' }).click();
    await confirm.getByRole('button', { name: 'Restore site' }).click();
    await page.getByText('Doomed site is back').waitFor();
    await page.getByText('The trash is empty.').waitFor();
    assert.equal((await readSite(t.app, user, site.id)).name, 'Doomed site');
    await page.getByRole('link', { name: 'Open Doomed site' }).click();
    await page.getByRole('heading', { name: 'Doomed site', level: 1 }).waitFor();
  } finally {
    await dashboard.close();
  }
});

test('a save over a newer one is refused as "changed elsewhere", keeps the draft in every section, and offers to reload', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Shared' });
    const page = await openEditor(dashboard, user, site);
    await openSection(page, 'E-mail', '/email');
    await page.getByLabel('Sender name').fill('Mine');
    // Moving between sections keeps the draft and asks nothing.
    let asked = false;
    page.on('dialog', (dialog) => {
      asked = true;
      void dialog.dismiss();
    });
    await openSection(page, 'Widget', '/widget');
    await openSection(page, 'E-mail', '/email');
    assert.equal(await page.getByLabel('Sender name').inputValue(), 'Mine');
    assert.equal(asked, false);

    const other = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer }, payload: { email_settings: '{"sender_name":"Theirs"}' } });
    assert.equal(other.statusCode, 200);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Someone else saved this site since you opened it').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled(), true);
    assert.equal(JSON.parse((await readSite(t.app, user, site.id)).email_settings).sender_name, 'Theirs', 'nothing overwritten');
    assert.equal(await page.getByLabel('Sender name').inputValue(), 'Mine');
    await screenshot(dashboard, 'site-editor-conflict-412');

    await page.getByRole('button', { name: 'Reload their version (your changes will be lost)' }).click();
    await saveState(page, 'No changes');
    assert.equal(await page.getByLabel('Sender name').inputValue(), 'Theirs');
    await page.getByLabel('Sender name').fill('Ours now');
    await save(page);
    assert.equal(JSON.parse((await readSite(t.app, user, site.id)).email_settings).sender_name, 'Ours now');
  } finally {
    await dashboard.close();
  }
});

test('keyboard: tabbing through every section never leaves the focused element under the save bar; an invalid colour shows no swatch', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 1280, height: 640 } });
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Keys', knowledge_sources: JSON.stringify({ sources: [{ type: 'faq', url: 'https://a.example' }, { type: 'website', url: 'https://b.example' }] }) });
    const page = await openEditor(dashboard, user, site);

    // An invalid colour: the swatch is empty and struck through, never black.
    await page.getByRole('textbox', { name: 'Colour', exact: true }).fill('#12');
    const fill = page.locator('.color-swatch-none .color-swatch-fill').first();
    await fill.waitFor();
    assert.equal(await fill.evaluate((element) => getComputedStyle(element).backgroundColor), 'rgba(0, 0, 0, 0)');
    await page.getByRole('textbox', { name: 'Colour', exact: true }).fill('#123456');

    for (const [title, path] of [
      ['General', `/sites/${site.id}`],
      ['AI', '/ai'],
      ['Widget', '/widget'],
      ['Knowledge', '/knowledge'],
      ['Integration', '/integration'],
    ] as const) {
      await openSection(page, title, path);
      await sectionLink(page, title).focus();
      for (let stop = 0; stop < 40; stop += 1) {
        await page.keyboard.press('Tab');
        const hidden = await page.evaluate<string | null>(FOCUS_UNDER_SAVE_BAR);
        assert.equal(hidden, null, `${title}, stop ${stop + 1}`);
      }
    }
  } finally {
    await dashboard.close();
  }
});

test('at 390 px the editor fits the screen: the sections become a row, the preview goes under the form, nothing scrolls sideways', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 390, height: 844 } });
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Small screen' });
    const page = await openEditor(dashboard, user, site);
    for (const [title, path] of [
      ['General', `/sites/${site.id}`],
      ['Widget', '/widget'],
      ['Knowledge', '/knowledge'],
      ['Integration', '/integration'],
      ['History', '/history'],
    ] as const) {
      await openSection(page, title, path);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.equal(overflow, 0, `${title} scrolls sideways by ${overflow} px`);
      await screenshot(dashboard, `site-editor-390-${title.toLowerCase()}`);
    }
    const preview = await page.getByTestId('widget-preview').count();
    assert.equal(preview, 0, 'the preview belongs to Widget and Branding & theme only');
  } finally {
    await dashboard.close();
  }
});

test('axe-core finds no serious or critical problem in any section, the JSON tab and the delete dialog included', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 1280, height: 900 } });
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Accessible', knowledge_sources: JSON.stringify({ sources: [{ type: 'faq', url: 'https://a.example' }] }), ai_settings: 'plain text' });
    const page = await openEditor(dashboard, user, site);
    for (const [title, path] of [
      ['General', `/sites/${site.id}`],
      ['AI', '/ai'],
      ['E-mail', '/email'],
      ['Widget', '/widget'],
      ['Portal', '/portal'],
      ['Branding & theme', '/branding'],
      ['Knowledge', '/knowledge'],
      ['Integration', '/integration'],
      ['History', '/history'],
    ] as const) {
      await openSection(page, title, path);
      if (title === 'History') await page.getByText('Created the site').waitFor();
      if (title === 'AI') await page.getByRole('textbox', { name: 'AI assistant JSON' }).waitFor();
      assert.deepEqual(await seriousAccessibilityProblems(page), [], title);
    }
    await openSection(page, 'General', `/sites/${site.id}`);
    await page.getByRole('button', { name: 'Delete this site…' }).click();
    await page.getByRole('dialog', { name: 'Delete Accessible?' }).waitFor();
    assert.deepEqual(await seriousAccessibilityProblems(page), [], 'delete dialog');
  } finally {
    await dashboard.close();
  }
});

test('History lists each version in words, key by key, the token only as set; a version is restored after a confirmation', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 1280, height: 900 } });
  const { t } = dashboard;
  const token = 'history-partner-token-value';
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'History site', ai_settings: '{"tone":"friendly","model":"small"}' });
    const put = async (payload: Record<string, unknown>) => {
      const response = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer }, payload });
      assert.equal(response.statusCode, 200, response.body);
    };
    await put({ ai_settings: '{"tone":"concise","model":"small","language":"de"}', partner_settings: { base_url: 'https://partner.example', access_token: token } });
    await put({ name: 'History site, renamed' });
    const page = await openEditor(dashboard, user, { id: site.id, name: 'History site, renamed' });
    await openSection(page, 'History', '/history');

    const versions = page.getByRole('listitem').filter({ has: page.locator('.history-version-head') });
    await versions.first().getByText('Version 3').waitFor();
    assert.equal(await versions.count(), 3);
    assert.match(await versions.nth(0).innerText(), /Current/);
    assert.equal(await versions.nth(0).getByRole('button', { name: /Restore/ }).count(), 0, 'the current version has nothing to restore');
    const second = page.getByRole('list', { name: 'Changes in version 2' });
    const lines = await second.getByRole('listitem').allInnerTexts();
    assert.deepEqual(
      lines.map((line) => line.replace(/\s+/g, ' ').trim()),
      ['AI assistant › Tone Friendly → became Concise', 'AI assistant › Answer language added de', 'Base URL (empty) → became https://partner.example', 'Access token set'],
    );
    assert.ok(!(await page.content()).includes(token), 'no token value on the page');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await seriousAccessibilityProblems(page), [], colorScheme);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    await versions.nth(2).getByRole('button', { name: 'Restore version 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore version 1?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await readSite(t.app, user, site.id)).name, 'History site, renamed');
    await versions.nth(2).getByRole('button', { name: 'Restore version 1' }).click();
    await dialog.getByRole('button', { name: 'Restore this version' }).click();
    await page.getByRole('region', { name: 'Notifications' }).getByText('Version 1 restored.').waitFor();
    await page.getByText('Version 1 restored', { exact: true }).waitFor();
    // Version 1 had no partner address: the token, bound to partner.example, does not follow.
    await page.getByText('The partner access token was cleared').waitFor();
    await page.getByRole('heading', { name: 'History site', level: 1 }).waitFor();
    await versions.first().getByText('Version 4').waitFor();
    assert.match(await versions.first().innerText(), /Restored version 1/);

    const stored = await readSite(t.app, user, site.id);
    assert.equal(stored.name, 'History site');
    assert.equal(stored.ai_settings, '{"tone":"friendly","model":"small"}');
    assert.equal(stored.partner_settings.base_url, '');
    assert.equal(stored.partner_settings.access_token_configured, false, 'the token went with the address it was bound to');
    await saveState(page, 'No changes');
  } finally {
    await dashboard.close();
  }
});

/** The E-mail group's fields as the form shows them: text as typed, the switch as ticked. */
async function emailInputs(page: Page): Promise<Record<string, string | boolean>> {
  return {
    sender_name: await page.getByLabel('Sender name').inputValue(),
    sender_address: await page.getByLabel('Sender address').inputValue(),
    signature: await page.getByLabel('Signature').inputValue(),
    send_transcripts: await page.getByLabel('Send transcripts').isChecked(),
  };
}

/** The same fields as the stored group holds them: an absent key is an empty field. */
function emailInputsOf(stored: string): Record<string, string | boolean> {
  const values = (stored.trim() === '' ? {} : JSON.parse(stored)) as Record<string, unknown>;
  const text = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : '');
  return { sender_name: text('sender_name'), sender_address: text('sender_address'), signature: text('signature'), send_transcripts: values.send_transcripts === true };
}

test('on a group still empty on the server, Discard, Propose change and Save leave the form showing exactly what is saved', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const owner = await signUp(t.app);
    const site = await createSite(t.app, owner.bearer, { name: 'Fresh site' });
    await openEditor(dashboard, owner, site);
    await openSection(page, 'E-mail', '/email');

    // Discard: every typed value goes, the switch included.
    await page.getByLabel('Sender name').fill('Typed name');
    await page.getByLabel('Signature').fill('Typed signature');
    await page.getByLabel('Send transcripts').check();
    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    await page.getByRole('dialog', { name: 'Discard your changes?' }).getByRole('button', { name: 'Discard changes' }).click();
    await saveState(page, 'No changes');
    assert.deepEqual(await emailInputs(page), emailInputsOf(''), 'after Discard the fields are empty, as the group is');

    // Save: only what is typed now is stored, and the form shows what GET returns.
    await page.getByLabel('Sender name').fill('Kept name');
    const body = await save(page);
    assert.deepEqual(parsed(String(body.email_settings)), { sender_name: 'Kept name' }, 'nothing discarded comes back with the next save');
    const stored = (await readSite(t.app, owner, site.id)).email_settings;
    assert.deepEqual(await emailInputs(page), emailInputsOf(stored));

    // Propose change: in a workspace that requires review, the form goes back to the live site.
    const editor = await signUp(t.app);
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Reviewed team' } });
    const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
    const members = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
    await members.addMember(workspaceId, editor.id, 'editor');
    const policy = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspaceId}`, headers: { authorization: owner.bearer }, payload: { review: { required: true, approvals: 1 } } });
    assert.equal(policy.statusCode, 200, policy.body);
    const reviewed = await createSite(t.app, owner.bearer, { name: 'Reviewed site', workspace_id: workspaceId });
    await openEditor(dashboard, editor, reviewed);
    await page.goto(`${origin}/sites/${reviewed.id}/email`);
    await page.getByLabel('Sender name').waitFor();
    await page.getByLabel('Sender name').fill('Proposed name');
    await page.getByLabel('Signature').fill('Proposed signature');
    await page.getByRole('button', { name: 'Propose change…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Propose this change' });
    await dialog.getByLabel('Title').fill('Sender details');
    await dialog.getByRole('button', { name: 'Propose change' }).click();
    await page.getByText('Your change was proposed').waitFor();
    await saveState(page, 'No changes');
    assert.deepEqual(await emailInputs(page), emailInputsOf((await readSite(t.app, owner, reviewed.id)).email_settings), 'after proposing the fields show the live site');
    // Typing again proposes only what is typed now.
    await page.getByLabel('Sender address').fill('help@example.com');
    await page.getByRole('button', { name: 'Propose change…' }).click();
    const proposal = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/change-requests'));
    await dialog.getByLabel('Title').fill('Sender address');
    await dialog.getByRole('button', { name: 'Propose change' }).click();
    const changes = ((await proposal).postDataJSON() as { changes: Record<string, string> }).changes;
    assert.deepEqual(parsed(String(changes.email_settings)), { sender_address: 'help@example.com' });
  } finally {
    await dashboard.close();
  }
});

test('another member’s save shows at once as "Olivia saved version 2 — see changes"; the editor’s own save shows no such notice', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const owner = await signUp(t.app);
    const olivia = await signUp(t.app);
    const named = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: { authorization: olivia.bearer }, payload: { name: 'Olivia' } });
    assert.equal(named.statusCode, 200, named.body);
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
    const workspaceId = created.json<{ workspace: { id: string } }>().workspace.id;
    await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspaceId, olivia.id, 'editor');
    const site = await createSite(t.app, owner.bearer, { name: 'Team site', workspace_id: workspaceId });
    const oliviaSaves = async (payload: Record<string, unknown>) => {
      const response = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: olivia.bearer }, payload });
      assert.equal(response.statusCode, 200, response.body);
    };
    // Every notice the page ever shows, however briefly.
    const recordNotices = () => page.evaluate(`(() => {
      window.__notices = [];
      new MutationObserver(() => {
        for (const element of document.querySelectorAll('.alert')) if (/saved version/.test(element.textContent)) window.__notices.push(element.textContent);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    })()`);
    const notices = async () => (await page.evaluate('window.__notices')) as string[];

    await openEditor(dashboard, owner, site);
    await recordNotices();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('My draft name');
    await oliviaSaves({ color: '#336699' });
    const notice = page.getByRole('status').filter({ hasText: 'Olivia saved version 2 — see changes' });
    await notice.waitFor();
    await screenshot(dashboard, 'site-editor-newer-version');
    assert.equal(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue(), 'My draft name', 'the draft stays');
    await notice.getByRole('link', { name: 'see changes' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/history'));
    await page.getByRole('heading', { name: 'History', level: 2 }).waitFor();
    await page.getByText('Olivia').first().waitFor();

    // The editor's own save: held back until the stream has sent its version, so the event reaches the page first.
    await page.goto(`${origin}/sites/${site.id}`);
    await page.getByRole('heading', { name: 'Team site', level: 1 }).waitFor();
    await recordNotices();
    const stream = await EventStreamClient.open(`${origin}/api/v1/sites/${site.id}/events`, { authorization: owner.bearer, 'last-event-id': '2' });
    try {
      await page.route(
        (url) => url.pathname === `/api/v1/sites/${site.id}`,
        async (route) => {
          if (route.request().method() !== 'PUT') return route.fallback();
          const response = await route.fetch();
          await stream.event(0);
          return route.fulfill({ response });
        },
      );
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Renamed by me');
      await save(page);
      assert.equal((await stream.event(0)).id, '3');
      await oliviaSaves({ color: '#663399' });
      await page.getByRole('status').filter({ hasText: 'Olivia saved version 4 — see changes' }).waitFor();
      assert.deepEqual(
        (await notices()).filter((text) => !text.includes('version 4')),
        [],
        'the editor’s own save (version 3) is never announced',
      );
    } finally {
      stream.close();
    }
  } finally {
    await dashboard.close();
  }
});
