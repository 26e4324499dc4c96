import { escapeHtml } from '../lib/html.js';
import { page } from './layout.js';

/**
 * GET /verify-email: says what confirming does and asks for a click. Loading it verifies nothing,
 * so a mail scanner that opens every link confirms no one's address.
 */
export function verifyEmailConfirmPage(token: string, email: string): string {
  return page(
    'Confirm your e-mail address',
    `<h1>Confirm your e-mail address</h1>
<p>Confirm that <strong>${escapeHtml(email)}</strong> is yours and that you created this Siteward account.</p>
<form method="post" action="/verify-email">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit">Confirm</button>
</form>
<p class="muted">Did not create an account? Do not confirm: someone may have used your address. <a href="/sign-in">Sign in with an e-mail link</a> instead and choose to reset the account.</p>`,
  );
}

export function verifyEmailDonePage(email: string): string {
  return page(
    'Address confirmed',
    `<h1>Address confirmed</h1>
<p><strong>${escapeHtml(email)}</strong> is confirmed for your Siteward account.</p>
<p><a href="/">Open Siteward</a></p>`,
  );
}

/** An unknown, used or expired link, and how to get a new one. */
export function verifyEmailInvalidPage(): string {
  return page(
    'Link expired',
    `<h1>This confirmation link no longer works</h1>
<p>Confirmation links work once and expire after 24 hours. Sign in and use "Send a new link" in the banner at the top of Siteward, or, for a change of address, ask for it again under Settings &gt; Profile.</p>
<p><a href="/sign-in">Sign in</a></p>`,
  );
}

/**
 * GET /verify-email for an address-change link: names the address the account would move to and
 * asks for a click. Loading it changes nothing.
 */
export function emailChangeConfirmPage(token: string, newEmail: string): string {
  return page(
    'Confirm your new e-mail address',
    `<h1>Confirm your new e-mail address</h1>
<p>Make <strong>${escapeHtml(newEmail)}</strong> the e-mail address you sign in to Siteward with. Your old address will no longer sign in.</p>
<form method="post" action="/verify-email">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit">Change address</button>
</form>
<p class="muted">Did not ask for this from your own Siteward account? Do not confirm: close this page and nothing changes.</p>`,
  );
}

export function emailChangeDonePage(newEmail: string): string {
  return page(
    'E-mail address changed',
    `<h1>E-mail address changed</h1>
<p>Your Siteward account now uses <strong>${escapeHtml(newEmail)}</strong>. Sign in with it from now on.</p>
<p><a href="/">Open Siteward</a></p>`,
  );
}

/** Another account took the address after the change was asked for: nothing changed. */
export function emailChangeTakenPage(newEmail: string): string {
  return page(
    'Address already in use',
    `<h1>This address is already in use</h1>
<p>Another Siteward account signs in with <strong>${escapeHtml(newEmail)}</strong>, so your address was not changed. Nothing else changed either.</p>
<p><a href="/settings/profile">Choose another address</a></p>`,
  );
}
