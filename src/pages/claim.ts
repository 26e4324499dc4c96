import { escapeHtml, page } from './layout.js';

/**
 * GET /auth/claim: the mailbox holder's one-time choice about an account created with their address
 * before anyone confirmed it. Two plain forms, so it works without script.
 */
export function claimPage(email: string): string {
  return page(
    'Is this your account?',
    `<h1>Is this account yours?</h1>
<p>An account for <strong>${escapeHtml(email)}</strong> was set up before this address was confirmed. It already has a password or other ways to sign in.</p>
<p>If you set it up yourself, keep it as it is.</p>
<form method="post" action="/auth/claim">
  <input type="hidden" name="decision" value="keep">
  <button type="submit">I set it up: keep everything</button>
</form>
<p>If you did not, someone else may have used your address. Resetting removes its password, passkeys, two-factor setup and access tokens and signs out everyone else; you then choose a new password.</p>
<form method="post" action="/auth/claim">
  <input type="hidden" name="decision" value="reset">
  <button type="submit" class="secondary">Not me: reset the account</button>
</form>
<p class="muted">You can answer once. This step expires 10 minutes after you signed in.</p>`,
  );
}
