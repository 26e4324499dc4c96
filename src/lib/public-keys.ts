import { randomBytes } from 'node:crypto';
import { PUBLIC_KEY_BODY_LENGTH, PUBLIC_KEY_LENGTH, PUBLIC_KEY_PATTERN, PUBLIC_KEY_PREFIX } from './public-key-shape.js';

/**
 * Sites' publishable keys (their shape: public-key-shape.ts). They name a site on the public
 * path without revealing its id, which the API's routes take, and can be replaced (rotated)
 * without touching the site. Here, rather than in delivery/, because sites are created with one
 * and the migration that gave existing sites theirs makes them too.
 */
const KEY = new RegExp(PUBLIC_KEY_PATTERN);
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62 × 4 = 248: bytes at or above it are drawn again, so every character is equally likely. */
const UNBIASED_LIMIT = 248;

export function generatePublicKey(): string {
  let body = '';
  while (body.length < PUBLIC_KEY_BODY_LENGTH) {
    for (const byte of randomBytes(32)) {
      if (byte >= UNBIASED_LIMIT) continue;
      body += ALPHABET[byte % 62];
      if (body.length === PUBLIC_KEY_BODY_LENGTH) break;
    }
  }
  return PUBLIC_KEY_PREFIX + body;
}

export function isPublicKey(text: string): boolean {
  return text.length === PUBLIC_KEY_LENGTH && KEY.test(text);
}
