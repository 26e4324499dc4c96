import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { enableTotp, sessionCookie, signUp, STRONG_PASSWORD, type TestApp } from '../test/helpers.js';
import { totp } from '../test/rfc6238.js';
import { type Dashboard, openDashboard } from './harness.js';

const NEW_PASSWORD = 'quartz-meadow-lantern-97';

/**
 * Signs the browser in through the web sign-in endpoint (not the sign-in screen, which has tests
 * of its own), then opens Settings > Security.
 */
async function signIn(dashboard: Dashboard, email: string, page: Page = dashboard.page, password = STRONG_PASSWORD): Promise<void> {
  await page.goto(`${dashboard.origin}/sign-in`);
  const status = await page.evaluate(
    async (credentials) => {
      const response = await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
      return response.status;
    },
    { email, password },
  );
  assert.equal(status, 200, 'web sign-in');
  await page.goto(`${dashboard.origin}/settings/security`);
  await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
}

/** GET /api/v1/me from inside the page, with its own cookie: the page's view of its session. */
function meStatus(page: Page): Promise<number> {
  return page.evaluate(async () => (await fetch('/api/v1/me')).status);
}

function login(t: TestApp, email: string, password: string, otp?: string) {
  return t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password, ...(otp === undefined ? {} : { otp }) } });
}

test('Security: change the password; the old one stops working, other devices are signed out, this one stays', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { t, page } = dashboard;
    const user = await signUp(t.app);
    // Another device, signed in through the API: it must be signed out by the change.
    const other = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: dashboard.origin }, payload: { email: user.email, password: STRONG_PASSWORD } });
    const otherCookie = sessionCookie(other.headers['set-cookie']) ?? assert.fail('no cookie for the other device');
    await signIn(dashboard, user.email);
    // Right after signing in the form needs no current password (see reauthentication.test.ts);
    // once the sign-in is no longer recent it asks for it again.
    await page.getByText('You signed in a moment ago, so your current password is not needed.').waitFor();
    t.clock.advance(10 * 60 * 1000);
    await page.reload();

    await page.getByRole('heading', { name: 'Active sessions' }).waitFor();
    await page.getByRole('list', { name: 'Active sessions' }).getByRole('listitem').nth(1).waitFor();
    await dashboard.screenshot('security-overview');

    const current = page.getByLabel('Current password');
    const fresh = page.getByLabel('New password', { exact: true });
    const confirm = page.getByLabel('Confirm new password');
    const change = page.getByRole('button', { name: 'Change password' });

    // The form checks the confirmation itself.
    await current.fill(STRONG_PASSWORD);
    await fresh.fill(NEW_PASSWORD);
    await confirm.fill(`${NEW_PASSWORD}x`);
    await change.click();
    await page.getByText('The passwords do not match.').waitFor();

    // A wrong current password is shown at its field.
    await current.fill('not-my-password-at-all');
    await confirm.fill(NEW_PASSWORD);
    await change.click();
    await page.getByText('This is not your current password.').waitFor();
    assert.equal(await current.getAttribute('aria-invalid'), 'true');

    // A common password is refused at the new password's field.
    await current.fill(STRONG_PASSWORD);
    await fresh.fill('password123');
    await confirm.fill('password123');
    await change.click();
    await page.getByText(/most commonly used passwords/).waitFor();
    assert.equal(await fresh.getAttribute('aria-invalid'), 'true');
    assert.equal((await login(t, user.email, STRONG_PASSWORD)).statusCode, 200, 'nothing changed yet');

    await fresh.fill(NEW_PASSWORD);
    await confirm.fill(NEW_PASSWORD);
    await change.click();
    await page.getByText('You were signed out on all other devices.').waitFor();
    assert.equal(await current.inputValue(), '', 'the form is cleared');

    assert.equal((await login(t, user.email, STRONG_PASSWORD)).statusCode, 401, 'the old password fails');
    assert.equal((await login(t, user.email, NEW_PASSWORD)).statusCode, 200, 'the new one works');
    const otherMe = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: otherCookie.header } });
    assert.equal(otherMe.statusCode, 401, 'the other device was signed out');
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: user.bearer } })).statusCode, 401, 'the old JWT is revoked');
    assert.equal(await meStatus(page), 200, 'this browser is still signed in');
    // The sessions card reloaded: only this device is left.
    await page.getByText('You are not signed in anywhere else.').waitFor();

    await page.setViewportSize({ width: 375, height: 812 });
    await page.reload();
    await page.getByRole('heading', { name: 'Active sessions' }).waitFor();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    await dashboard.screenshot('security-overview-375');
    // Nothing sticks out sideways on a phone.
    const widths = await page.evaluate(() => {
      const browser = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
      return { page: browser.document.documentElement.scrollWidth, viewport: browser.innerWidth };
    });
    assert.ok(widths.page <= widths.viewport, `no horizontal scrolling at 375 px (${widths.page} > ${widths.viewport})`);
  } finally {
    await dashboard.close();
  }
});

