// Each stored security event as a sentence for Settings > Security > Recent activity.
import { SECURITY_FAILURE_TYPES } from '@server/security/event-types';
import type { SecurityEvent } from './api/types';

export type { SecurityEvent };

const METHODS: Record<string, string> = {
  password: 'your password',
  magic_link: 'a sign-in link',
  passkey: 'a passkey',
  totp: 'your password and an authenticator code',
  recovery_code: 'your password and a recovery code',
  oidc: 'single sign-on',
};

const FAILURES: Record<string, string> = {
  invalid_credentials: 'wrong address or password',
  password_invalid: 'wrong password',
  otp_required: 'an authenticator code was needed',
  otp_invalid: 'wrong authenticator code',
  passkey_invalid: 'the passkey was not accepted',
  passkey_challenge_invalid: 'the passkey was not accepted',
  passkey_unknown_credential: 'the passkey was not accepted',
  passkey_verification_failed: 'the passkey was not accepted',
  rate_limited: 'too many attempts',
};

function named(event: SecurityEvent): string {
  const name = event.details.name;
  return typeof name === 'string' && name !== '' ? ` “${name}”` : '';
}

function method(event: SecurityEvent): string {
  if (event.method === null) return '';
  // A sign-in through a provider names the provider, as its button does.
  if (event.method === 'oidc' && typeof event.details.name === 'string' && event.details.name !== '') return ` with ${event.details.name}`;
  return ` with ${METHODS[event.method] ?? event.method}`;
}

/** "Signed in with a passkey", "Sign-in failed: wrong authenticator code", "Access token “ci” created". */
export function securitySentence(event: SecurityEvent): string {
  switch (event.type) {
    case 'sign_in.succeeded':
      return `Signed in${method(event)}${event.credential === 'jwt' ? ' (API)' : ''}`;
    case 'sign_in.failed':
    case 'sign_in.refused':
      return `Sign-in ${event.type === 'sign_in.failed' ? 'failed' : 'refused'}${event.reason === null ? '' : `: ${FAILURES[event.reason] ?? event.reason}`}`;
    case 'password.changed':
      return 'Password changed';
    case 'email.verified':
      return 'E-mail address confirmed';
    case 'email.changed':
      return 'E-mail address changed';
    case 'totp.enabled':
      return 'Two-factor authentication turned on';
    case 'totp.disabled':
      return 'Two-factor authentication turned off';
    case 'recovery_codes.regenerated':
      return 'New recovery codes made (the old ones stopped working)';
    case 'passkey.added':
      return `Passkey${named(event)} added`;
    case 'passkey.removed':
      return `Passkey${named(event)} removed`;
    case 'access_token.created':
      return `Access token${named(event)} created`;
    case 'access_token.revoked':
      return `Access token${named(event)} revoked`;
    case 'identity.linked':
      return `Sign-in provider${named(event)} linked`;
    case 'identity.unlinked':
      return `Sign-in provider${named(event)} unlinked`;
    case 'sessions.revoked':
      return 'Signed out everywhere';
    case 'reauthenticated':
      return `Confirmed it was you${method(event)}`;
    case 'reauthentication.failed':
    case 'reauthentication.refused':
      // Someone signed in to the account tried to confirm it was them, and could not.
      return `Confirming it was you ${event.type === 'reauthentication.failed' ? 'failed' : 'was refused'}${method(event)}${event.reason === null ? '' : `: ${FAILURES[event.reason] ?? event.reason}`}`;
    case 'account.taken_over':
      return 'Account reset from a sign-in link: other sign-ins and credentials were removed';
    case 'account.deleted':
      return 'Account deleted';
    default:
      return event.type;
  }
}

/** The server's failures and refusals, and an account reset by someone holding its mailbox. */
const WARNINGS: ReadonlySet<SecurityEvent['type']> = new Set<SecurityEvent['type']>([...SECURITY_FAILURE_TYPES, 'account.taken_over']);

/** Whether the event is one a person should look at twice: a failure, a refusal or a reset. */
export function isWarning(event: SecurityEvent): boolean {
  return WARNINGS.has(event.type);
}
