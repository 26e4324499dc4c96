import { escapeHtml } from '../lib/html.js';
import { page } from './layout.js';

/**
 * GET /auth/2fa: the second step of a web sign-in. A plain form that works without script; the
 * browser's "one-time-code" autofill fills it from an SMS-less authenticator where it can.
 */
export function twoFactorPage(options: { email: string; error?: string }): string {
  const error = options.error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(options.error)}</p>\n`;
  return page(
    'Two-factor authentication',
    `<h1>Enter your code</h1>
<p>Signing in as <strong>${escapeHtml(options.email)}</strong>. Open your authenticator app and enter the 6-digit code for Siteward.</p>
${error}<form method="post" action="/auth/2fa">
  <label for="code">Code</label>
  <input id="code" name="code" type="text" autocomplete="one-time-code" autocapitalize="off" spellcheck="false" maxlength="64" required autofocus>
  <button type="submit">Verify</button>
</form>
<p class="muted">Lost your device? Enter one of your recovery codes instead; each works once. This step expires 10 minutes after you signed in.</p>
<form method="post" action="/auth/2fa/cancel">
  <button type="submit" class="secondary">Cancel and sign in another way</button>
</form>`,
  );
}

export function twoFactorLockedPage(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return page(
    'Too many attempts',
    `<h1>Too many wrong codes</h1>
<p>This account is locked against further codes for ${minutes} minute${minutes === 1 ? '' : 's'}. Try again then.</p>`,
  );
}
