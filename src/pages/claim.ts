import type { PendingEmailChange } from '../profile/email-change.js';
import { escapeHtml } from '../lib/html.js';
import { page } from './layout.js';

/**
 * GET /auth/claim: the mailbox holder's one-time choice about an account created with their address
 * before anyone confirmed it. Plain forms, so it works without script. A change of address waiting
 * for its link is named beside "keep": whoever held the account may have asked to move it to their
 * own mailbox, and keeping everything would keep that too.
 */
export function claimPage(email: string, pendingChange: PendingEmailChange | null): string {
  const keep =
    pendingChange === null
      ? `<p>If you set it up yourself, keep it as it is.</p>
<form method="post" action="/auth/claim">
  <input type="hidden" name="decision" value="keep">
  <button type="submit">I set it up: keep everything</button>
</form>`
      : `<p>Someone signed in to it has asked to move this account to <strong>${escapeHtml(pendingChange.email)}</strong>; that change waits for its link.</p>
<p>If you set the account up yourself, keep it. Unless you asked for that change yourself, withdraw it: its link then stops working.</p>
<form method="post" action="/auth/claim">
  <input type="hidden" name="decision" value="keep">
  <input type="hidden" name="email_change" value="withdraw">
  <button type="submit">I set it up: keep it, and withdraw the change of address</button>
</form>
<form method="post" action="/auth/claim">
  <input type="hidden" name="decision" value="keep">
  <input type="hidden" name="email_change" value="keep">
  <button type="submit" class="secondary">I set it up and asked for the change: keep everything</button>
</form>`;
  return page(
    'Is this your account?',
    `<h1>Is this account yours?</h1>
<p>An account for <strong>${escapeHtml(email)}</strong> was set up before this address was confirmed. It already has a password or other ways to sign in.</p>
${keep}
<p>If you did not, someone else may have used your address. Resetting removes its password, passkeys, two-factor setup, access tokens and any pending change of address, and signs out everyone else; you then choose a new password.</p>
<form method="post" action="/auth/claim">
  <input type="hidden" name="decision" value="reset">
  <button type="submit" class="secondary">Not me: reset the account</button>
</form>
<p class="muted">You can answer once. This step expires 10 minutes after you signed in.</p>`,
  );
}
