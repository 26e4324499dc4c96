import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { PartnerCheckJson } from '../src/partner/schema.js';
import type { App } from '../src/http/types.js';
import type { SiteJson } from '../src/sites/schema.js';
import { createSite, type SignedUpUser, signUp } from '../test/helpers.js';
import { LEGACY_TOOLS, startLegacyMcpServer, type TestServer } from '../test/partner-servers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { scrollsSideways, signInPage } from './dashboard-session.js';
import { type Dashboard, openDashboard, SCREENSHOT_DIR } from './harness.js';

// The editor's Integration section in a real Chromium against the real app and a real MCP
// partner on loopback: a test of unsaved settings (which stores nothing), the details of every
// check, and Recent checks. What is stored is always read back through the API.

const PARTNER_TOKEN = 'partner-right-token-4b1d';

async function readSite(app: App, user: SignedUpUser, id: string): Promise<{ site: SiteJson; etag: string | undefined }> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200);
  const etag = response.headers.etag;
  return { site: response.json<{ site: SiteJson }>().site, etag: typeof etag === 'string' ? etag : undefined };
}

async function readChecks(app: App, user: SignedUpUser, id: string): Promise<PartnerCheckJson[]> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/sites/${id}/partner/checks`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200);
  return response.json<{ checks: PartnerCheckJson[] }>().checks;
}

async function openIntegration(dashboard: Dashboard, user: SignedUpUser, site: { id: string; name: string }): Promise<Page> {
  const { page, origin } = dashboard;
  await signInPage(page, origin, user.email);
  await page.goto(`${origin}/sites/${site.id}/integration`);
  await page.getByRole('heading', { name: site.name, level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Test before saving', level: 3 }).waitFor();
  return page;
}

function testPanel(page: Page): Locator {
  return page.getByRole('region', { name: 'Test before saving' });
}

function recentChecks(page: Page): Locator {
  return page.getByRole('region', { name: 'Recent checks' });
}

async function typeNewToken(page: Page, token: string): Promise<void> {
  const group = page.getByRole('group', { name: 'Access token' });
  const cancel = group.getByRole('button', { name: 'Cancel' });
  if ((await cancel.count()) > 0) await cancel.click();
  await group.getByRole('button', { name: /^(Replace|Set token)$/ }).click();
  await page.getByLabel('New access token').fill(token);
}

/** Clicks "Test these settings" and waits for the result of this very test. */
async function runTest(page: Page): Promise<Locator> {
  const answered = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname.endsWith('/partner/test'));
  await testPanel(page).getByRole('button', { name: 'Test these settings' }).click();
  await answered;
  const result = page.getByTestId('partner-test-result');
  await result.waitFor();
  return result;
}

async function sectionScreenshot(page: Page, name: string): Promise<void> {
  // The sticky save bar would lie over the middle of the section: it is left out of the picture,
  // through the CSSOM, since the page's CSP refuses a style sheet added for the screenshot.
  const bar = page.locator('.save-bar');
  await bar.evaluate((element) => element.style.setProperty('visibility', 'hidden'));
  await page.locator('.editor-body').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
  await bar.evaluate((element) => element.style.removeProperty('visibility'));
}

test('testing unsaved settings shows the check in place with its details and stores nothing; a wrong token is refused in words', { timeout: 240_000 }, async () => {
  const partner: TestServer = await startLegacyMcpServer({ requireAuthorization: `Bearer ${PARTNER_TOKEN}` });
  const dashboard = await openDashboard({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Partner draft', partner_settings: { auth_type: 'bearer' } });
    const before = await readSite(t.app, user, site.id);
    const page = await openIntegration(dashboard, user, site);
    await recentChecks(page).getByText(/^No checks yet\./).waitFor();

    // A draft address and a newly typed token, tested without saving.
    await page.getByLabel('MCP URL').fill(`${partner.url}/mcp`);
    await typeNewToken(page, PARTNER_TOKEN);
    const result = await runTest(page);
    await result.getByText('Test of unsaved settings').waitFor();
    await result.getByText('Nothing was saved.').waitFor();
    await result.getByText('OK', { exact: true }).waitFor();
    await result.getByText('The partner answered as expected.').waitFor();
    const facts = result.locator('.check-facts');
    assert.equal(await facts.locator('dt:has-text("MCP protocol") + dd').textContent(), '2025-11-25');
    assert.equal(await facts.locator('dt:has-text("Server") + dd').textContent(), 'legacy-partner 1.0.0');
    assert.deepEqual(await result.getByRole('listitem').allTextContents(), LEGACY_TOOLS);
    await result.getByText('2 tools', { exact: true }).waitFor();
    assert.match((await facts.locator('dt:has-text("Took") + dd').textContent()) ?? '', /^\d+(\.\d)? m?s$/);
    await testPanel(page).getByRole('status').filter({ hasText: 'Test finished. OK: the partner answered as expected.' }).waitFor({ state: 'attached' });
    assert.ok(
      partner.requests.some((request) => request.headers.authorization === `Bearer ${PARTNER_TOKEN}`),
      'the typed token reached the partner',
    );

    // Nothing stored: not the draft, not the token, not the result, not a row of history.
    const after = await readSite(t.app, user, site.id);
    assert.deepEqual(after.site, before.site);
    assert.equal(after.etag, before.etag);
    assert.deepEqual(await readChecks(t.app, user, site.id), []);
    await recentChecks(page).getByText(/^No checks yet\./).waitFor();
    await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: /^Unsaved changes$/ }).waitFor();

    await sectionScreenshot(page, 'site-editor-integration-test-ok-light');
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: '.editor-body' }), [], 'light, test passed');

    // A wrong token: the partner refuses it, and the result says so in words with what to do.
    await typeNewToken(page, 'not-the-token');
    await result.getByText('You have changed the settings since this test.', { exact: false }).waitFor();
    await runTest(page);
    await result.getByText('The partner refused the access token.').waitFor();
    await result.getByText('Error', { exact: true }).waitFor();
    await result.getByText(/Check that the access token is right/).waitFor();
    await result.locator('.check-message').getByText(/unauthorized/).waitFor();
    assert.equal(await result.getByText('You have changed the settings since this test.', { exact: false }).count(), 0, 'the result describes the form again');
    assert.deepEqual(await readChecks(t.app, user, site.id), [], 'a test never joins the history');
    assert.equal((await readSite(t.app, user, site.id)).etag, before.etag);

    await page.emulateMedia({ colorScheme: 'dark' });
    await sectionScreenshot(page, 'site-editor-integration-test-unauthorized-dark');
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: '.editor-body' }), [], 'dark, token refused');
    await page.emulateMedia({ colorScheme: 'light' });
    await sectionScreenshot(page, 'site-editor-integration-test-unauthorized-light');

    // The right token again, tested, then saved: the result now describes the saved settings, and
    // is not called out of date by the save itself.
    await typeNewToken(page, PARTNER_TOKEN);
    await runTest(page);
    await result.getByText('The partner answered as expected.').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();
    await result.getByText('Test of the settings now saved').waitFor();
    assert.equal(await result.getByText('You have changed the settings since this test.', { exact: false }).count(), 0, 'a save is not a change since the test');
    assert.equal(await result.getByText('Nothing was saved.').count(), 0);
    // Check now finds the same: the test's details are not repeated under the check's.
    const connection = page.getByRole('group', { name: 'Connection' });
    await connection.getByRole('button', { name: 'Check now' }).click();
    await connection.getByText('The partner answered as expected.', { exact: true }).waitFor();
    await result.getByText('The same as the last check above.').waitFor();
    assert.equal(await result.locator('.check-details').count(), 0);
  } finally {
    await dashboard.close();
    await partner.close();
  }
});

test('Check now checks the saved settings and adds a row to Recent checks, which opens to the details', { timeout: 240_000 }, async () => {
  const partner: TestServer = await startLegacyMcpServer({ requireAuthorization: `Bearer ${PARTNER_TOKEN}` });
  const dashboard = await openDashboard({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, {
      name: 'Partner saved',
      partner_settings: { enabled: true, mcp_url: `${partner.url}/mcp`, auth_type: 'bearer', access_token: PARTNER_TOKEN },
    });
    const page = await openIntegration(dashboard, user, site);
    const history = recentChecks(page);
    await history.getByText(/^No checks yet\./).waitFor();

    const connection = page.getByRole('group', { name: 'Connection' });
    await connection.getByRole('button', { name: 'Check now' }).click();
    await connection.getByRole('status').filter({ hasText: 'Check finished. OK: the partner answered as expected.' }).waitFor({ state: 'attached' });
    const rows = history.getByRole('listitem').filter({ has: page.locator('summary') });
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    const stored = await readChecks(t.app, user, site.id);
    assert.equal(stored.length, 1);
    assert.equal(stored[0]?.status, 'ok');

    // The last check's details sit in Connection as well.
    await connection.getByText('The partner answered as expected.', { exact: true }).waitFor();
    await connection.getByText('2025-11-25', { exact: true }).waitFor();

    // The row: badge, category in words, time relative and exact, latency; it opens to the details.
    const row = rows.first();
    const summary = row.locator('summary');
    await summary.getByText('OK', { exact: true }).waitFor();
    await summary.getByText('The partner answered as expected.').waitFor();
    assert.equal(await summary.locator('time').getAttribute('datetime'), stored[0]?.at);
    await summary.getByText('just now').waitFor();
    assert.match((await summary.locator('.recent-check-exact').textContent()) ?? '', /\d/);
    assert.match((await summary.locator('.recent-check-duration').textContent()) ?? '', /^\d+(\.\d)? m?s$/);
    const tools = row.locator('.check-tools');
    assert.equal(await tools.isVisible(), false, 'folded until opened');
    await summary.focus();
    await page.keyboard.press('Enter');
    await tools.waitFor();
    assert.deepEqual(await tools.getByRole('listitem').allTextContents(), LEGACY_TOOLS);

    // A second check with the token now refused: a new row on top, in words.
    const refusing = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/sites/${site.id}`,
      headers: { authorization: user.bearer },
      payload: { partner_settings: { access_token: 'rotated-by-someone' } },
    });
    assert.equal(refusing.statusCode, 200);
    await connection.getByRole('button', { name: 'Check now' }).click();
    await history.locator('summary').first().getByText('The partner refused the access token.').waitFor();
    assert.equal(await rows.count(), 2);
    assert.equal(await rows.nth(1).locator('details').getAttribute('open'), '', 'the row opened before stays open under the new one');
    assert.equal(await rows.nth(0).locator('details').getAttribute('open'), null);
    assert.deepEqual(
      (await readChecks(t.app, user, site.id)).map((check) => check.category),
      ['unauthorized', 'ok'],
    );
    await sectionScreenshot(page, 'site-editor-integration-recent-checks-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await sectionScreenshot(page, 'site-editor-integration-recent-checks-dark');
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: '.editor-body' }), [], 'dark, recent checks');
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: '.editor-body' }), [], 'light, recent checks');

    // On a phone the rows and their details wrap instead of scrolling sideways.
    await rows.nth(0).locator('summary').click();
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await scrollsSideways(page), false);
    await sectionScreenshot(page, 'site-editor-integration-recent-checks-390');
  } finally {
    await dashboard.close();
    await partner.close();
  }
});

