import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A URL-safe random string carrying `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Hex SHA-256. One-time tokens, session ids and access tokens are stored only as this. The one-shot
 * crypto.hash (Node 20.12) is cheaper than a Hash object, and this runs for every request made with
 * an access token.
 */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Compares two secrets without leaking, through timing, how long a prefix matched.
 * Both sides are hashed first so inputs of different lengths take the same path.
 */
export function secretsEqual(a: string, b: string): boolean {
  const left = hash('sha256', a, 'buffer');
  const right = hash('sha256', b, 'buffer');
  return timingSafeEqual(left, right);
}

const CIPHER = 'aes-256-gcm';
const FORMAT_VERSION = 'v1';

/**
 * Secret storage at rest: AES-256-GCM with a fresh 96-bit nonce per value.
 * `context` is bound as additional authenticated data (for example the site id), so a ciphertext
 * copied into another row does not decrypt there.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.#key = key;
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(CIPHER, this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${FORMAT_VERSION}:${Buffer.concat([iv, tag, body]).toString('base64')}`;
  }

  decrypt(stored: string, context: string): string {
    const [version, payload] = stored.split(':', 2);
    if (version !== FORMAT_VERSION || payload === undefined) throw new Error('unknown ciphertext format');
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv(CIPHER, this.#key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
