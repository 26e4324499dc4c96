import { escapeHtml } from '../lib/html.js';
import { page } from './layout.js';

/** GET /magic: shows what the link will do and asks for a click. Loading it redeems nothing. */
export function magicConfirmPage(token: string, email: string): string {
  return page(
    'Confirm sign-in',
    `<h1>Sign in to Siteward</h1>
<p>You are about to sign in as <strong>${escapeHtml(email)}</strong>.</p>
<form method="post" action="/magic">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit">Sign in</button>
</form>
<p class="muted">The link works once. If you did not ask to sign in, close this page: nothing happens until you press the button.</p>`,
  );
}

/** An unknown, used or expired link, with a way to get a new one. */
export function magicInvalidPage(): string {
  return page(
    'Link expired',
    `<h1>This sign-in link no longer works</h1>
<p>Sign-in links work once and expire after 15 minutes. Enter your e-mail address and we will send you a new one.</p>
${resendForm()}`,
  );
}

/** A valid link of a disabled account: shown only to whoever holds the mailbox. */
export function magicDisabledPage(): string {
  return page(
    'Account disabled',
    `<h1>This account is disabled</h1>
<p>An administrator of this Siteward server has disabled this account, so it cannot sign in. Ask them to enable it.</p>`,
  );
}

export function magicSentPage(): string {
  return page(
    'Check your inbox',
    `<h1>Check your inbox</h1>
<p>If an account exists for that address, we have sent it a sign-in link. It expires in 15 minutes.</p>`,
  );
}

export function magicRateLimitedPage(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return page(
    'Too many requests',
    `<h1>Too many requests</h1>
<p>Too many sign-in links were asked for. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>`,
  );
}

function resendForm(): string {
  return `<form method="post" action="/magic/resend">
  <label for="email">E-mail address</label>
  <input id="email" name="email" type="email" autocomplete="email" required>
  <button type="submit">Send me a new link</button>
</form>`;
}
