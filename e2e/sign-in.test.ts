import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { enableTotp, signUp, signUpConfirmed, STRONG_PASSWORD } from '../test/helpers.js';
import { totp } from '../test/rfc6238.js';
import { linkIn } from '../test/smtp.js';
import { openDashboard } from './harness.js';

interface WhoAmI {
  status: number;
  code?: string;
  email?: string;
}

/** GET /api/v1/me from inside the page, with whatever cookie the browser holds. */
function whoAmI(page: Page): Promise<WhoAmI> {
  return page.evaluate(async () => {
    const response = await fetch('/api/v1/me', { headers: { accept: 'application/json' } });
    const body = (await response.json()) as { code?: string; user?: { email: string } };
    return { status: response.status, code: body.code, email: body.user?.email };
  });
}

async function fillPasswordForm(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The signed-in shell names the account in its header (hidden on narrow screens, so checked by text content). */
async function waitForDashboard(page: Page, origin: string, email: string, path = '/'): Promise<void> {
  await page.waitForURL(`${origin}${path}`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  assert.equal(await page.getByRole('banner').getByText(email, { exact: true }).count(), 1);
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
}

function uniqueEmail(): string {
  return `ui-${randomBytes(4).toString('hex')}@example.com`;
}

test('sign up in the browser, sign out, and sign in again with the password; a wrong password gets the server message and no session', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t } = dashboard;
  try {
    const email = uniqueEmail();
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    await dashboard.screenshot('sign-in');

    // Sign-up is open by default, so the screen offers it.
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-up');
    await dashboard.screenshot('sign-up');

    // The server's password policy answers at the field.
    await page.getByLabel('Name (optional)').fill('Ada Lovelace');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Password is one of the most commonly used passwords').waitFor();
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    await dashboard.screenshot('sign-up-password-refused');
    // A password made of the account's own e-mail address is refused by name, too.
    await page.getByLabel('Password').fill(email.toUpperCase());
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Password must not be built from your e-mail address').waitFor();
    assert.equal((await whoAmI(page)).status, 401);

    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await waitForDashboard(page, origin, email);
    assert.deepEqual(await whoAmI(page), { status: 200, code: undefined, email });

    // The account exists with that name and password, for the API too.
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: STRONG_PASSWORD } });
    assert.equal(login.statusCode, 200);
    assert.equal(login.json<{ user: { name: string } }>().user.name, 'Ada Lovelace');

    // The same address cannot sign up twice: the e-mail field says so.
    await signOut(page);
    assert.equal((await whoAmI(page)).status, 401);
    await page.goto(`${origin}/sign-up`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('An account with this e-mail address already exists.').waitFor();
    assert.equal(await page.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');

    // A wrong password: the server's message, the password field emptied, no session at all.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await fillPasswordForm(page, email, 'not-the-right-password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /The e-mail address or password is wrong\./);
    assert.equal(await page.getByLabel('Password').inputValue(), '');
    assert.equal(await page.getByLabel('E-mail').inputValue(), email);
    assert.equal((await whoAmI(page)).status, 401);
    assert.equal((await dashboard.context.cookies(origin)).filter((cookie) => cookie.name.endsWith('siteward_session')).length, 0);
    await dashboard.screenshot('sign-in-wrong-password');

    // Ten failures lock the account for 15 minutes; the screen says how long, once, in minutes.
    for (let failure = 2; failure <= 10; failure++) {
      const refused = await t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin }, payload: { email, password: `wrong-${failure}` } });
      assert.equal(refused.statusCode, 401);
    }
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Too many attempts. Try again in 15 minutes.', { exact: true }).waitFor();
    assert.equal((await whoAmI(page)).status, 401);

    t.clock.advance(15 * 60 * 1000);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await waitForDashboard(page, origin, email);
    assert.equal((await whoAmI(page)).email, email);
  } finally {
    await dashboard.close();
  }
});

test('sign in by magic link: asking shows "check your inbox", opening the link signs nobody in, its button does', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t, smtp } = dashboard;
  try {
    const user = await signUpConfirmed(t.app, smtp);
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'E-mail me a sign-in link' }).waitFor();
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByRole('button', { name: 'E-mail me a link' }).click();

    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await page.getByText(`If an account exists for ${user.email}, a link is on its way. It expires in 15 minutes.`).waitFor();
    await dashboard.screenshot('check-inbox');

    // "Use a different address" goes back to the form with the address kept for editing.
    await page.getByRole('button', { name: 'Use a different address' }).click();
    assert.equal(await page.getByLabel('E-mail').inputValue(), user.email);

    const mail = await smtp.waitForMessage(0, (message) => message.subject === 'Your Siteward sign-in link', 30_000);
    assert.deepEqual(mail.to, [user.email]);
    const link = linkIn(mail);
    assert.ok(link.startsWith(`${origin}/magic?token=`), link);

    // Opening the link only shows a confirmation page: a mail scanner's GET signs nobody in. (The
    // page's CSP forbids fetch, so the cookie jar and the database tell.)
    await page.goto(link);
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    await page.getByText(user.email).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal((await dashboard.context.cookies(origin)).filter((cookie) => cookie.name.endsWith('siteward_session')).length, 0);
    assert.equal((await t.database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).length, 0);

    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForDashboard(page, origin, user.email);
    assert.equal((await whoAmI(page)).email, user.email);

    // The link worked once.
    await page.goto(link);
    await page.getByRole('heading', { name: 'This sign-in link no longer works' }).waitFor();
  } finally {
    await dashboard.close();
  }
});

