import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMember, createSite, createWorkspace, enableTotp, signUpConfirmed } from '../test/helpers.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// A workspace's owner requires two-factor authentication from its settings screen, and a member
// without it is led to set it up: in a real Chromium against the real app, each checked through
// the API too.

test('an owner turns the requirement on (after setting up their own 2FA); a member without it is shown why the workspace is closed and where to open it', { timeout: 240_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin, smtp } = dashboard;
  try {
    const owner = await signUpConfirmed(t.app, smtp);
    const member = await signUpConfirmed(t.app, smtp);
    const workspaceId = await createWorkspace(t.app, owner, 'Support team');
    const site = await createSite(t.app, owner.bearer, { name: 'Team help desk', workspace_id: workspaceId });
    assert.equal(await addMember(t, workspaceId, member, 'editor'), true);

    await signInPage(page, origin, owner.email);
    await page.goto(`${origin}/settings/workspaces/${workspaceId}`);
    const section = page.getByRole('region', { name: 'Two-factor authentication' });
    const requirement = section.getByLabel('Require two-factor authentication of every member');
    await requirement.check();
    await section.getByRole('button', { name: 'Save' }).click();
    // Without a second factor of their own, the owner is told to set one up first.
    await section.getByText('Set it up for yourself first').waitFor();
    await section.getByRole('link', { name: 'Go to Settings › Security' }).waitFor();
    await dashboard.screenshot('workspace-two-factor-own-first');

    await enableTotp(t, owner);
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByText('Two-factor authentication is now required of every member.').waitFor();
    await page.getByText('two-factor authentication required of every member', { exact: false }).first().waitFor();
    await dashboard.screenshot('workspace-two-factor-required');
    const read = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspaceId}`, headers: { authorization: owner.bearer } });
    assert.equal(read.json<{ workspace: { require_two_factor: boolean } }>().workspace.require_two_factor, true);

    // The member, on their own device: the site's screen says why it is closed, and leads to Settings > Security.
    const device = await dashboard.newDevice();
    await signInPage(device.page, origin, member.email);
    await device.page.goto(`${origin}/sites/${site.id}`);
    const notice = device.page.getByRole('status').filter({ hasText: 'Two-factor authentication required' });
    await notice.waitFor();
    await dashboard.screenshot('site-two-factor-required', device.page);
    // The workspace's own screen says the same where its members would be.
    await device.page.goto(`${origin}/settings/workspaces/${workspaceId}`);
    await device.page.getByText('This workspace requires two-factor authentication of its members.').waitFor();
    await device.page.getByRole('link', { name: 'Set up two-factor authentication' }).first().click();
    await device.page.waitForURL(`${origin}/settings/security`);
    await device.page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
  } finally {
    await dashboard.close();
  }
});
