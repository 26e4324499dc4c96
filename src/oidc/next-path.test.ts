import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeNextPath } from './next-path.js';

const ORIGIN = 'https://siteward.example.com';

test('next keeps a path of this site with its query and fragment', () => {
  assert.equal(safeNextPath('/sites?sort=name#top', ORIGIN), '/sites?sort=name#top');
  assert.equal(safeNextPath('/invitations/accept?token=abc', ORIGIN), '/invitations/accept?token=abc');
  assert.equal(safeNextPath('/a/../settings', ORIGIN), '/settings');
});

test('anything that could leave the site, or only bounce, becomes "/"', () => {
  const refused = [
    undefined,
    '',
    'sites',
    'https://evil.example/',
    '//evil.example/x',
    '/\\evil.example',
    '/\\\\evil.example',
    '\\\\evil.example',
    '/%5Cevil',
    ' /sites',
    '/\u0000x',
    '/\nx',
    'javascript:alert(1)',
    'data:text/html,x',
    '/sign-in?next=/x',
    '/sign-up',
    '/auth/oidc/oidc/start',
    `/${'a'.repeat(2048)}`,
  ];
  for (const next of refused) {
    const result = safeNextPath(next, ORIGIN);
    // "/%5Cevil" is a harmless path of ours (an escaped backslash stays escaped): kept as it is.
    if (next === '/%5Cevil') assert.equal(result, '/%5Cevil');
    else assert.equal(result, '/', JSON.stringify(next));
  }
});
