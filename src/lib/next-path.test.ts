import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPEN_REDIRECT_PAYLOADS } from '../../test/open-redirect-payloads.js';
import { safeNextPath } from './next-path.js';

const ORIGIN = 'https://siteward.example.com';

test('next keeps a path of this site with its query and fragment, dot segments resolved', () => {
  assert.equal(safeNextPath('/sites?sort=name#top', ORIGIN), '/sites?sort=name#top');
  assert.equal(safeNextPath('/invitations/accept?token=abc', ORIGIN), '/invitations/accept?token=abc');
  assert.equal(safeNextPath('/a/../settings', ORIGIN), '/settings');
  assert.equal(safeNextPath('/settings/security#password', ORIGIN), '/settings/security#password');
  // Slashes and dots in the query or fragment are not part of the path: kept as they are.
  assert.equal(safeNextPath('/sites?return=//elsewhere/..#/..//x', ORIGIN), '/sites?return=//elsewhere/..#/..//x');
});

test('every known open-redirect payload becomes "/", whatever the resolution that would make it leave', () => {
  assert.ok(OPEN_REDIRECT_PAYLOADS.length >= 25);
  for (const next of OPEN_REDIRECT_PAYLOADS) assert.equal(safeNextPath(next, ORIGIN), '/', JSON.stringify(next));
});

test('what only bounces back to signing in, or is no path we made, becomes "/"', () => {
  for (const next of [undefined, null, '', 'sites', '/sign-in?next=/x', '/sign-up', '/auth/oidc/oidc/start', '/a/../sign-in', '/%73ign-in', '/\u0000x', '/x%00', `/${'a'.repeat(2048)}`, '/%25252525252f']) {
    assert.equal(safeNextPath(next, ORIGIN), '/', JSON.stringify(next));
  }
});
