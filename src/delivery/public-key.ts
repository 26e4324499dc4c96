import { randomBytes } from 'node:crypto';

/**
 * A site's publishable key: "spk_" + 24 base62 characters (about 143 bits). It is not a secret:
 * it is written into every page that embeds the site's configuration. It names the site on the
 * public path without revealing the site's id, which the API's routes take, and it can be replaced
 * (rotated) without touching the site. No imports of ours: the sites feature and the migration
 * that gave existing sites their keys use it too.
 */
export const PUBLIC_KEY_PREFIX = 'spk_';
export const PUBLIC_KEY_BODY_LENGTH = 24;
export const PUBLIC_KEY_LENGTH = PUBLIC_KEY_PREFIX.length + PUBLIC_KEY_BODY_LENGTH;
/** The shape as a JSON-schema pattern, for the route's parameter schema. */
export const PUBLIC_KEY_PATTERN = `^${PUBLIC_KEY_PREFIX}[0-9A-Za-z]{${PUBLIC_KEY_BODY_LENGTH}}$`;
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

/** How long a replaced key keeps answering, so that pages still carrying it can be updated. */
export const PREVIOUS_KEY_OVERLAP_MS = 24 * 60 * 60 * 1000;
