import type { MailMessage } from '../mail/mailer.js';
import { htmlMail } from '../mail/templates.js';
import { escapeHtml } from '../lib/html.js';
import type { RequestOrigin, SecurityEventType } from './event-types.js';

/**
 * The events after which the account's owner is mailed, and what each notice tells them happened,
 * as a sentence completing "On <date>, …". Each is a change an intruder would make to keep access or
 * lock the owner out, so the owner must learn of it even when the intruder holds the session.
 * Removals are mailed too: an intruder removing the owner's passkey or a working token is as much
 * the owner's business as one adding theirs. A new identity signs in as the account; one unlinked
 * no longer does. The deletion is the last word to the address: if it was not its owner, the
 * administrator can still restore a backup.
 */
const NOTICES: Partial<Record<SecurityEventType, { subject: string; sentence: string }>> = {
  'password.changed': { subject: 'Your Siteward password was changed', sentence: 'the password of your Siteward account was changed. Other devices were signed out.' },
  'email.changed': { subject: 'Your Siteward e-mail address was changed', sentence: 'the e-mail address of your Siteward account was changed. This address no longer signs in.' },
  'totp.enabled': { subject: 'Two-factor authentication is on', sentence: 'two-factor authentication was turned on for your Siteward account.' },
  'totp.disabled': { subject: 'Two-factor authentication is off', sentence: 'two-factor authentication was turned off for your Siteward account.' },
  'recovery_codes.regenerated': { subject: 'New Siteward recovery codes', sentence: 'new recovery codes were made for your Siteward account; the old ones no longer work.' },
  'passkey.added': { subject: 'A passkey was added to your Siteward account', sentence: 'a passkey was added to your Siteward account.' },
  'passkey.removed': { subject: 'A passkey was removed from your Siteward account', sentence: 'a passkey was removed from your Siteward account; it no longer signs in.' },
  'access_token.created': { subject: 'A Siteward access token was created', sentence: 'a personal access token was created for your Siteward account.' },
  'access_token.revoked': { subject: 'A Siteward access token was revoked', sentence: 'a personal access token of your Siteward account was revoked; it no longer works.' },
  'identity.linked': {
    subject: 'A sign-in provider was linked to your Siteward account',
    sentence: 'an account at a single sign-on provider was linked to your Siteward account; it now signs in to it.',
  },
  'identity.unlinked': {
    subject: 'A sign-in provider was unlinked from your Siteward account',
    sentence: 'an account at a single sign-on provider was unlinked from your Siteward account; it no longer signs in to it.',
  },
  'sessions.revoked': { subject: 'You were signed out everywhere', sentence: 'every device signed in to your Siteward account was signed out.' },
  'account.taken_over': {
    subject: 'Your Siteward account was reset',
    sentence: 'someone holding this mailbox reset your Siteward account: its password, passkeys, two-factor setup, access tokens and other sign-ins were removed.',
  },
  'account.deleted': {
    subject: 'Your Siteward account was deleted',
    sentence: 'your Siteward account was deleted, with its personal workspace and its sites; every sign-in and access token of it ended.',
  },
};

/** Where the usual advice (sign in by link, change the password) cannot help. */
const ADVICE: Partial<Record<SecurityEventType, string>> = {
  'email.changed':
    'If this was you, there is nothing to do. If it was not, someone who could sign in to your account moved it to another address: sign-in links to this address no longer work, so contact the administrator of your Siteward server at once.',
  'account.deleted': 'If this was you, there is nothing to do. If it was not, contact the administrator of your Siteward server at once: only a backup can bring the account back.',
};

/** Whether the owner is mailed after this event: whether it has a notice above. */
export function isMailed(type: SecurityEventType): boolean {
  return NOTICES[type] !== undefined;
}

/**
 * Tells an account's owner that a credential changed. It names what, when and from where, never
 * a secret, and says what to do if it was not them.
 */
export function securityNoticeMessage(
  to: string,
  type: SecurityEventType,
  context: { at: Date; origin: RequestOrigin; details: Record<string, string | number | boolean> },
): MailMessage {
  const notice = NOTICES[type] ?? { subject: 'Security change on your Siteward account', sentence: `a security setting of your Siteward account changed (${type}).` };
  const when = context.at.toUTCString();
  const named = typeof context.details.name === 'string' ? `Name: ${context.details.name}` : undefined;
  const from = `From: ${context.origin.ip}${context.origin.userAgent === '' ? '' : ` (${context.origin.userAgent})`}`;
  const advice = ADVICE[type] ?? 'If this was you, there is nothing to do. If it was not, sign in by e-mail link, change your password and use "Sign out everywhere" under Settings > Security.';
  const lines = [`On ${when}, ${notice.sentence}`, ...(named === undefined ? [] : [named]), from];
  const text = ['Hello,', '', ...lines, '', advice].join('\n');
  const html = htmlMail(`<p>Hello,</p>
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p style="color: #6b7280">${escapeHtml(advice)}</p>`);
  return { to, subject: notice.subject, text, html };
}
