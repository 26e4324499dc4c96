import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import type { FieldError } from '../errors.js';
import { WorkSlots } from '../lib/work-slots.js';

export interface PasswordHashingOptions {
  /** KiB of memory per hash. */
  memoryCost: number;
  timeCost: number;
}

/** OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane). */
export const DEFAULT_PASSWORD_HASHING: PasswordHashingOptions = { memoryCost: 19_456, timeCost: 2 };

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

// @node-rs/argon2 declares its algorithms as a const enum, which isolated modules cannot inline.
const ARGON2ID = 2;

export class PasswordHasher {
  #dummyHash: Promise<string> | undefined;
  /**
   * At most one argon2id computation per core, plus one, at a time; each holds its 19 MiB while
   * it runs. Left to libuv's pool, four ran at once on two cores. Measured on two cores: the same
   * logins per second as four (the extra one keeps a core busy while the next hash is handed
   * over; one per core lost 10%), 17 MB less peak memory, and one of the pool's threads free for
   * its other work (file writes, DNS lookups) during a burst of sign-ins.
   */
  readonly #slots = new WorkSlots(availableParallelism() + 1);

  constructor(private readonly options: PasswordHashingOptions = DEFAULT_PASSWORD_HASHING) {}

  hash(password: string): Promise<string> {
    return this.#slots.run(() => hash(password, { algorithm: ARGON2ID, memoryCost: this.options.memoryCost, timeCost: this.options.timeCost, parallelism: 1 }));
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    // An account without a password takes a real check's time too, so timing does not tell.
    if (passwordHash === NO_PASSWORD) return this.verifyAgainstDummy(password);
    try {
      return await this.#slots.run(() => verify(passwordHash, password));
    } catch {
      return false;
    }
  }

  /**
   * Spends the same work as a real check for an e-mail that has no account, so the answer's
   * timing does not tell an attacker which addresses are registered.
   */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.#dummyHash ??= this.hash('siteward-dummy-password-for-timing');
    await this.verify(await this.#dummyHash, password);
    return false;
  }
}

/** Stored in place of a hash when an account has no password (after a reset); nothing verifies against it. */
export const NO_PASSWORD = '';

let commonPasswords: Set<string> | undefined;

/**
 * The most common passwords, ranked by frequency in public breach corpora (about 49,000, from the
 * zxcvbn-ts dictionary package). Loaded on first use and kept.
 */
function loadCommonPasswords(): Set<string> {
  if (commonPasswords === undefined) {
    const require = createRequire(import.meta.url);
    const list = require('@zxcvbn-ts/language-common/src/passwords.json') as string[];
    commonPasswords = new Set(list.map((word) => word.toLowerCase()));
  }
  return commonPasswords;
}

export function isCommonPassword(password: string): boolean {
  return loadCommonPasswords().has(password.toLowerCase());
}

/** The password rules, as field errors under `path` (empty when the password is acceptable). */
export function checkPasswordPolicy(password: string, path = '/password'): FieldError[] {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return [{ path, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` }];
  if (length > PASSWORD_MAX_LENGTH) return [{ path, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` }];
  if (isCommonPassword(password)) return [{ path, message: 'is one of the most commonly used passwords; choose another' }];
  return [];
}