test('Security: turn on 2FA by scanning the key, save the recovery codes, sign in with a code, turn it off', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { t, page } = dashboard;
    const user = await signUp(t.app);
    await signIn(dashboard, user.email);

    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
    assert.equal(await qr.evaluate((image: { complete: boolean; naturalWidth: number }) => image.complete && image.naturalWidth > 0), true, 'the QR code rendered (CSP allows data: images)');
    const secret = (await page.getByLabel('Setup key').inputValue()).replace(/\s+/g, '');
    assert.match(secret, /^[A-Z2-7]{16,}$/, 'the key is base32, shown in groups of four');
    await dashboard.screenshot('security-totp-setup');

    // A wrong code is shown at the code field and turns nothing on.
    const codeInput = page.getByLabel('6-digit code');
    assert.equal(await codeInput.getAttribute('inputmode'), 'numeric');
    assert.equal(await codeInput.getAttribute('autocomplete'), 'one-time-code');
    await codeInput.fill(totp(secret, t.clock.now(), 5));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('That code is wrong or has already been used.').waitFor();

    await codeInput.fill(totp(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codeList = page.getByRole('list', { name: 'Recovery codes' });
    await codeList.waitFor();
    const codes = (await codeList.getByRole('listitem').allTextContents()).map((code) => code.trim());
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    await dashboard.screenshot('security-recovery-codes');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    assert.equal(download.suggestedFilename(), 'siteward-recovery-codes.txt');
    const saved = await readFile(await download.path(), 'utf8');
    for (const code of codes) assert.ok(saved.includes(code), `the file holds ${code}`);

    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('10 of 10').waitFor();
    assert.equal(await codeList.count(), 0, 'the codes are gone from the screen');

    // The API now asks for a code, and takes one computed for the new secret (next step: each code works once).
    const status = await t.app.inject({ method: 'GET', url: '/api/v1/me/totp', headers: { authorization: user.bearer } });
    assert.deepEqual(status.json(), { enabled: true, recovery_codes_remaining: 10 });
    assert.equal((await login(t, user.email, STRONG_PASSWORD)).json().code, 'otp_required');
    t.clock.advance(30_000);
    assert.equal((await login(t, user.email, STRONG_PASSWORD, totp(secret, t.clock.now()))).statusCode, 200);
    // A code read off the screen is a real recovery code.
    assert.equal((await login(t, user.email, STRONG_PASSWORD, codes[0] ?? assert.fail('no code on screen'))).statusCode, 200);
    await page.reload();
    await page.getByText('9 of 10').waitFor();

    // Turning it off needs a code, in a confirmation dialog.
    t.clock.advance(30_000);
    await page.getByRole('button', { name: 'Turn off' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn off two-factor authentication?' });
    await dialog.getByLabel('Code', { exact: true }).fill(totp(secret, t.clock.now()));
    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Two-factor authentication is off.').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/me/totp', headers: { authorization: user.bearer } });
    assert.equal(after.json().enabled, false);
    assert.equal((await login(t, user.email, STRONG_PASSWORD)).statusCode, 200, 'no code needed any more');
  } finally {
    await dashboard.close();
  }
});

test('Security: regenerate recovery codes with a code; the old ones stop working', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { t, page } = dashboard;
    const user = await signUp(t.app);
    const { secret, recoveryCodes } = await enableTotp(t, user);
    // TOTP is on: the web sign-in finishes with a code.
    await page.goto(`${dashboard.origin}/sign-in`);
    const status = await page.evaluate(
      async (credentials) => (await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) })).status,
      { email: user.email, password: STRONG_PASSWORD, otp: totp(secret, t.clock.now()) },
    );
    assert.equal(status, 200);
    t.clock.advance(30_000);
    await page.goto(`${dashboard.origin}/settings/security`);

    await page.getByRole('button', { name: 'Regenerate recovery codes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace your recovery codes?' });
    await dialog.getByLabel('Code', { exact: true }).fill('999999');
    await dialog.getByRole('button', { name: 'Replace codes' }).click();
    await dialog.getByText('That code is wrong or has already been used.').waitFor();
    await dialog.getByLabel('Code', { exact: true }).fill(totp(secret, t.clock.now()));
    await dialog.getByRole('button', { name: 'Replace codes' }).click();
    // allTextContents does not wait: wait for the new list to be on screen first.
    const newCodes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await newCodes.first().waitFor();
    const codes = (await newCodes.allTextContents()).map((code) => code.trim());
    assert.equal(codes.length, 10);
    assert.ok(!codes.some((code) => recoveryCodes.includes(code)), 'a new set');
    await page.setViewportSize({ width: 375, height: 812 });
    await dashboard.screenshot('security-recovery-codes-375');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('10 of 10').waitFor();

    assert.equal((await login(t, user.email, STRONG_PASSWORD, recoveryCodes[0] ?? assert.fail('no old code'))).statusCode, 401, 'an old code no longer works');
    assert.equal((await login(t, user.email, STRONG_PASSWORD, codes[0] ?? assert.fail('no code on screen'))).statusCode, 200, 'a new one does');
  } finally {
    await dashboard.close();
  }
});

