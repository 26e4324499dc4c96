import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { sha256 } from '../lib/crypto.js';

export const RECOVERY_CODE_COUNT = 10;

/** RFC 4648 base32 in lower case: no 0/1/8/9, so no O/0 or l/1 confusion when typed from paper. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const CODE_LENGTH = 10;

/**
 * A recovery code: 10 characters of a 32-letter alphabet (50 random bits), shown as "xxxxx-xxxxx".
 * Guessing one online is hopeless under the limit of 10 wrong codes per 15 minutes; offline, 50
 * bits fall to a GPU in days when the hash is a plain SHA-256, so it is stored keyed (see
 * RecoveryCodeDigest).
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

/** How a stored digest made with the server's key begins; a digest without it is a legacy SHA-256. */
export const KEYED_DIGEST_PREFIX = 'hmac:';
const DIGEST_KEY_INFO = 'siteward recovery-code digest v1';

/**
 * Recovery codes are stored as HMAC-SHA-256(key, SHA-256(normalised code)), the key derived from
 * ENCRYPTION_KEY by HKDF under its own label, so it is independent of the key's AES use.
 *
 * The threat: a copy of the database (a backup, a dump, a read-only SQL injection) and a GPU. A
 * code has about 50 bits; an unsalted SHA-256 of it is found by brute force in days. Keyed, the
 * digests are worthless without ENCRYPTION_KEY, which lives outside the database. The inner
 * SHA-256 lets digests stored before the key was used (plain SHA-256) be converted without the
 * codes themselves (upgradeLegacyRecoveryCodes in queries.ts).
 */
export class RecoveryCodeDigest {
  readonly #key: Buffer;

  constructor(encryptionKey: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), DIGEST_KEY_INFO, 32));
  }

  /** The stored form of a normalised code. */
  digest(normalized: string): string {
    return this.fromLegacy(sha256(normalized));
  }

  /** The stored form of a code whose plain SHA-256 (hex) is all that is known. */
  fromLegacy(sha256Hex: string): string {
    return `${KEYED_DIGEST_PREFIX}${createHmac('sha256', this.#key).update(sha256Hex, 'utf8').digest('hex')}`;
  }
}

/** A digest as versions before the keyed one stored it; only looked up, never written. */
export function legacyRecoveryCodeDigest(normalized: string): string {
  return sha256(normalized);
}
