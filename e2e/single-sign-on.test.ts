import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { signUpConfirmed } from '../test/helpers.js';
import { startOidcProvider } from '../test/oidc-provider.js';
import { freePort } from '../test/processes.js';
import { seriousAccessibilityProblems } from './axe.js';
import { openDashboard } from './harness.js';

/** The rules checked: WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

async function accessibleInBothThemes(page: Page, screen: string, screenshot: (name: string) => Promise<void>): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await seriousAccessibilityProblems(page, { tags: WCAG_AA }), [], `${screen} (${colorScheme})`);
    await screenshot(`${screen}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('in Chromium: the sign-in screen’s provider button, the provider’s own login, and back into the dashboard; cancelling ends on a page; sign-in methods lists the provider; an invitee joins through it', { timeout: 180_000 }, async () => {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const secret = `secret-${randomBytes(12).toString('hex')}`;
  const idp = await startOidcProvider({
    clients: [{ client_id: 'siteward', client_secret: secret, redirect_uris: [`${origin}/auth/oidc/oidc/callback`] }],
    accounts: { grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' }, alan: { email: 'alan@example.com', email_verified: true, name: 'Alan Turing' } },
  });
  const dashboard = await openDashboard({ port, env: { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'siteward', OIDC_CLIENT_SECRET: secret, OIDC_NAME: 'Staff login' } });
  const { page } = dashboard;
  const screenshot = (name: string) => dashboard.screenshot(name);
  try {
    await page.goto(`${origin}/sign-in?next=${encodeURIComponent('/settings/security')}`);
    const button = page.getByRole('link', { name: 'Continue with Staff login' });
    await button.waitFor();
    await accessibleInBothThemes(page, 'sign-in-single-sign-on', screenshot);
    await page.goto(`${origin}/sign-up`);
    await page.getByRole('link', { name: 'Continue with Staff login' }).waitFor();

    // Changed their mind at the provider: our page says so and offers to try again.
    await page.goto(`${origin}/sign-in?next=${encodeURIComponent('/settings/security')}`);
    await page.getByRole('link', { name: 'Continue with Staff login' }).click();
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await page.getByRole('heading', { name: 'Sign-in cancelled', level: 1 }).waitFor();
    await accessibleInBothThemes(page, 'single-sign-on-cancelled', screenshot);

    // Try again: the provider's login form, then back where the sign-in was headed.
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('grace');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL(`${origin}/settings/security`);
    const methods = page.getByRole('region', { name: 'Sign-in methods' });
    await methods.getByText('grace@example.com').waitFor();
    assert.equal(await methods.getByRole('button', { name: 'Unlink Staff login' }).count(), 1);
    await page.getByRole('region', { name: 'Recent activity' }).getByText('Signed in with Staff login').first().waitFor();
    await accessibleInBothThemes(page, 'settings-security-sign-in-methods', screenshot);

    // The last way in: unlinking is refused with the reason, in the dialog.
    await methods.getByRole('button', { name: 'Unlink Staff login' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unlink Staff login?' });
    await dialog.getByRole('button', { name: 'Unlink' }).click();
    await dialog.getByText('This is your last way to sign in. Set a password or add a passkey first.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await methods.getByText('grace@example.com').count(), 1);

    // An invitee with no account joins through the provider, from the invitation's own page.
    const { t, smtp } = dashboard;
    const owner = await signUpConfirmed(t.app, smtp);
    const workspace = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Support' } });
    const before = smtp.messages.length;
    const invited = await t.app.inject({
      method: 'POST',
      url: `/api/v1/workspaces/${workspace.json().workspace.id}/invitations`,
      headers: { authorization: owner.bearer },
      payload: { email: 'alan@example.com', role: 'editor' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const mail = await smtp.waitForMessage(before, (message) => message.to.includes('alan@example.com'));
    const invitation = /https?:\/\/\S+\/invitations\/accept\?token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0] ?? assert.fail('no invitation link');
    const invitee = (await dashboard.newDevice()).page;
    await invitee.goto(invitation);
    await invitee.getByRole('heading', { name: 'Join a workspace', level: 1 }).waitFor();
    await accessibleInBothThemes(invitee, 'invitation-single-sign-on', (name) => dashboard.screenshot(name, invitee));
    await invitee.getByRole('link', { name: 'Continue with Staff login' }).click();
    await invitee.waitForURL((url) => url.origin === idp.issuer);
    await invitee.locator('input[name="login"]').fill('alan');
    await invitee.locator('input[name="password"]').fill('any password');
    await invitee.getByRole('button', { name: 'Sign-in' }).click();
    await invitee.waitForURL(invitation);
    await invitee.getByRole('button', { name: 'Join' }).click();
    await invitee.getByText('You joined Support as editor.').waitFor();
  } finally {
    await dashboard.close();
    await idp.close();
  }
});
