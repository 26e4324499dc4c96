import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STRONG_PASSWORD } from '../../test/helpers.js';
import { checkPasswordPolicy } from './passwords.js';

// Runs once, on SQLite: the strength rules run before any query.

const ada = { email: 'Ada.Lovelace@Example.com', name: 'Ada Lovelace' };

for (const [label, password, message] of [
  ['the whole e-mail address, in any case', 'ADA.LOVELACE@example.com', 'must not be built from your e-mail address'],
  ["the address's local part", 'ada.lovelace', 'must not be built from your e-mail address'],
  ["the address's local part with a year and a mark", 'Ada.Lovelace2026!', 'must not be built from your e-mail address'],
  ['the name', 'Ada Lovelace', 'must not be built from your name'],
  ['the name run together', 'adalovelace', 'must not be built from your name'],
  ['a word of the name with digits', 'Lovelace1815', 'must not be built from your name'],
  ['the name with a sequence', 'lovelace12345678', 'must not be built from your name'],
  ["the service's name", 'SiteWard', "must not be built from the service's name (siteward)"],
  ["the service's name with a year", 'siteward2026!', "must not be built from the service's name (siteward)"],
  ['one character repeated', 'aaaaaaaaaaaa', 'must not be one character repeated'],
  ['one symbol repeated', '!!!!!!!!', 'must not be one character repeated'],
  ['a short pattern repeated', 'abcabcabc', 'must not be a short pattern repeated, like abcabcabc'],
  ['a four-character pattern repeated', 'PassPass', 'must not be a short pattern repeated, like abcabcabc'],
  ['the alphabet in order', 'abcdefgh', 'must not be a simple sequence, like abcdefgh, 12345678 or qwerty'],
  ['digits backwards', '87654321', 'must not be a simple sequence, like abcdefgh, 12345678 or qwerty'],
  ['a keyboard row', 'QWERTYUIOP', 'must not be a simple sequence, like abcdefgh, 12345678 or qwerty'],
  ['sequences joined, with punctuation', 'qwerty-123456', 'must not be a simple sequence, like abcdefgh, 12345678 or qwerty'],
] as const) {
  test(`a password built from ${label} is refused, naming what is wrong`, () => {
    assert.deepEqual(checkPasswordPolicy(password, ada), [{ path: '/password', message }]);
  });
}

test('a password that merely contains a word of the account among enough else is accepted', () => {
  for (const password of [STRONG_PASSWORD, 'lovelace-violet-harbour-42', 'siteward-violet-harbour', 'cicada-harbour-lamp-42', 'correct horse battery staple']) {
    assert.deepEqual(checkPasswordPolicy(password, ada), [], password);
  }
});

test("short local parts and names are not words to refuse: a password is not refused for containing 'al'", () => {
  assert.deepEqual(checkPasswordPolicy('almond-violet-42', { email: 'al@example.com', name: 'Al' }), []);
});

test('the field errors name the path they are given', () => {
  assert.deepEqual(checkPasswordPolicy('ada.lovelace@example.com', ada, '/new_password'), [{ path: '/new_password', message: 'must not be built from your e-mail address' }]);
});

test('the existing rules still come first: length, then the common-password list', () => {
  assert.equal(checkPasswordPolicy('ada', ada)[0]?.message, 'must be at least 8 characters');
  assert.equal(checkPasswordPolicy('password123', ada)[0]?.message, 'is one of the most commonly used passwords; choose another');
});

test('a common password with a year or a mark added is refused as common, as the estimator sees it inside', () => {
  for (const password of ['dragon2024', 'football-1', 'Summer2026!']) {
    assert.deepEqual(checkPasswordPolicy(password, ada), [{ path: '/password', message: 'is one of the most commonly used passwords; choose another' }], password);
  }
});

test('a password with no common word that still falls to few guesses is refused as too easy to guess', () => {
  assert.deepEqual(checkPasswordPolicy('jw8#kq2v', ada), [{ path: '/password', message: 'is too easy to guess; a few unrelated words make a strong one' }]);
});
