import { escapeHtml } from '../pages/layout.js';
import type { MailMessage } from './mailer.js';
import type { RequestOrigin, SecurityEventType } from '../security/events.js';

export function magicLinkMessage(to: string, link: string, minutes: number): MailMessage {
  const text = [
    'Hello,',
    '',
    'Use this link to sign in to Siteward:',
    '',
    link,
    '',
    `The link works once and expires in ${minutes} minutes. Opening it shows a page with a "Sign in" button; you are signed in only when you press it.`,
    '',
    'If you did not ask for this, you can ignore this e-mail: nobody can sign in without the link, and it expires on its own.',
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
<p>Hello,</p>
<p>Use this button to sign in to Siteward:</p>
<p><a href="${escapeHtml(link)}" style="display: inline-block; background: #4f46e5; color: #ffffff; padding: 10px 18px; border-radius: 6px; text-decoration: none">Sign in to Siteward</a></p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once and expires in ${minutes} minutes.</p>
<p style="color: #6b7280">If you did not ask for this, you can ignore this e-mail: nobody can sign in without the link, and it expires on its own.</p>
</body></html>`;
  return { to, subject: 'Your Siteward sign-in link', text, html };
}

/**
 * The link that proves the address is the account holder's. The mail speaks to someone who did
 * not sign up too: confirming another person's sign-up would hand them a verified account, and a
 * sign-in link lets the address's owner reset it instead.
 */
export function emailVerificationMessage(to: string, link: string, signInUrl: string, hours: number): MailMessage {
  const notYou = `If you did not create this account, do not confirm it: someone else may have used your address. Sign in at ${signInUrl} with "E-mail me a link" and choose "Reset the account" to take it over.`;
  const text = [
    'Hello,',
    '',
    'A Siteward account was created with this e-mail address. Use this link to confirm that the address is yours:',
    '',
    link,
    '',
    `The link works once and expires in ${hours} hours. Opening it shows a page with a "Confirm" button; nothing changes until you press it.`,
    '',
    notYou,
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
<p>Hello,</p>
<p>A Siteward account was created with this e-mail address. Use this button to confirm that the address is yours:</p>
<p><a href="${escapeHtml(link)}" style="display: inline-block; background: #4f46e5; color: #ffffff; padding: 10px 18px; border-radius: 6px; text-decoration: none">Confirm my address</a></p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once and expires in ${hours} hours.</p>
<p style="color: #6b7280">${escapeHtml(notYou)}</p>
</body></html>`;
  return { to, subject: 'Confirm your e-mail address for Siteward', text, html };
}

/**
 * The link that moves an account to this address. It goes to an address nobody has proved to hold
 * yet, so it names no account and no other address, and it tells a recipient who asked for
 * nothing to leave it: confirming would attach their mailbox to someone else's account.
 */
export function emailChangeMessage(to: string, link: string, hours: number): MailMessage {
  const notYou = 'If you did not ask for this from your own Siteward account, do not confirm: ignore this e-mail and nothing changes.';
  const text = [
    'Hello,',
    '',
    'Someone asked to make this address the sign-in address of their Siteward account. If it was you, use this link to confirm the change:',
    '',
    link,
    '',
    `The link works once and expires in ${hours} hours. Opening it shows a page with a "Change address" button; nothing changes until you press it.`,
    '',
    notYou,
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
<p>Hello,</p>
<p>Someone asked to make this address the sign-in address of their Siteward account. If it was you, use this button to confirm the change:</p>
<p><a href="${escapeHtml(link)}" style="display: inline-block; background: #4f46e5; color: #ffffff; padding: 10px 18px; border-radius: 6px; text-decoration: none">Confirm the new address</a></p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once and expires in ${hours} hours.</p>
<p style="color: #6b7280">${escapeHtml(notYou)}</p>
</body></html>`;
  return { to, subject: 'Confirm your new e-mail address for Siteward', text, html };
}

/** What each notice tells the owner happened, as a sentence completing "On <date>, …". */
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
  'sessions.revoked': { subject: 'You were signed out everywhere', sentence: 'every device signed in to your Siteward account was signed out.' },
  'account.taken_over': {
    subject: 'Your Siteward account was reset',
    sentence: 'someone holding this mailbox reset your Siteward account: its password, passkeys, two-factor setup, access tokens and other sign-ins were removed.',
  },
};

/** Where the usual way back (a sign-in link to this address) no longer exists. */
const ADVICE: Partial<Record<SecurityEventType, string>> = {
  'email.changed':
    'If this was you, there is nothing to do. If it was not, someone who could sign in to your account moved it to another address: sign-in links to this address no longer work, so contact the administrator of your Siteward server at once.',
};

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
  const html = `<!doctype html>
<html lang="en"><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
<p>Hello,</p>
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p style="color: #6b7280">${escapeHtml(advice)}</p>
</body></html>`;
  return { to, subject: notice.subject, text, html };
}
