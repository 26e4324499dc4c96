import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signUpConfirmed, STRONG_PASSWORD } from '../test/helpers.js';
import { openDashboard } from './harness.js';

const WINDOW_SECONDS = 60;

test('Settings > Profile: the name changes; an e-mail change asks to confirm it is you, waits for the new inbox, and its link moves the account', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { REAUTH_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  const { page, origin, t, smtp } = dashboard;
  try {
    const user = await signUpConfirmed(t.app, smtp, 'profile-old@example.com');
    await page.goto(`${origin}/settings`);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Profile' }).getAttribute('aria-current'), 'page');

    // The name, trimmed by the server.
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('  Ada Lovelace ');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Name saved.').waitFor();
    assert.equal(await name.inputValue(), 'Ada Lovelace');

    // The sign-in has aged: the request opens the confirmation dialog, then goes through by itself.
    t.clock.advance(WINDOW_SECONDS * 1000);
    const asked = smtp.messages.length;
    await page.getByLabel('New e-mail address').fill('profile-new@example.com');
    await page.getByRole('button', { name: 'Change e-mail' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await dialog.waitFor();
    await dialog.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const waiting = page.getByRole('status').filter({ hasText: 'Check the new address' });
    await waiting.waitFor();
    await waiting.getByText('profile-new@example.com').waitFor();
    await dashboard.screenshot('profile-email-change-pending');

    // An address another account holds is refused at the field.
    await signUpConfirmed(t.app, smtp, 'profile-taken@example.com');
    await page.getByLabel('New e-mail address').fill('profile-taken@example.com');
    await page.getByRole('button', { name: 'Change e-mail' }).click();
    await page.getByText('Another account already uses this address.').waitFor();
    assert.equal(await page.getByLabel('New e-mail address').getAttribute('aria-invalid'), 'true');

    // After a reload the waiting change is still said plainly.
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Change waiting for confirmation' }).getByText('profile-new@example.com').waitFor();

    const mail = await smtp.waitForMessage(asked, (message) => message.to.includes('profile-new@example.com'), 30_000);
    const link = /https?:\/\/\S+\/verify-email\?token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0] ?? assert.fail('no link in the mail');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Confirm your new e-mail address' }).waitFor();
    await page.getByRole('button', { name: 'Change address' }).click();
    await page.getByRole('heading', { name: 'E-mail address changed' }).waitFor();

    await page.goto(`${origin}/settings/profile`);
    await page.getByText('You sign in with').getByText('profile-new@example.com').waitFor();
    assert.equal((await page.locator('.account-email').textContent())?.trim(), 'profile-new@example.com');
    assert.equal(await page.getByText('Change waiting for confirmation').count(), 0);
    await dashboard.screenshot('profile-email-changed');
    await smtp.waitForMessage(0, (message) => message.to.includes('profile-old@example.com') && message.subject === 'Your Siteward e-mail address was changed', 30_000);
  } finally {
    await dashboard.close();
  }
});