test('sign in with password and TOTP: the second step takes a fresh code, refuses a wrong one, and Cancel ends the waiting sign-in', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t } = dashboard;
  try {
    const user = await signUp(t.app);
    const { secret } = await enableTotp(t, user);

    await page.goto(`${origin}/sign-in`);
    await fillPasswordForm(page, user.email, STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.getByText('Enter the 6-digit code from your authenticator app, or a recovery code').waitFor();
    await dashboard.screenshot('sign-in-2fa');
    // The password alone opened nothing.
    assert.equal((await whoAmI(page)).code, 'second_factor_required');

    // A code outside the accepted window (one step either side) is refused at the field.
    const valid = new Set([-1, 0, 1].map((step) => totp(secret, t.clock.now(), step)));
    const wrong = ['000000', '111111', '222222', '333333'].find((code) => !valid.has(code)) ?? assert.fail('no wrong code');
    await page.getByLabel('Authentication code').fill(wrong);
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByText('That code is wrong or has already been used').waitFor();
    assert.equal(await page.getByLabel('Authentication code').getAttribute('aria-invalid'), 'true');
    assert.equal((await whoAmI(page)).code, 'second_factor_required');

    // Cancel ends the pending session on the server and returns to the first step.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    assert.equal((await whoAmI(page)).code, 'unauthenticated');

    await fillPasswordForm(page, user.email, STRONG_PASSWORD);
    await page.getByLabel('Authentication code').fill(totp(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await waitForDashboard(page, origin, user.email);
    assert.equal((await whoAmI(page)).email, user.email);

    // Each code works once: the next sign-in needs the next step's code.
    await signOut(page);
    t.clock.advance(30_000);
    await fillPasswordForm(page, user.email, STRONG_PASSWORD);
    await page.getByLabel('Authentication code').fill(totp(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await waitForDashboard(page, origin, user.email);
  } finally {
    await dashboard.close();
  }
});

test('after signing in, a same-site next path is followed and an outside one is ignored (375 px wide)', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard({ viewport: { width: 375, height: 812 } });
  const { page, origin, t } = dashboard;
  try {
    const user = await signUp(t.app);

    // A signed-out visit to a screen comes back to it after signing in.
    await page.goto(`${origin}/settings/access-tokens`);
    await page.waitForURL(`${origin}/sign-in?next=${encodeURIComponent('/settings/access-tokens')}`);
    await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    await dashboard.screenshot('sign-in-375');
    await fillPasswordForm(page, user.email, STRONG_PASSWORD);
    await waitForDashboard(page, origin, user.email, '/settings/access-tokens');
    await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor();

    for (const next of ['//evil.example/steal', 'https://evil.example/steal', '/\\evil.example', 'javascript:alert(1)']) {
      await signOut(page);
      await page.goto(`${origin}/sign-in?next=${encodeURIComponent(next)}`);
      await fillPasswordForm(page, user.email, STRONG_PASSWORD);
      await waitForDashboard(page, origin, user.email, '/');
      assert.equal(new URL(page.url()).origin, origin, next);
    }
  } finally {
    await dashboard.close();
  }
});

/**
 * Registers a passkey for the signed-in page through the API, with the browser's own JSON helpers
 * (a string, because the tests compile without the DOM's types).
 */
const REGISTER_PASSKEY = `(async () => {
  const started = await fetch('/api/v1/me/passkeys/options', { method: 'POST', headers: { accept: 'application/json' } });
  const { options } = await started.json();
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  const finished = await fetch('/api/v1/me/passkeys', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ name: 'Test laptop', response: credential.toJSON() }),
  });
  return finished.status;
})()`;

test('sign in with a passkey; a refused browser prompt gets a calm message, not an error', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { page, origin, t } = dashboard;
  try {
    const user = await signUp(t.app);
    const { cdp, authenticatorId } = await dashboard.addVirtualAuthenticator();
    await page.goto(`${origin}/sign-in`);
    await fillPasswordForm(page, user.email, STRONG_PASSWORD);
    await waitForDashboard(page, origin, user.email);
    assert.equal(await page.evaluate(REGISTER_PASSKEY), 201);
    await signOut(page);

    // The authenticator declines to verify its user, as when someone closes the prompt.
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('Passkey sign-in was cancelled').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'a cancelled prompt is not an error');
    assert.equal((await whoAmI(page)).status, 401);

    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await waitForDashboard(page, origin, user.email);
    assert.equal((await whoAmI(page)).email, user.email);
    const passkeys = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: { authorization: user.bearer } });
    assert.notEqual(passkeys.json<{ passkeys: Array<{ last_used_at: string | null }> }>().passkeys[0]?.last_used_at, null);
  } finally {
    await dashboard.close();
  }
});

test('with sign-up closed, the sign-in screen offers no account creation and /sign-up says it is closed', { timeout: 120_000 }, async () => {
  const dashboard = await openDashboard({ env: { SIGNUP: 'closed' } });
  const { page, origin, t } = dashboard;
  try {
    await page.goto(`${origin}/sign-up`);
    await page.getByRole('heading', { name: 'Sign-up is closed' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create account' }).count(), 0);
    // Once the sign-in screen knows sign-up is closed, it points to the administrator instead.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByText('Ask the administrator of this server for an account.').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
    const config = await t.app.inject({ method: 'GET', url: '/auth/config' });
    assert.deepEqual(config.json(), { signup: 'closed', oidc: [] });
  } finally {
    await dashboard.close();
  }
});
