import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { type Dashboard, openDashboard } from './harness.js';

const TOKEN_PATTERN = /swd_[0-9A-Za-z]{49}/;

interface ListedToken {
  id: string;
  name: string;
  scopes: string[];
  last_four: string;
  last_used_at: string | null;
  workspace_id: string | null;
}

async function signInAndOpenTokens(dashboard: Dashboard, email: string): Promise<Page> {
  const { page, origin } = dashboard;
  await page.goto(`${origin}/settings/access-tokens`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(STRONG_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${origin}/settings/access-tokens`);
  await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor();
  return page;
}

function listSites(origin: string, token: string): Promise<Response> {
  return fetch(`${origin}/api/v1/sites`, { headers: { authorization: `Token ${token}` } });
}

async function runTokenLifecycle(viewport: { width: number; height: number }, suffix: string): Promise<void> {
  const dashboard = await openDashboard({ viewport });
  const { origin, t } = dashboard;
  try {
    const user = await signUp(t.app);
    const listTokens = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/access-tokens', headers: { authorization: user.bearer } })).json<{ access_tokens: ListedToken[] }>().access_tokens;
    const page = await signInAndOpenTokens(dashboard, user.email);

    // The empty state explains what tokens are for.
    await page.getByRole('heading', { name: 'No access tokens yet' }).waitFor();
    await page.getByText('It sends the token as Authorization: Token').waitFor();
    await dashboard.screenshot(`access-tokens-empty${suffix}`);

    // Both scopes are on by default; a name is required before anything is sent.
    assert.equal(await page.getByRole('checkbox', { name: /Read sites/ }).isChecked(), true);
    assert.equal(await page.getByRole('checkbox', { name: /Write sites/ }).isChecked(), true);
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('Give the token a name.').waitFor();
    assert.equal((await listTokens()).length, 0);

    await page.getByLabel('Token name').fill('CI deploy');
    await page.getByRole('button', { name: 'Create token' }).click();

    // The secret is shown once, with a warning, a copy button and an example request.
    const secret = page.getByLabel('New access token');
    await secret.waitFor();
    const token = ((await secret.textContent()) ?? '').trim();
    assert.match(token, new RegExp(`^${TOKEN_PATTERN.source}$`));
    await page.getByText('It will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy token' }).waitFor();
    assert.equal(((await page.getByLabel('Example request').textContent()) ?? '').trim(), `curl -H "Authorization: Token ${token}" ${origin}/api/v1/sites`);
    await dashboard.screenshot(`access-tokens-created${suffix}`);

    const [stored] = await listTokens();
    assert.equal(stored?.name, 'CI deploy');
    assert.deepEqual(stored?.scopes, ['sites:read', 'sites:write']);
    assert.equal(stored?.last_four, token.slice(-4));
    assert.equal(stored?.last_used_at, null);

    // The token works against the API with the Token scheme.
    const used = await listSites(origin, token);
    assert.equal(used.status, 200);
    assert.ok(Array.isArray(((await used.json()) as { sites: unknown[] }).sites));

    // "Done" drops it: not on the screen, not after a reload; the list shows its last four only.
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByLabel('New access token').count(), 0);
    await page.reload();
    const row = page.getByRole('listitem').filter({ hasText: 'CI deploy' });
    await row.waitFor();
    assert.ok(((await row.textContent()) ?? '').includes(`…${token.slice(-4)}`));
    assert.ok(!((await page.content()).includes(token)), 'the secret is gone from the page');
    assert.ok(!TOKEN_PATTERN.test((await page.locator('body').textContent()) ?? ''));

    // A token made without choosing reaches every workspace, and the list says so.
    assert.equal(stored?.workspace_id, null);
    await row.getByText('All my workspaces').waitFor();

    // Last used was recorded by the fetch above, and the list says so after the reload.
    const [afterUse] = await listTokens();
    assert.notEqual(afterUse?.last_used_at, null);
    const lastUsed = row.getByText(/^Last used/);
    assert.doesNotMatch((await lastUsed.textContent()) ?? '', /never/);
    assert.ok((await lastUsed.locator('time').getAttribute('datetime')) === afterUse?.last_used_at);
    await dashboard.screenshot(`access-tokens-list${suffix}`);

    // Revoking asks first; Cancel keeps the token working.
    await page.getByRole('button', { name: 'Revoke CI deploy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “CI deploy”?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await listSites(origin, token)).status, 200);

    await page.getByRole('button', { name: 'Revoke CI deploy' }).click();
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    // The revoke goes out when its notice closes (Undo until then); dismissing closes it now.
    await page.getByRole('region', { name: 'Notifications' }).getByRole('button', { name: 'Dismiss' }).click();
    await page.getByText('Revoked “CI deploy”').waitFor();
    await page.getByRole('heading', { name: 'No access tokens yet' }).waitFor();
    assert.equal((await listTokens()).length, 0);
    assert.equal((await listSites(origin, token)).status, 401);

    // One workspace chosen from the list: the token is limited to it, and its row names it.
    await page.getByLabel('Token name').fill('Personal only');
    await page.getByLabel('Workspace', { exact: true }).selectOption({ label: 'Personal' });
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByLabel('New access token').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    const limited = page.getByRole('listitem').filter({ hasText: 'Personal only' });
    await limited.getByText('Personal', { exact: true }).waitFor();
    const [scoped] = await listTokens();
    assert.equal(scoped?.name, 'Personal only');
    assert.equal(typeof scoped?.workspace_id, 'string');
  } finally {
    await dashboard.close();
  }
}

test('create an access token in the browser, use it, see it listed with its last use, and revoke it (1440 px)', { timeout: 180_000 }, async () => {
  await runTokenLifecycle({ width: 1440, height: 900 }, '');
});

test('the access token screens work at 375 px wide', { timeout: 180_000 }, async () => {
  await runTokenLifecycle({ width: 375, height: 812 }, '-375');
});
