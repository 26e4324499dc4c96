import { escapeHtml } from '../lib/html.js';
import type { MailMessage } from './mailer.js';

/** The frame every mail's HTML part shares; `body` is HTML whose text is already escaped. */
export function htmlMail(body: string): string {
  return `<!doctype html>
<html lang="en"><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
${body}
</body></html>`;
}

/** The button a mail's one action is: a link that looks like one to press. `label` is plain text. */
function mailButton(link: string, label: string): string {
  return `<a href="${escapeHtml(link)}" style="display: inline-block; background: #4f46e5; color: #ffffff; padding: 10px 18px; border-radius: 6px; text-decoration: none">${label}</a>`;
}

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
  const html = htmlMail(`<p>Hello,</p>
<p>Use this button to sign in to Siteward:</p>
<p>${mailButton(link, 'Sign in to Siteward')}</p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once and expires in ${minutes} minutes.</p>
<p style="color: #6b7280">If you did not ask for this, you can ignore this e-mail: nobody can sign in without the link, and it expires on its own.</p>`);
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
  const html = htmlMail(`<p>Hello,</p>
<p>A Siteward account was created with this e-mail address. Use this button to confirm that the address is yours:</p>
<p>${mailButton(link, 'Confirm my address')}</p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once and expires in ${hours} hours.</p>
<p style="color: #6b7280">${escapeHtml(notYou)}</p>`);
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
  const html = htmlMail(`<p>Hello,</p>
<p>Someone asked to make this address the sign-in address of their Siteward account. If it was you, use this button to confirm the change:</p>
<p>${mailButton(link, 'Confirm the new address')}</p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once and expires in ${hours} hours.</p>
<p style="color: #6b7280">${escapeHtml(notYou)}</p>`);
  return { to, subject: 'Confirm your new e-mail address for Siteward', text, html };
}

/**
 * An invitation to join a workspace. It goes to an address nobody here has proved to hold, at the
 * request of someone else, so it names who asked and tells a recipient who expected nothing that
 * ignoring it is safe: nothing happens until they press the button on the page, signed in with
 * this address.
 */
export function invitationMessage(to: string, invitation: { link: string; workspaceName: string; role: string; inviterEmail: string; days: number }): MailMessage {
  const { link, workspaceName, role, inviterEmail, days } = invitation;
  const ignore = 'If you did not expect this, you can ignore this e-mail: nobody joins without the link, and it expires on its own.';
  const text = [
    'Hello,',
    '',
    `${inviterEmail} invited you to join the workspace "${workspaceName}" on Siteward as ${role}. Use this link to accept:`,
    '',
    link,
    '',
    `The link works once, for this e-mail address, and expires in ${days} days. Opening it shows a page with a "Join" button; you join only when you press it, signed in (or signed up) with this address.`,
    '',
    ignore,
  ].join('\n');
  const html = htmlMail(`<p>Hello,</p>
<p>${escapeHtml(inviterEmail)} invited you to join the workspace <strong>${escapeHtml(workspaceName)}</strong> on Siteward as ${escapeHtml(role)}.</p>
<p>${mailButton(link, 'Accept the invitation')}</p>
<p>Or paste this link into your browser:<br><span style="word-break: break-all">${escapeHtml(link)}</span></p>
<p>The link works once, for this e-mail address, and expires in ${days} days.</p>
<p style="color: #6b7280">${escapeHtml(ignore)}</p>`);
  // A workspace name may hold a line break; the subject is one header line.
  return { to, subject: `Invitation to join ${workspaceName.replace(/\s+/g, ' ')} on Siteward`, text, html };
}

/**
 * To a member of a workspace that now requires two-factor authentication, who has neither TOTP nor
 * a passkey: what changed, and where to set one up. Names no one's credential.
 */
export function twoFactorRequiredMessage(to: string, requirement: { workspaceName: string; link: string }): MailMessage {
  const { workspaceName, link } = requirement;
  const lines = [
    `The owners of the workspace "${workspaceName}" on Siteward now require two-factor authentication of its members.`,
    'Until you turn on an authenticator app or add a passkey to your account, its sites, members and settings are closed to you. Set one up under Settings > Security:',
  ];
  const text = ['Hello,', '', ...lines, '', link].join('\n');
  const html = htmlMail(`<p>Hello,</p>
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p>${mailButton(link, 'Set up two-factor authentication')}</p>`);
  return { to, subject: `${headerText(workspaceName)} now requires two-factor authentication`, text, html };
}

