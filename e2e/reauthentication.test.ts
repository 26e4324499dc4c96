import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMember, createWorkspace, enableTotp, signUp, signUpConfirmed, STRONG_PASSWORD } from '../test/helpers.js';
import { totp } from '../test/rfc6238.js';
import { linkIn } from '../test/smtp.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

const WINDOW_SECONDS = 60;
const NEW_PASSWORD = 'quartz-meadow-lantern-97';

test('an access token asked for after the sign-in has aged: the dialog takes the password, and the token is created without asking again', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { REAUTH_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  const { page, origin, t } = dashboard;
  try {
    const user = await signUp(t.app);
    await page.goto(`${origin}/settings/access-tokens`);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor();
    t.clock.advance(WINDOW_SECONDS * 1000);

    await page.getByLabel('Token name').fill('CI deploy');
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await dialog.waitFor();
    await dashboard.screenshot('reauthenticate-dialog');

    // A wrong password is said at the field, and the dialog stays.
    await dialog.getByLabel('Password', { exact: true }).fill('not-my-password-at-all');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByText('That is not your password.').waitFor();
    assert.equal(await page.getByLabel('New access token').count(), 0, 'nothing created yet');

    await dialog.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // The refused request went again on its own: the secret is on screen, the button never pressed twice.
    const secret = page.getByLabel('New access token');
    await secret.waitFor();
    await dialog.waitFor({ state: 'hidden' });
    assert.match(((await secret.textContent()) ?? '').trim(), /^swd_/);
    await dashboard.screenshot('reauthenticate-token-created');

    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/access-tokens', headers: { authorization: user.bearer } });
    assert.deepEqual(
      listed.json<{ access_tokens: Array<{ name: string }> }>().access_tokens.map((token) => token.name),
      ['CI deploy'],
      'exactly one token',
    );
  } finally {
    await dashboard.close();
  }
});

test('an admin invitation sent after the sign-in has aged: the dialog asks, and the invitation goes out once confirmed', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { REAUTH_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  const { page, origin, t, smtp } = dashboard;
  try {
    const owner = await signUpConfirmed(t.app, smtp);
    const admin = await signUpConfirmed(t.app, smtp);
    const workspaceId = await createWorkspace(t.app, owner, 'Support team');
    assert.equal(await addMember(t, workspaceId, admin, 'admin'), true);
    await signInPage(page, origin, admin.email);
    await page.goto(`${origin}/settings/workspaces/${workspaceId}`);
    const invitations = page.getByRole('region', { name: 'Invitations' });
    await invitations.getByText('No invitation is waiting for an answer.').waitFor();
    t.clock.advance(WINDOW_SECONDS * 1000);

    await invitations.getByLabel('E-mail address').fill('second-admin@example.com');
    await invitations.getByLabel('Role', { exact: true }).selectOption('admin');
    await invitations.getByRole('button', { name: 'Send invitation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await dialog.waitFor();
    const pending = await t.database.db.selectFrom('invitations').select('id').where('workspace_id', '=', workspaceId).execute();
    assert.equal(pending.length, 0, 'nothing sent before the confirmation');
    await dialog.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await invitations.getByText('Invitation sent to second-admin@example.com.', { exact: false }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const rows = await t.database.db.selectFrom('invitations').select(['email', 'role']).where('workspace_id', '=', workspaceId).execute();
    assert.deepEqual(rows, [{ email: 'second-admin@example.com', role: 'admin' }], 'exactly one invitation, as admin');
  } finally {
    await dashboard.close();
  }
});

test('forgot password: the e-mail link signs in, a new password is set without the old one, and it signs in', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t, smtp } = dashboard;
  try {
    // Confirmed, as the owner's account would be: an unconfirmed one stops at the keep-or-reset choice first.
    const user = await signUpConfirmed(t.app, smtp);
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByText('you can set a new password under Settings > Security').waitFor();
    await dashboard.screenshot('forgot-password');
    const before = smtp.messages.length;
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByRole('button', { name: 'E-mail me a link' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();

    const mail = await smtp.waitForMessage(before, (message) => message.to.includes(user.email) && message.text.includes('/magic?token='), 30_000);
    await page.goto(linkIn(mail));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/`);

    await page.goto(`${origin}/settings/security`);
    await page.getByText('You signed in a moment ago, so your current password is not needed.').waitFor();
    assert.equal(await page.getByLabel('Current password').count(), 0, 'no current password asked for');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('You were signed out on all other devices.').waitFor();
    await dashboard.screenshot('forgot-password-new-password-set');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } });
    assert.equal(login.statusCode, 401, 'the old password is gone');
  } finally {
    await dashboard.close();
  }
});

test('with 2FA on, the dialog asks for the code at once, and Recent activity says the code was used', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { REAUTH_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  const { page, origin, t } = dashboard;
  try {
    const user = await signUp(t.app);
    await signInPage(page, origin, user.email);
    const { secret } = await enableTotp(t, user);
    await page.goto(`${origin}/settings/access-tokens`);
    await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor();
    t.clock.advance(WINDOW_SECONDS * 1000);

    await page.getByLabel('Token name').fill('CI deploy');
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await dialog.waitFor();
    // Both fields from the start: no refusal needed to learn that a code is wanted.
    await dialog.getByLabel('Password', { exact: true }).waitFor();
    await dialog.getByLabel('Code', { exact: true }).waitFor();
    await dialog.getByText('Confirm with your password and a code or a passkey').waitFor();
    await dialog.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await dialog.getByLabel('Code', { exact: true }).fill(totp(secret, t.clock.now()));
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByLabel('New access token').waitFor();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('region', { name: 'Recent activity' }).getByText('Confirmed it was you with your password and an authenticator code').waitFor();
  } finally {
    await dashboard.close();
  }
});
