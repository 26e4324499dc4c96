import { randomBytes } from 'node:crypto';
import { sha256 } from '../lib/crypto.js';

export const RECOVERY_CODE_COUNT = 10;

/** RFC 4648 base32 in lower case: no 0/1/8/9, so no O/0 or l/1 confusion when typed from paper. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const CODE_LENGTH = 10;

/**
 * A recovery code: 10 characters of a 32-letter alphabet (50 random bits), shown as "xxxxx-xxxxx".
 * Guessing one online is hopeless under the limit of 10 wrong codes per 15 minutes, and it is
 * stored only as a SHA-256 hash: a database leak yields no usable code.
 */
export function newRecoveryCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  // 256 is a multiple of 32, so taking 5 bits of each byte is unbiased.
  const code = Array.from(bytes, (byte) => ALPHABET[byte & 31]).join('');
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/** What people type: any case, with or without the hyphen or spaces (apps show "123 456"). */
export function normalizeCode(input: string): string {
  return input.replace(/[\s-]/g, '').toLowerCase();
}

export function isTotpCodeShape(normalized: string): boolean {
  return /^[0-9]{6}$/.test(normalized);
}

export function isRecoveryCodeShape(normalized: string): boolean {
  return normalized.length === CODE_LENGTH && [...normalized].every((character) => ALPHABET.includes(character));
}

export function hashRecoveryCode(normalized: string): string {
  return sha256(normalized);
}
