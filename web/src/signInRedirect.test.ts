import { afterEach, describe, expect, test, vi } from 'vitest';
import { isServerPage, nextPathHere, nextQuery, rememberNextForSignInLink, takeNextAfterSignInLink } from './signInRedirect';

describe('where a sign-in leads', () => {
  afterEach(() => vi.unstubAllGlobals());

  test("an invitation's page is a `next` the dashboard follows, and one it leaves to the server", () => {
    vi.stubGlobal('window', { location: { origin: 'https://siteward.example' } });
    const invitation = '/invitations/accept?token=abcDEF_-123';
    expect(nextPathHere(invitation)).toBe(invitation);
    expect(isServerPage(invitation)).toBe(true);
    expect(isServerPage('/sites/123')).toBe(false);
    expect(isServerPage('/invitations/accepted')).toBe(false);
    expect(nextPathHere('//evil.example/invitations/accept?token=x')).toBe('/');
  });

  test("the dashboard judges `next` by the server's rule: no known open-redirect payload leads off the site", () => {
    vi.stubGlobal('window', { location: { origin: 'https://siteward.example' } });
    // The server's test (src/lib/next-path.test.ts) runs the whole list of known payloads; these are its kinds.
    const payloads = ['//evil.example', '/\\evil.example', '\\\\evil.example', '/%2f%2fevil.example', '/%5cevil.example', 'https://evil.example', '/..//evil.example', '/./\\evil.example', '/a/../..//evil.example', '/%2e%2e//evil.example', '/\t/evil.example', 'javascript:alert(1)'];
    for (const next of payloads) expect(nextPathHere(next), JSON.stringify(next)).toBe('/');
    expect(nextPathHere('/a/../sites?sort=name')).toBe('/sites?sort=name');
  });

  test('the next path is handed on between sign-in and sign-up, encoded', () => {
    expect(nextQuery(null)).toBe('');
    expect(nextQuery('/invitations/accept?token=a&b')).toBe('?next=%2Finvitations%2Faccept%3Ftoken%3Da%26b');
  });

  describe('through a sign-in link, which lands on "/"', () => {
    function stubBrowser(): Map<string, string> {
      const stored = new Map<string, string>();
      const localStorage = {
        getItem: (key: string) => stored.get(key) ?? null,
        setItem: (key: string, value: string) => void stored.set(key, value),
        removeItem: (key: string) => void stored.delete(key),
      };
      vi.stubGlobal('window', { location: { origin: 'https://siteward.example' }, localStorage });
      return stored;
    }
    const invitation = '/invitations/accept?token=abcDEF_-123';

    test('is remembered when the link is asked for and taken once', () => {
      stubBrowser();
      rememberNextForSignInLink(invitation, 1_000);
      expect(takeNextAfterSignInLink(2_000)).toBe(invitation);
      expect(takeNextAfterSignInLink(2_000)).toBeNull();
    });

    test('is forgotten after the 15 minutes the link works', () => {
      stubBrowser();
      rememberNextForSignInLink(invitation, 0);
      expect(takeNextAfterSignInLink(15 * 60 * 1000 + 1)).toBeNull();
    });

    test('never leads off the site, even when the stored value was changed by hand', () => {
      const stored = stubBrowser();
      rememberNextForSignInLink('//evil.example/', 0);
      expect(stored.size).toBe(0);
      rememberNextForSignInLink('/..//evil.example', 0);
      expect(stored.size).toBe(0);
      stored.set('siteward.next-after-sign-in-link', JSON.stringify({ next: 'https://evil.example/', until: Number.MAX_SAFE_INTEGER }));
      expect(takeNextAfterSignInLink(0)).toBeNull();
      stored.set('siteward.next-after-sign-in-link', '{not json');
      expect(takeNextAfterSignInLink(0)).toBeNull();
      expect(stored.size).toBe(0);
    });

    test('a link asked for without `next` clears one left from before', () => {
      const stored = stubBrowser();
      rememberNextForSignInLink(invitation, 0);
      rememberNextForSignInLink(null, 0);
      expect(stored.size).toBe(0);
    });
  });
});
