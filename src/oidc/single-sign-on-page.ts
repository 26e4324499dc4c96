import { AUTH_ERRORS } from '../auth/errors.js';
import { RATE_LIMIT_ERRORS } from '../rate-limit/errors.js';
import { OIDC_ERRORS } from './errors.js';
import { escapeHtml } from '../lib/html.js';
import { page } from '../pages/layout.js';

/** The failures of a sign-in through a provider that end on a page of ours: their codes. */
export type SingleSignOnFailure =
  | (typeof OIDC_ERRORS)[Exclude<keyof typeof OIDC_ERRORS, 'IDENTITY_NOT_FOUND' | 'LAST_SIGN_IN_METHOD'>]
  | typeof AUTH_ERRORS.SIGNUP_CLOSED
  | typeof AUTH_ERRORS.ACCOUNT_DISABLED
  | typeof RATE_LIMIT_ERRORS.RATE_LIMITED;

export interface SingleSignOnPageContext {
  /** The provider's button text; undefined when the provider is not configured. */
  providerName: string | undefined;
  /** Starts the same sign-in again (same provider, same `next`); undefined when that cannot help. */
  retryHref: string | undefined;
  /** The sign-in screen, with the same `next`. */
  signInHref: string;
  /** Seconds until a rate limit lets the person try again. */
  retryAfterSeconds?: number;
}

/**
 * What a person is told when a sign-in through a provider does not end signed in: what happened in
 * words, and what to do next. The provider's own error text never reaches the page (it is written
 * for developers, and a forged callback chooses it); the code is shown as a reference for support.
 */
export function singleSignOnFailurePage(failure: SingleSignOnFailure, context: SingleSignOnPageContext): string {
  const provider = escapeHtml(context.providerName ?? 'The sign-in provider');
  const { title, text } = describe(failure, provider, context.retryAfterSeconds ?? 60);
  const retry = context.retryHref === undefined ? '' : `<p><a class="button-link" href="${escapeHtml(context.retryHref)}">${failure === OIDC_ERRORS.OIDC_CANCELLED ? 'Try again' : 'Start again'}</a></p>\n`;
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
${text}
${retry}<p><a href="${escapeHtml(context.signInHref)}">Other ways to sign in</a></p>
<p class="muted">Reference: ${escapeHtml(failure)}</p>`,
  );
}

function describe(failure: SingleSignOnFailure, provider: string, retryAfterSeconds: number): { title: string; text: string } {
  switch (failure) {
    case OIDC_ERRORS.OIDC_PROVIDER_NOT_FOUND:
      return { title: 'Unknown sign-in provider', text: '<p>This server has no sign-in provider by that name. Use a button on the sign-in page.</p>' };
    case OIDC_ERRORS.OIDC_PROVIDER_UNREACHABLE:
      return { title: 'The sign-in provider does not answer', text: `<p>${provider} does not answer right now, so signing in with it cannot go on. Try again in a few minutes, or sign in another way.</p>` };
    case OIDC_ERRORS.OIDC_STATE_INVALID:
      return {
        title: 'This sign-in cannot be finished',
        text: '<p>This sign-in was not started in this browser, took longer than 10 minutes, or has already been used. Nothing was changed. Start again from the sign-in page.</p>',
      };
    case OIDC_ERRORS.OIDC_CANCELLED:
      return { title: 'Sign-in cancelled', text: `<p>Signing in at ${provider} was cancelled, so you are not signed in. Nothing was changed.</p>` };
    case OIDC_ERRORS.OIDC_REFUSED:
      return {
        title: 'The sign-in provider said no',
        text: `<p>${provider} did not complete this sign-in. Start again; if it keeps happening, tell your administrator.</p>`,
      };
    case OIDC_ERRORS.OIDC_RESPONSE_INVALID:
      return {
        title: 'The sign-in could not be confirmed',
        text: `<p>The answer from ${provider} did not pass our checks, so it was not used and you are not signed in. Start again; if it keeps happening, tell your administrator.</p>`,
      };
    case OIDC_ERRORS.OIDC_EMAIL_NOT_VERIFIED:
      return {
        title: 'Your e-mail address is not confirmed',
        text: `<p>${provider} has not confirmed your e-mail address, so it cannot sign you in to Siteward or make an account. Confirm the address at ${provider} (or ask its administrator to), then try again, or sign in another way.</p>`,
      };
    case OIDC_ERRORS.OIDC_IDENTITY_CONFLICT:
      return {
        title: 'This account cannot be linked',
        text: `<p>Your account at ${provider} already signs in to another Siteward account, or this Siteward account is linked to another account at ${provider}. Sign in to the account it belongs to and unlink it there first.</p>`,
      };
    case AUTH_ERRORS.SIGNUP_CLOSED:
      return {
        title: 'No account for this address',
        text: '<p>There is no Siteward account for the address your provider gave, and this server does not let new people sign up. Ask an administrator for an account or an invitation.</p>',
      };
    case AUTH_ERRORS.ACCOUNT_DISABLED:
      return {
        title: 'This account is disabled',
        text: `<p>${provider} signed you in, but an administrator of this Siteward server has disabled your account, so it cannot sign in. Ask them to enable it.</p>`,
      };
    case RATE_LIMIT_ERRORS.RATE_LIMITED: {
      const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
      return { title: 'Too many sign-ins', text: `<p>Too many sign-ins were started from here. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>` };
    }
  }
}
