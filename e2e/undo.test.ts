import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { addMember, createAccessToken, createSite, createWorkspace, signUp, signUpConfirmed, type SignedUpUser, type TestApp } from '../test/helpers.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// Undo, from the toast each action leaves: a deleted site comes back from the trash, a restored
// version is undone by restoring the one before, and a revoke or a removal (which the server
// cannot take back) is held until the toast ends. One browser session for all of them.

function notifications(page: Page) {
  return page.getByRole('region', { name: 'Notifications' });
}

async function readSite(t: TestApp, user: SignedUpUser, id: string): Promise<{ status: number; name?: string }> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: user.bearer } });
  return response.statusCode === 200 ? { status: 200, name: response.json<{ site: { name: string } }>().site.name } : { status: response.statusCode };
}

test('Undo in the toast: delete a site, restore a version, revoke a token, remove a member; Saved links to History', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin, smtp } = dashboard;
  try {
    const owner = await signUpConfirmed(t.app, smtp);
    const site = await createSite(t.app, owner.bearer, { name: 'Help centre' });
    await signInPage(page, origin, owner.email);

    // Saved: the toast links to the change in History.
    await page.goto(`${origin}/sites/${site.id}`);
    await page.getByLabel('Name', { exact: true }).fill('Help centre 2');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await notifications(page).getByText('Saved.').waitFor();
    await notifications(page).getByRole('link', { name: 'See the change in History' }).click();
    await page.locator('.section-heading').getByRole('heading', { name: 'History', level: 2 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/sites/${site.id}/history`);

    // Restore version 1, then Undo: version 2's name is back, as a new version.
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('dialog', { name: 'Restore version 1?' }).getByRole('button', { name: 'Restore this version' }).click();
    await notifications(page).getByText('Version 1 restored.').waitFor();
    assert.equal((await readSite(t, owner, site.id)).name, 'Help centre');
    await notifications(page).getByRole('button', { name: 'Undo' }).click();
    await notifications(page).getByText('Back to version 2, saved as the newest version.').waitFor();
    assert.equal((await readSite(t, owner, site.id)).name, 'Help centre 2');
    await page.locator('#site-editor-title').getByText('Help centre 2').waitFor();

    // Delete, then Undo: the site is back from the trash, in its editor.
    await page.goto(`${origin}/sites/${site.id}`);
    await page.getByRole('button', { name: 'Delete this site…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Delete/ }).click();
    await page.waitForURL(`${origin}/`);
    await notifications(page).getByText('Help centre 2 was moved to the trash.').waitFor();
    assert.equal((await readSite(t, owner, site.id)).status, 404);
    await notifications(page).getByRole('button', { name: 'Undo' }).click();
    await page.locator('#site-editor-title').getByText('Help centre 2').waitFor();
    assert.equal((await readSite(t, owner, site.id)).status, 200);

    // Revoke a token, then Undo: nothing was sent, the token still works.
    const token = await createAccessToken(t.app, owner);
    const works = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: token.header } })).statusCode;
    await page.goto(`${origin}/settings/access-tokens`);
    const revokeButton = page.getByRole('button', { name: /^Revoke / });
    await revokeButton.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await notifications(page).getByText(/will be revoked when this notice closes/).waitFor();
    assert.equal(await revokeButton.count(), 0, 'the row goes at once');
    await notifications(page).getByRole('button', { name: 'Undo' }).click();
    await revokeButton.waitFor();
    assert.equal(await works(), 200);
    // Revoked for good once the notice closes.
    await revokeButton.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await notifications(page).getByRole('button', { name: 'Dismiss' }).click();
    await page.getByText(/^Revoked “/).waitFor();
    assert.equal(await works(), 401);

    // Remove a member, then Undo: still a member; removed once the notice closes.
    const teamId = await createWorkspace(t.app, owner, 'Support team');
    const colleague = await signUp(t.app);
    assert.equal(await addMember(t, teamId, colleague, 'editor'), true);
    const isMember = async () => (await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${teamId}`, headers: { authorization: colleague.bearer } })).statusCode === 200;
    await page.goto(`${origin}/settings/workspaces/${teamId}`);
    const removeButton = page.getByRole('button', { name: `Remove ${colleague.email}` });
    await removeButton.click();
    await page.getByRole('dialog', { name: `Remove ${colleague.email}?` }).getByRole('button', { name: 'Remove member' }).click();
    await notifications(page).getByText(/will be removed from Support team when this notice closes/).waitFor();
    await notifications(page).getByRole('button', { name: 'Undo' }).click();
    await removeButton.waitFor();
    assert.equal(await isMember(), true);
    await removeButton.click();
    await page.getByRole('dialog', { name: `Remove ${colleague.email}?` }).getByRole('button', { name: 'Remove member' }).click();
    await notifications(page).getByRole('button', { name: 'Dismiss' }).click();
    await page.getByText(`${colleague.email} was removed from Support team.`).waitFor();
    assert.equal(await isMember(), false);
  } finally {
    await dashboard.close();
  }
});
