import { afterEach, describe, expect, test, vi } from 'vitest';
import { isServerPage, nextQuery, safeNextPath } from './signInRedirect';

describe('where a sign-in leads', () => {
  afterEach(() => vi.unstubAllGlobals());

  test("an invitation's page is a `next` the dashboard follows, and one it leaves to the server", () => {
    vi.stubGlobal('window', { location: { origin: 'https://siteward.example' } });
    const invitation = '/invitations/accept?token=abcDEF_-123';
    expect(safeNextPath(invitation)).toBe(invitation);
    expect(isServerPage(invitation)).toBe(true);
    expect(isServerPage('/sites/123')).toBe(false);
    expect(isServerPage('/invitations/accepted')).toBe(false);
    expect(safeNextPath('//evil.example/invitations/accept?token=x')).toBe('/');
  });

  test('the next path is handed on between sign-in and sign-up, encoded', () => {
    expect(nextQuery(null)).toBe('');
    expect(nextQuery('/invitations/accept?token=a&b')).toBe('?next=%2Finvitations%2Faccept%3Ftoken%3Da%26b');
  });
});
