import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmEmail, signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { linkIn, verificationLinkIn, verificationMailTo } from '../test/smtp.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

test('an unverified account sees the banner and sends a new link; the mailbox holder resets a squatted account and sets a password', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t, smtp } = dashboard;
  try {
    const squatter = await signUp(t.app, 'owner@example.com');
    await verificationMailTo(smtp, squatter.email);

    // Signed in with the password, the dashboard asks for the confirmation and resends it.
    await page.goto(`${origin}/sign-in`);
    const status = await page.evaluate(
      async (credentials) => (await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) })).status,
      { email: squatter.email, password: STRONG_PASSWORD },
    );
    assert.equal(status, 200);
    await page.goto(`${origin}/`);
    const banner = page.getByRole('region', { name: 'Confirm your e-mail address' });
    await banner.waitFor();
    const before = smtp.messages.length;
    await banner.getByRole('button', { name: 'Send a new link' }).click();
    await banner.getByRole('status').getByText('We have sent a new confirmation link to owner@example.com').waitFor();
    await smtp.waitForMessages(before + 1, 30_000);
    await dashboard.screenshot('verify-email-banner');

    // The mailbox's holder, on another device, signs in by link and resets the account.
    const owner = await dashboard.newDevice();
    const asked = smtp.messages.length;
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email: squatter.email } })).statusCode, 202);
    const mail = await smtp.waitForMessage(asked, (message) => message.subject === 'Your Siteward sign-in link', 30_000);
    await owner.page.goto(linkIn(mail));
    await owner.page.getByRole('button', { name: 'Sign in' }).click();
    await owner.page.getByRole('heading', { name: 'Is this account yours?' }).waitFor();
    await dashboard.screenshot('claim-page', owner.page);
    await owner.page.getByRole('button', { name: 'Not me: reset the account' }).click();
    await owner.page.getByRole('heading', { name: 'Set a password' }).waitFor();
    assert.equal(await owner.page.getByRole('region', { name: 'Confirm your e-mail address' }).count(), 0, 'the address is confirmed now');
    assert.equal(await owner.page.getByLabel('Current password').count(), 0);
    await owner.page.getByLabel('New password', { exact: true }).fill('harbour-violet-comet-73');
    await owner.page.getByLabel('Confirm new password').fill('harbour-violet-comet-73');
    await owner.page.getByRole('button', { name: 'Set password' }).click();
    await owner.page.getByRole('heading', { name: 'Password', exact: true }).waitFor();

    // The squatter's browser session ended with the reset.
    assert.equal(await page.evaluate(async () => (await fetch('/api/v1/me')).status), 401);
  } finally {
    await dashboard.close();
  }
});

test('an address confirmed in another tab shows as confirmed on returning to this one, and a name changed there too', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t, smtp } = dashboard;
  try {
    const user = await signUp(t.app);
    const link = verificationLinkIn(await verificationMailTo(smtp, user.email));
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/settings/profile`);
    const banner = page.getByRole('region', { name: 'Confirm your e-mail address' });
    await banner.waitFor();

    // Elsewhere (another tab, the mail client's browser): the link is used and the name changed.
    await confirmEmail(t.app, link);
    assert.equal((await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: { authorization: user.bearer }, payload: { name: 'Ada from the other tab' } })).statusCode, 200);
    assert.equal(await banner.count(), 1, 'nothing changes until the person comes back to this tab');

    // Back on this tab: the browser says it is visible again, as it does on switching tabs.
    await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
    await banner.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.querySelector('input[name="name"]')?.value === 'Ada from the other tab');
  } finally {
    await dashboard.close();
  }
});

declare const window: { dispatchEvent(event: object): boolean };
declare const document: { querySelector(selector: string): { value: string } | null };
