import { describe, expect, test } from 'vitest';
import { isWarning, type SecurityEvent, securitySentence } from './securityText';

function event(overrides: Partial<SecurityEvent>): SecurityEvent {
  return {
    id: '019ab3c4-0000-7000-8000-000000000000',
    at: '2026-11-23T10:15:00.000Z',
    type: 'sign_in.succeeded',
    method: 'password',
    credential: 'session',
    reason: null,
    ip: '203.0.113.7',
    user_agent: 'Mozilla/5.0',
    details: {},
    ...overrides,
  };
}

describe('recent activity in words', () => {
  test('sign-ins say how, and an API sign-in says so', () => {
    expect(securitySentence(event({}))).toBe('Signed in with your password');
    expect(securitySentence(event({ method: 'passkey' }))).toBe('Signed in with a passkey');
    expect(securitySentence(event({ method: 'magic_link', credential: 'jwt' }))).toBe('Signed in with a sign-in link (API)');
    expect(securitySentence(event({ method: 'something_new' }))).toBe('Signed in with something_new');
  });

  test('failures say why, in words, and are marked', () => {
    const failed = event({ type: 'sign_in.failed', credential: null, reason: 'otp_invalid' });
    expect(securitySentence(failed)).toBe('Sign-in failed: wrong authenticator code');
    expect(isWarning(failed)).toBe(true);
    expect(securitySentence(event({ type: 'sign_in.failed', reason: 'unheard_of' }))).toBe('Sign-in failed: unheard_of');
    expect(isWarning(event({}))).toBe(false);
  });

  test('a failed confirmation that it was you says how and why, and is marked', () => {
    const wrongPassword = event({ type: 'reauthentication.failed', credential: 'session', reason: 'password_invalid' });
    expect(securitySentence(wrongPassword)).toBe('Confirming it was you failed with your password: wrong password');
    expect(isWarning(wrongPassword)).toBe(true);
    expect(securitySentence(event({ type: 'reauthentication.failed', method: 'passkey', reason: 'passkey_verification_failed' }))).toBe(
      'Confirming it was you failed with a passkey: the passkey was not accepted',
    );
    expect(securitySentence(event({ type: 'reauthentication.failed', reason: 'otp_required' }))).toBe('Confirming it was you failed with your password: an authenticator code was needed');
  });

  test('credential changes name the token or passkey, and leave the name out when there is none', () => {
    expect(securitySentence(event({ type: 'access_token.created', method: null, details: { name: 'deploy bot' } }))).toBe('Access token “deploy bot” created');
    expect(securitySentence(event({ type: 'passkey.removed', method: null, details: {} }))).toBe('Passkey removed');
    expect(securitySentence(event({ type: 'totp.enabled', method: null }))).toBe('Two-factor authentication turned on');
    expect(securitySentence(event({ type: 'reauthenticated', method: 'passkey' }))).toBe('Confirmed it was you with a passkey');
  });
});

describe('single sign-on in words', () => {
  test('a sign-in through a provider names it, as its button does', () => {
    expect(securitySentence(event({ method: 'oidc', details: { provider: 'staff', name: 'Staff login' } }))).toBe('Signed in with Staff login');
    expect(securitySentence(event({ method: 'oidc', details: {} }))).toBe('Signed in with single sign-on');
  });

  test('linking and unlinking name the provider', () => {
    expect(securitySentence(event({ type: 'identity.linked', method: 'oidc', details: { provider: 'staff', name: 'Staff login' } }))).toBe('Sign-in provider “Staff login” linked');
    expect(securitySentence(event({ type: 'identity.unlinked', method: null, details: { provider: 'gitlab', name: 'GitLab' } }))).toBe('Sign-in provider “GitLab” unlinked');
  });
});
