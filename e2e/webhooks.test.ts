import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { createSite, type SignedUpUser, signUp, signUpConfirmed, type TestApp } from '../test/helpers.js';
import { startReceiver } from '../test/webhook-receiver.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { type Dashboard, openDashboard } from './harness.js';

// Settings > Workspaces > Webhooks in a real Chromium against the real app and a receiver on
// loopback: the secret shown once is the one that verifies (with the standardwebhooks package),
// the delivery log fills in as the sender works, and every button does what the API says.

/** The rules checked: WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

async function personalWorkspace(t: TestApp, user: SignedUpUser): Promise<string> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { authorization: user.bearer } });
  const found = response.json<{ workspaces: Array<{ id: string; personal: boolean }> }>().workspaces.find((workspace) => workspace.personal);
  assert.ok(found !== undefined);
  return found.id;
}

async function webhooksOf(t: TestApp, user: SignedUpUser, workspace: string): Promise<Array<{ id: string; url: string; enabled: boolean; events: string[] }>> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ webhooks: Array<{ id: string; url: string; enabled: boolean; events: string[] }> }>().webhooks;
}

async function checkBothThemes(dashboard: Dashboard, page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const problem of await seriousAccessibilityProblems(page, { tags: WCAG_AA })) found.push(`${name} (${colorScheme}): ${problem}`);
    await dashboard.screenshot(`${name}-${colorScheme}`, page);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('an admin adds a webhook, copies its secret once, and follows, tests, redelivers, rotates, turns off and deletes it', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const { t, smtp, page, origin } = dashboard;
  const hooks = await startReceiver();
  try {
    const user = await signUpConfirmed(t.app, smtp);
    const workspace = await personalWorkspace(t, user);
    await signInPage(page, origin, user.email);

    // From the workspace's screen.
    await page.goto(`${origin}/settings/workspaces/${workspace}`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No webhooks yet').waitFor();

    // The form says what is wrong before anything is sent.
    const form = page.getByRole('region', { name: 'Add a webhook' });
    await form.getByLabel('Endpoint URL').fill('not a url');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await form.getByText('Enter the full address, starting with https://.').waitFor();

    // The server's refusal is shown at the field until the address is edited, not after.
    await form.getByLabel('Endpoint URL').fill(`${hooks.url}#fragment`);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await form.getByText(/must not have a #fragment/).waitFor();
    assert.equal(await form.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'true');
    await form.getByLabel('Endpoint URL').fill(hooks.url);
    assert.equal(await form.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'false', 'a valid address is no longer marked wrong');
    assert.equal(await form.getByText(/must not have a #fragment/).count(), 0);

    await form.getByLabel('Description (optional)').fill('Redeploy the widget');
    // Site events are chosen to begin with; member events are added.
    await form.getByRole('checkbox', { name: /Member joined/ }).check();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secretPanel = page.getByRole('region', { name: 'The signing secret of your new webhook' });
    const secret = (await secretPanel.getByLabel('Signing secret').textContent()) ?? '';
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    const [created] = await webhooksOf(t, user, workspace);
    assert.deepEqual(created?.events, ['site.created', 'site.updated', 'site.deleted', 'site.restored', 'member.joined']);
    assert.equal(created?.url, hooks.url);

    const list = page.getByRole('region', { name: 'Endpoints' });
    await list.getByText('Redeploy the widget').waitFor();
    await list.getByText('Active').waitFor();
    // Each button names the webhook it acts on, for screen readers.
    assert.equal(await list.getByRole('button', { name: `Delete (webhook to ${hooks.url})`, exact: true }).count(), 1);
    await secretPanel.getByRole('button', { name: 'Done' }).click();
    await secretPanel.waitFor({ state: 'detached' });
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone from the screen');

    // A change is delivered, signed with the secret that was shown.
    const site = await createSite(t.app, user.bearer, { name: 'Help centre' });
    await hooks.waitFor(1);
    const verifier = new Webhook(secret);
    const [first] = hooks.received;
    assert.ok(first !== undefined);
    assert.deepEqual(verifier.verify(first.body, first.headers), first.json);
    assert.equal(first.json.type, 'site.created');
    assert.equal((first.json.data as { site: { id: string } }).site.id, site.id);

    // The log shows it, and the test event once sent.
    await list.getByRole('button', { name: 'Deliveries' }).click();
    const log = list.getByRole('region', { name: `Deliveries to ${hooks.url}` });
    await log.locator('li', { hasText: 'Site created' }).getByText('Delivered').waitFor();
    await list.getByRole('button', { name: 'Send test event' }).click();
    await list.getByText('A test event is on its way.').waitFor();
    await log.locator('li', { hasText: 'Test event' }).getByText('Delivered').waitFor();
    assert.equal(hooks.received[1]?.json.type, 'webhook.test');
    await log.locator('li', { hasText: 'Site created' }).getByText(/1 attempt/).click();
    await log.locator('li', { hasText: 'Site created' }).getByText(/HTTP 204 in \d+ ms/).first().waitFor();
    assert.deepEqual(await checkBothThemes(dashboard, page, 'workspace-webhooks'), []);

    // Redelivered with the same webhook-id.
    await log.locator('li', { hasText: 'Site created' }).getByRole('button', { name: 'Redeliver' }).click();
    await hooks.waitFor(3);
    assert.equal(hooks.received[2]?.headers['webhook-id'], first.headers['webhook-id']);
    assert.equal(hooks.received[2]?.body, first.body);
    await log.locator('li', { hasText: 'Site created' }).getByText('2 attempts', { exact: false }).waitFor();

    // Off: nothing is sent for a change; on again.
    await list.getByRole('button', { name: 'Turn off' }).click();
    await list.getByText('Off', { exact: true }).waitFor();
    assert.equal((await webhooksOf(t, user, workspace))[0]?.enabled, false);
    await createSite(t.app, user.bearer, { name: 'Unheard' });
    await list.getByRole('button', { name: 'Turn on' }).click();
    await list.getByText('Active').waitFor();

    // Rotation: the new secret is shown once; both sign for a day.
    await list.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Make a new signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    const rotatedPanel = page.getByRole('region', { name: 'The new signing secret' });
    const rotated = (await rotatedPanel.getByLabel('Signing secret').textContent()) ?? '';
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await rotatedPanel.getByRole('button', { name: 'Done' }).click();
    await list.getByText(/The previous secret also signs until/).waitFor();
    await createSite(t.app, user.bearer, { name: 'After rotation' });
    await hooks.waitFor(4);
    const afterRotation = hooks.received[3];
    assert.ok(afterRotation !== undefined);
    assert.equal((afterRotation.json.data as { site: { name: string } }).site.name, 'After rotation', 'nothing was queued while it was off');
    assert.deepEqual(new Webhook(rotated).verify(afterRotation.body, afterRotation.headers), afterRotation.json);
    assert.deepEqual(verifier.verify(afterRotation.body, afterRotation.headers), afterRotation.json);

    // A changed URL, through the edit form.
    await list.getByRole('button', { name: 'Edit' }).click();
    await list.getByLabel('Endpoint URL').fill(`${hooks.url}?to=staging`);
    await list.getByRole('button', { name: 'Save webhook' }).click();
    await list.getByText(`${hooks.url}?to=staging`, { exact: true }).waitFor();
    assert.equal((await webhooksOf(t, user, workspace))[0]?.url, `${hooks.url}?to=staging`);

    // Deleted, after a confirmation.
    await list.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click();
    await list.getByText(/Deleted the webhook/).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    assert.deepEqual(await webhooksOf(t, user, workspace), []);

    // Someone who never confirmed their address is told why the webhook is not made.
    const unconfirmed = await signUp(t.app);
    const second = await dashboard.newDevice();
    await signInPage(second.page, origin, unconfirmed.email);
    await second.page.goto(`${origin}/settings/workspaces/${await personalWorkspace(t, unconfirmed)}/webhooks`);
    const secondForm = second.page.getByRole('region', { name: 'Add a webhook' });
    await secondForm.getByLabel('Endpoint URL').fill(hooks.url);
    await secondForm.getByRole('button', { name: 'Add webhook' }).click();
    await secondForm.getByText(/Confirm your e-mail address/).waitFor();
    assert.deepEqual(await webhooksOf(t, unconfirmed, await personalWorkspace(t, unconfirmed)), []);
  } finally {
    await hooks.close();
    await dashboard.close();
  }
});