/** One line of a header: names and URLs chosen by users may hold line breaks. */
function headerText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** To a workspace's owners and admins when Siteward has turned off one of its webhooks. */
export function webhookDisabledMessage(to: string, webhook: { url: string; workspaceName: string; failingSince: string; link: string }): MailMessage {
  const { url, workspaceName, failingSince, link } = webhook;
  const text = [
    'Hello,',
    '',
    `Siteward turned off a webhook of the workspace "${workspaceName}": every delivery to ${url} has failed since ${failingSince}.`,
    '',
    'Events that happened meanwhile are kept. Once the receiver works again, turn the webhook back on and they are sent, with every event from then on:',
    '',
    link,
  ].join('\n');
  const html = htmlMail(`<p>Hello,</p>
<p>Siteward turned off a webhook of the workspace <strong>${escapeHtml(workspaceName)}</strong>: every delivery to <span style="word-break: break-all">${escapeHtml(url)}</span> has failed since ${escapeHtml(failingSince)}.</p>
<p>Events that happened meanwhile are kept. Once the receiver works again, turn the webhook back on and they are sent, with every event from then on.</p>
<p>${mailButton(link, 'Open the webhooks')}</p>`);
  return { to, subject: `Webhook turned off in ${headerText(workspaceName)}: ${headerText(url)}`, text, html };
}

/** To a workspace's owners and admins when a site's partner connection breaks, or works again. */
export function partnerStatusMessage(to: string, change: { siteName: string; workspaceName: string; status: 'ok' | 'error'; error: string | null; link: string }): MailMessage {
  const { siteName, workspaceName, status, error, link } = change;
  const what =
    status === 'error'
      ? `The partner connection of the site "${siteName}" (workspace "${workspaceName}") stopped working: ${error ?? 'the check failed'}.`
      : `The partner connection of the site "${siteName}" (workspace "${workspaceName}") works again.`;
  const next = status === 'error' ? 'You get one more e-mail when it works again, not one per failed check.' : 'You get an e-mail again only if it stops working.';
  const text = ['Hello,', '', what, '', next, '', link].join('\n');
  const html = htmlMail(`<p>Hello,</p>
<p>${escapeHtml(what)}</p>
<p>${escapeHtml(next)}</p>
<p>${mailButton(link, 'Open the site')}</p>`);
  const subject = status === 'error' ? `Partner connection failing: ${headerText(siteName)}` : `Partner connection working again: ${headerText(siteName)}`;
  return { to, subject, text, html };
}

/** To a change request's author when its scheduled apply could not be made. */
export function changeRequestFailedMessage(to: string, failure: { title: string; siteName: string; reason: string; link: string }): MailMessage {
  const { title, siteName, reason, link } = failure;
  const text = [
    'Hello,',
    '',
    `Your change "${title}" to the site "${siteName}" was due to go live now, but was not applied: ${reason}`,
    '',
    'Nothing of the site changed. Open the request to see why, and propose the change again:',
    '',
    link,
  ].join('\n');
  const html = htmlMail(`<p>Hello,</p>
<p>Your change <strong>${escapeHtml(title)}</strong> to the site <strong>${escapeHtml(siteName)}</strong> was due to go live now, but was not applied: ${escapeHtml(reason)}</p>
<p>Nothing of the site changed. Open the request to see why, and propose the change again.</p>
<p>${mailButton(link, 'Open the site')}</p>`);
  return { to, subject: `Scheduled change not applied: ${headerText(title)}`, text, html };
}

/** What happened to a change request, told to those who act next: reviewers when it opens, its author after. */
export type ChangeRequestEvent = 'opened' | 'approved' | 'declined' | 'applied';

const CHANGE_REQUEST_EVENT_TEXT: Record<ChangeRequestEvent, { subject: string; sentence: (who: string) => string }> = {
  opened: { subject: 'Change waiting for review', sentence: (who) => `${who} proposed a change that waits for your review.` },
  approved: { subject: 'Change approved', sentence: (who) => `${who} approved your change.` },
  declined: { subject: 'Change declined', sentence: (who) => `${who} declined your change.` },
  applied: { subject: 'Change applied', sentence: () => 'Your change is live: it was applied as a new version of the site.' },
};

export function changeRequestMessage(to: string, event: ChangeRequestEvent, request: { title: string; siteName: string; actor: string; link: string }): MailMessage {
  const { title, siteName, actor, link } = request;
  const { subject, sentence } = CHANGE_REQUEST_EVENT_TEXT[event];
  const text = ['Hello,', '', sentence(actor), '', `"${title}" on the site "${siteName}":`, '', link].join('\n');
  const html = htmlMail(`<p>Hello,</p>
<p>${escapeHtml(sentence(actor))}</p>
<p><strong>${escapeHtml(title)}</strong> on the site <strong>${escapeHtml(siteName)}</strong>.</p>
<p>${mailButton(link, 'Open the site')}</p>`);
  return { to, subject: `${subject}: ${headerText(title)}`, text, html };
}
