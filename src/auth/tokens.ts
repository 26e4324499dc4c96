import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256 } from '../lib/crypto.js';

/**
 * Personal access tokens: "swd_" + 32 random bytes in base62 (43 characters) + a base62 CRC32 of
 * that random part (6 characters). The prefix lets secret scanners recognise a leaked token; the
 * checksum rejects typos and random guesses before any database lookup.
 */
export const ACCESS_TOKEN_PREFIX = 'swd_';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_PATTERN = new RegExp(`^${ACCESS_TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: bigint, length: number): string {
  let text = '';
  let rest = value;
  while (rest > 0n) {
    text = ALPHABET[Number(rest % 62n)] + text;
    rest /= 62n;
  }
  return text.padStart(length, '0');
}

function checksum(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

export function generateAccessToken(): string {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH);
  return `${ACCESS_TOKEN_PREFIX}${body}${checksum(body)}`;
}

/** True when the text has the token's shape and its checksum matches. */
export function isWellFormedAccessToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  const body = token.slice(ACCESS_TOKEN_PREFIX.length, ACCESS_TOKEN_PREFIX.length + BODY_LENGTH);
  return checksum(body) === token.slice(ACCESS_TOKEN_PREFIX.length + BODY_LENGTH);
}

export function looksLikeAccessToken(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}

export function hashAccessToken(token: string): string {
  return sha256(token);
}
