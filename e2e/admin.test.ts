import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdminService } from '../src/admin/service.js';
import { createUserAsOperator, signUp, STRONG_PASSWORD } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

const WINDOW_SECONDS = 60;

test('Admin: only administrators see it; search, disable, enable and sign out a user with confirmations and a fresh sign-in; axe light and dark', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ env: { REAUTH_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  const { page, origin, t } = dashboard;
  try {
    const admin = await signUp(t.app, 'operator@example.com');
    await new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).promote(admin.email);
    const target = await createUserAsOperator(t, 'mallory@example.com');
    await createUserAsOperator(t, 'alice@example.com');

    // Someone who is not an administrator: no Admin link, and the address says so.
    const member = await signUp(t.app);
    const other = await dashboard.newDevice();
    await signInPage(other.page, origin, member.email);
    await other.page.goto(`${origin}/`);
    await other.page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    assert.equal(await other.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count(), 0);
    await other.page.goto(`${origin}/admin`);
    await other.page.getByText('Only instance administrators can open this').waitFor();

    await signInPage(page, origin, admin.email);
    await page.goto(`${origin}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
    const users = page.getByRole('list', { name: 'Users' });
    await users.getByText('alice@example.com').waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await seriousAccessibilityProblems(page, { scope: 'main' }), [], colorScheme);
      await dashboard.screenshot(`admin-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByLabel('Search users').fill('MALL');
    await users.getByText('alice@example.com').waitFor({ state: 'detached' });
    await users.getByText(target.email).waitFor();

    // The sign-in has aged: the server asks who it is before the change goes through.
    t.clock.advance(WINDOW_SECONDS * 1000);
    await users.getByRole('button', { name: `Disable ${target.email}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Disable this account?' });
    await confirm.waitFor();
    assert.deepEqual(await seriousAccessibilityProblems(page, { scope: 'dialog[open]' }), []);
    await confirm.getByRole('button', { name: 'Disable' }).click();
    const reauthenticate = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await reauthenticate.waitFor();
    await reauthenticate.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await reauthenticate.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`${target.email} is disabled.`).waitFor();
    await users.getByText('Disabled', { exact: true }).waitFor();
    const refused = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: STRONG_PASSWORD } });
    assert.equal(refused.json().code, 'account_disabled');

    await users.getByRole('button', { name: `Enable ${target.email}` }).click();
    await page.getByRole('dialog', { name: 'Enable this account?' }).getByRole('button', { name: 'Enable' }).click();
    await page.getByText(`${target.email} is enabled.`).waitFor();
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: STRONG_PASSWORD } })).statusCode, 200);

    await users.getByRole('button', { name: `Sign out ${target.email} everywhere` }).click();
    await page.getByRole('dialog', { name: 'Sign this account out everywhere?' }).getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText(`${target.email} is signed out everywhere.`).waitFor();

    // Their own row offers nothing to do to themselves.
    await page.getByLabel('Search users').fill('operator');
    await users.getByText(admin.email).waitFor();
    assert.equal(await users.getByRole('button').count(), 0);
  } finally {
    await dashboard.close();
  }
});
