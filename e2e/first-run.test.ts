import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSite, signUp } from '../test/helpers.js';
import { startLegacyMcpServer, type TestServer } from '../test/partner-servers.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// The first-run checklist: on the empty sites list, then in a new site, each step ticked by what
// the server holds (a saved setting, a source added elsewhere, a partner check that went well).

const TOKEN = 'first-run-partner-token';

test('the first-run checklist: shown on the empty list, then ticked in a new site from its saved state', { timeout: 180_000 }, async () => {
  const partner: TestServer = await startLegacyMcpServer({ requireAuthorization: `Bearer ${TOKEN}` });
  const dashboard = await openDashboard({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const { t, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/`);
    const checklist = page.getByRole('region', { name: 'Get started' });
    await checklist.getByText('Create a site, then set it up in a few steps:').waitFor();
    assert.deepEqual(await checklist.locator('strong').allTextContents(), ['Set up the assistant', 'Style the chat widget', 'Add knowledge', 'Connect the partner service', 'Put the site on your pages']);
    await dashboard.screenshot('first-run-empty-list');

    const site = await createSite(t.app, user.bearer, { name: 'Fresh site' });
    await page.goto(`${origin}/sites/${site.id}`);
    await checklist.getByText('0 of 5 done.', { exact: false }).waitFor();
    // A step leads to its section; saving the assistant's model ticks it.
    await checklist.getByRole('link', { name: 'Set up the assistant' }).click();
    await page.waitForURL(`${origin}/sites/${site.id}/ai`);
    await page.getByLabel('Model').fill('small');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('region', { name: 'Save changes' }).getByText('Saved', { exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: 'General' }).click();
    await checklist.getByText('1 of 5 done.', { exact: false }).waitFor();
    await checklist.getByText('Set up the assistant (done)').waitFor();

    // Knowledge added through the API, the partner connected and checked: ticked on the next load.
    const update = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/sites/${site.id}`,
      headers: { authorization: user.bearer },
      payload: {
        knowledge_sources: JSON.stringify({ sources: [{ type: 'faq', url: 'https://help.example/faq' }] }),
        partner_settings: { enabled: true, mcp_url: `${partner.url}/mcp`, auth_type: 'bearer', access_token: TOKEN },
      },
    });
    assert.equal(update.statusCode, 200, update.body);
    const check = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${site.id}/partner/check`, headers: { authorization: user.bearer } });
    assert.equal(check.json<{ site: { partner_settings: { last_status: string } } }>().site.partner_settings.last_status, 'ok');
    await page.reload();
    await checklist.getByText('3 of 5 done.', { exact: false }).waitFor();
    assert.equal(await checklist.getByText('Style the chat widget (to do)').count(), 1);
    assert.equal(await checklist.getByRole('link', { name: 'Put the site on your pages' }).getAttribute('href'), `/sites/${site.id}/install`);
    await dashboard.screenshot('first-run-site');

    // A page loads the site's public configuration: its origin is recorded, and the install step ticks.
    const { public_key: publicKey } = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer } })).json<{ site: { public_key: string } }>().site;
    const fetched = await fetch(`${origin}/public/v1/sites/${publicKey}`, { headers: { origin: 'https://shop.example' } });
    assert.equal(fetched.status, 200);
    await page.reload();
    await checklist.getByText('4 of 5 done.', { exact: false }).waitFor();
    await checklist.getByText('Put the site on your pages (done)').waitFor();

    // The last step done: the checklist is gone for good.
    assert.equal((await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer }, payload: { widget: '{"greeting":"Hello"}' } })).statusCode, 200);
    await page.reload();
    await page.getByRole('heading', { name: 'Fresh site', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).waitFor();
    assert.equal(await checklist.count(), 0);
  } finally {
    await dashboard.close();
    await partner.close();
  }
});