test('a draft Base URL that is not a URL is refused at the field; too many tests say how long to wait', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const { t } = dashboard;
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Partner typo' });
    const before = await readSite(t.app, user, site.id);
    const page = await openIntegration(dashboard, user, site);

    await page.getByLabel('Base URL').fill('partner dot example');
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/partner/test'));
    await testPanel(page).getByRole('button', { name: 'Test these settings' }).click();
    assert.equal((await answered).status(), 400);
    const refused = testPanel(page).getByRole('alert').filter({ hasText: 'Not tested: some settings are not valid' });
    await refused.getByText('Base URL', { exact: true }).waitFor();
    const baseUrl = page.getByLabel('Base URL');
    assert.equal(await baseUrl.getAttribute('aria-invalid'), 'true');
    const describedBy = ((await baseUrl.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id !== '');
    const descriptions = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    assert.match(descriptions.join(' '), /must be empty or an absolute http\(s\) URL/);
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');
    assert.equal(await baseUrl.evaluate((element) => element === document.activeElement), true, 'focus goes to the field');
    assert.equal(await page.getByTestId('partner-test-result').count(), 0);
    assert.deepEqual((await readSite(t.app, user, site.id)).site, before.site);
    await sectionScreenshot(page, 'site-editor-integration-test-field-error-light');

    // Fixing the field clears its error.
    await baseUrl.fill('');
    assert.equal(await baseUrl.getAttribute('aria-invalid'), 'false');

    // Twenty tests in a minute are the limit; the next one is refused with the wait, in words.
    for (let index = 0; index < 20; index += 1) {
      const response = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${site.id}/partner/test`, headers: { authorization: user.bearer }, payload: { partner_settings: {} } });
      assert.equal(response.statusCode, 200);
    }
    await testPanel(page).getByRole('button', { name: 'Test these settings' }).click();
    const limited = testPanel(page).getByRole('alert').filter({ hasText: 'Not tested: too many tests in a short time' });
    await limited.getByText(/You can test again in \d+ seconds?\./).waitFor();
    assert.deepEqual(await readChecks(t.app, user, site.id), []);
  } finally {
    await dashboard.close();
  }
});

// What the page-side callbacks above touch; they run in the browser, where it exists.
declare const document: { activeElement: { getAttribute(name: string): string | null } | null };
