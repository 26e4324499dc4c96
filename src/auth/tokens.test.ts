import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateAccessToken, isWellFormedAccessToken, looksLikeAccessToken } from './tokens.js';
import { looksLikeJwt } from './jwt.js';

test('generated tokens are distinct, prefixed and pass their own checksum', () => {
  const tokens = new Set(Array.from({ length: 200 }, generateAccessToken));
  assert.equal(tokens.size, 200);
  for (const token of tokens) {
    assert.ok(token.startsWith('swd_'));
    assert.equal(token.length, 4 + 43 + 6);
    assert.ok(isWellFormedAccessToken(token), token);
    assert.ok(looksLikeAccessToken(token));
    assert.ok(!looksLikeJwt(token));
  }
});

test('any single-character change breaks the checksum', () => {
  const token = generateAccessToken();
  for (let i = 4; i < token.length; i++) {
    const replacement = token[i] === '0' ? '1' : '0';
    assert.ok(!isWellFormedAccessToken(token.slice(0, i) + replacement + token.slice(i + 1)), `position ${i}`);
  }
});
