import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { SecretBox, secretsEqual, sha256 } from './crypto.js';

test('a secret encrypts to a different ciphertext each time and decrypts back', () => {
  const box = new SecretBox(randomBytes(32));
  const first = box.encrypt('partner-token', 'site:1');
  const second = box.encrypt('partner-token', 'site:1');
  assert.notEqual(first, second);
  assert.ok(!first.includes('partner-token'));
  assert.equal(box.decrypt(first, 'site:1'), 'partner-token');
});

test('a ciphertext does not decrypt under another context, another key, or after tampering', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const stored = box.encrypt('partner-token', 'site:1');
  assert.throws(() => box.decrypt(stored, 'site:2'));
  assert.throws(() => new SecretBox(randomBytes(32)).decrypt(stored, 'site:1'));
  const raw = Buffer.from(stored.slice(3), 'base64');
  raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
  assert.throws(() => box.decrypt(`v1:${raw.toString('base64')}`, 'site:1'));
});

test('secretsEqual compares by value', () => {
  assert.ok(secretsEqual('abc', 'abc'));
  assert.ok(!secretsEqual('abc', 'abd'));
  assert.ok(!secretsEqual('abc', 'abcd'));
  assert.equal(sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
