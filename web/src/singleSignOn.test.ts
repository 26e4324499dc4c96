import { afterEach, describe, expect, test, vi } from 'vitest';
import { singleSignOnStartPath } from './singleSignOn';

describe('the address that starts a sign-in at a provider', () => {
  afterEach(() => vi.unstubAllGlobals());

  test('carries next when it is a place of this site, encoded, and nothing otherwise', () => {
    vi.stubGlobal('window', { location: { origin: 'https://siteward.example' } });
    expect(singleSignOnStartPath('staff', null)).toBe('/auth/oidc/staff/start');
    expect(singleSignOnStartPath('staff', '/')).toBe('/auth/oidc/staff/start');
    expect(singleSignOnStartPath('staff', '/invitations/accept?token=a&b')).toBe('/auth/oidc/staff/start?next=%2Finvitations%2Faccept%3Ftoken%3Da%26b');
    expect(singleSignOnStartPath('staff', 'https://evil.example/')).toBe('/auth/oidc/staff/start');
    expect(singleSignOnStartPath('staff', '/sign-in')).toBe('/auth/oidc/staff/start');
  });
});
