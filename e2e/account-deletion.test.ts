import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMember, createWorkspace, signUp, signUpConfirmed, STRONG_PASSWORD } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { openDashboard } from './harness.js';

const WINDOW_SECONDS = 60;

test('Settings > Profile > Delete account: refused with the workspace to hand over, then done after a fresh confirmation, ending on the sign-in screen', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { REAUTH_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  const { page, origin, t, smtp } = dashboard;
  try {
    const owner = await signUpConfirmed(t.app, smtp, 'leaving@example.com');
    const member = await signUp(t.app);
    const shared = await createWorkspace(t.app, owner, 'Support team');
    await addMember(t, shared, member, 'editor');

    await page.goto(`${origin}/settings/profile`);
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const section = page.getByRole('region', { name: 'Delete account' });
    await section.waitFor();
    await section.getByText('Sites in workspaces you share with others stay there for them.').waitFor();
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: '.danger-zone' }), []);

    await section.getByRole('button', { name: 'Delete account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    // A wrong address goes nowhere.
    const confirmation = dialog.getByLabel(`Type ${owner.email} to confirm`);
    await confirmation.fill('someone-else@example.com');
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await dialog.getByText('Type your e-mail address exactly as shown.').waitFor();

    // The only owner of a workspace others use: refused, naming it.
    await confirmation.fill(owner.email);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await dialog.getByText('You are the only owner of a workspace that other people use.', { exact: false }).waitFor();
    await dialog.getByRole('list', { name: 'Workspaces to hand over' }).getByText('Support team').waitFor();
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: 'dialog[open]' }), []);
    await dashboard.screenshot('account-deletion-refused');

    const promoted = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${shared}/members/${member.id}`, headers: { authorization: owner.bearer }, payload: { role: 'owner' } });
    assert.equal(promoted.statusCode, 200, promoted.body);

    // The sign-in has aged meanwhile: the server asks who it is, and the deletion then goes through.
    t.clock.advance(WINDOW_SECONDS * 1000);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    const reauthenticate = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await reauthenticate.waitFor();
    await reauthenticate.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await reauthenticate.getByRole('button', { name: 'Confirm' }).click();

    await page.getByText('Your account was deleted, and every sign-in of it has ended.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    await dashboard.screenshot('account-deletion-done');
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: STRONG_PASSWORD } });
    assert.equal(login.statusCode, 401);
    const kept = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${shared}`, headers: { authorization: member.bearer } });
    assert.equal(kept.statusCode, 200, 'the shared workspace stays with its other owner');
  } finally {
    await dashboard.close();
  }
});