test('Security: add a passkey with the browser, rename it, remove it', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { t, page } = dashboard;
    const user = await signUp(t.app);
    await signIn(dashboard, user.email);
    const { cdp, authenticatorId } = await dashboard.addVirtualAuthenticator();

    await page.getByText('You have no passkeys yet.').waitFor();
    const name = page.getByLabel('Name for the new passkey');
    assert.match(await name.inputValue(), /^Passkey on \w+/, 'a default name from the platform');
    await name.fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Added “Work laptop”.').waitFor();
    const passkeys = page.getByRole('list', { name: 'Your passkeys' });
    await passkeys.getByText('Work laptop').waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1, 'the authenticator holds the new passkey');

    await page.getByRole('button', { name: 'Rename Work laptop' }).click();
    await page.getByLabel('Passkey name').fill('Laptop (Chromium)');
    await page.getByRole('button', { name: 'Save' }).click();
    await passkeys.getByText('Laptop (Chromium)').waitFor();
    await passkeys.getByText('Device-bound').or(passkeys.getByText('Synced')).or(passkeys.getByText('Not synced yet')).first().waitFor();

    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
    const apiPasskeys = listed.json<{ passkeys: Array<{ name: string }> }>().passkeys;
    assert.deepEqual(
      apiPasskeys.map((passkey) => passkey.name),
      ['Laptop (Chromium)'],
    );
    await dashboard.screenshot('security-passkeys');

    await page.getByRole('button', { name: 'Remove Laptop (Chromium)' }).click();
    await page.getByRole('dialog', { name: 'Remove this passkey?' }).getByRole('button', { name: 'Remove passkey' }).click();
    await page.getByText('You have no passkeys yet.').waitFor();
    const afterRemoval = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
    assert.deepEqual(afterRemoval.json(), { passkeys: [] });
  } finally {
    await dashboard.close();
  }
});

test('Security: see the sessions, revoke another device, then sign out everywhere', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard();
  try {
    const { t, page } = dashboard;
    const user = await signUp(t.app);
    await signIn(dashboard, user.email);
    const second = await dashboard.newDevice();
    await signIn(dashboard, user.email, second.page);

    // With 2FA on, a password-only sign-in waits for its code: it is listed, labelled as such.
    await enableTotp(t, user);
    const pending = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: dashboard.origin }, payload: { email: user.email, password: STRONG_PASSWORD } });
    assert.equal(pending.json().second_factor_required, true);

    await page.reload();
    const sessions = page.getByRole('list', { name: 'Active sessions' });
    const items = sessions.getByRole('listitem');
    await items.nth(2).waitFor();
    assert.equal(await items.count(), 3);
    assert.equal(await sessions.getByText('This device').count(), 1);
    assert.equal(await sessions.getByText('Waiting for 2FA code').count(), 1);
    assert.equal(await items.first().getByText('This device').count(), 1, 'this device is listed first');
    assert.match((await items.first().textContent()) ?? '', /Chrome on Linux/);
    await dashboard.screenshot('security-sessions');

    await page.getByRole('button', { name: 'Sign out Chrome on Linux session' }).click();
    await page.getByRole('dialog', { name: 'Sign out this session?' }).getByRole('button', { name: 'Sign it out' }).click();
    await page.getByText('Signed out Chrome on Linux.').waitFor();
    assert.equal(await items.count(), 2);
    assert.equal(await meStatus(second.page), 401, 'the other device is signed out');
    assert.equal(await meStatus(page), 200, 'this one is not');

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
    await dialog.getByText('including this one').waitFor();
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-in');
    assert.equal(await meStatus(page), 401, 'this session ended too');
    const jwt = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: user.bearer } });
    assert.equal(jwt.statusCode, 401, 'and every JWT issued before');
    const rows = await t.database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    assert.deepEqual(rows, []);
  } finally {
    await dashboard.close();
  }
});
