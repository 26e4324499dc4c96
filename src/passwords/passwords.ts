import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as commonLanguage from '@zxcvbn-ts/language-common';
import pLimit from 'p-limit';
import type { FieldError } from '../errors.js';

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
   * At most one argon2id computation per core at a time; each holds its memory cost while it runs.
   * Left to libuv's pool, as many run at once as the pool has threads: no more logins per second,
   * since the cores are busy already, but more memory held at once and no thread left for the
   * pool's other work (file writes, DNS lookups) during a burst of sign-ins. One more than the
   * cores keeps a core busy while the next hash is handed over, for a little more throughput, but
   * holds one more hash's memory whenever sign-ins queue (docs/decisions/argon2-concurrency.md).
   */
  readonly #semaphore = pLimit(availableParallelism());

  constructor(private readonly options: PasswordHashingOptions = DEFAULT_PASSWORD_HASHING) {}

  hash(password: string): Promise<string> {
    return this.#semaphore(() => hash(password, { algorithm: ARGON2ID, memoryCost: this.options.memoryCost, timeCost: this.options.timeCost, parallelism: 1 }));
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    // An account without a password takes a real check's time too, so timing does not tell.
    if (passwordHash === NO_PASSWORD) return this.verifyAgainstDummy(password);
    try {
      return await this.#semaphore(() => verify(passwordHash, password));
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

/**
 * The least zxcvbn score a new password needs: 3 is "safely unguessable" (about 10^8 guesses or
 * more), the protection the zxcvbn authors advise against an attacker who holds the hash and guesses
 * offline; a lower score falls within reach even of argon2id's cost.
 */
const MIN_STRENGTH_SCORE = 3;
/**
 * The estimator reads a password's first 32 characters only: its work grows with the square of the
 * length, on the event loop, and 32 characters that are hard to guess make a strong password
 * whatever follows (docs/decisions/auth-password-policy.md).
 */
const ESTIMATED_CHARACTERS = 32;

let estimator: ZxcvbnFactory | undefined;

/**
 * zxcvbn-ts with its common dictionary: the most common passwords of public breach corpora, ranked,
 * and common words, names and keyboard layouts, so "dragon2024" or "Password1!" count as the few
 * guesses they are. Built on first use (a second or two) and kept.
 */
function strengthEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({ dictionary: commonLanguage.dictionary, graphs: commonLanguage.adjacencyGraphs, maxLength: ESTIMATED_CHARACTERS });
  return estimator;
}

/** Why a password is too easy to guess, or undefined when it is not. */
function guessability(password: string, context: PasswordContext): string | undefined {
  const result = strengthEstimator().check(password, [context.email, context.name ?? '', PRODUCT_NAME]);
  if (result.score >= MIN_STRENGTH_SCORE) return undefined;
  const common = result.sequence.some((match) => match.pattern === 'dictionary' && match.dictionaryName === 'passwords-common');
  return common ? 'is one of the most commonly used passwords; choose another' : 'is too easy to guess; a few unrelated words make a strong one';
}

/** Whom a password protects: it must not be made of what anyone can learn about the account. */
export interface PasswordContext {
  email: string;
  name?: string | undefined;
}

/** Guessers try the name of the service a password is for first. */
const PRODUCT_NAME = 'siteward';

/** Runs people type instead of choosing: the alphabet, the digits and the keyboard's rows. */
const SEQUENCES = ['abcdefghijklmnopqrstuvwxyz', '0123456789', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', 'azertyuiop', 'qwertzuiop'];
const SEQUENCE_RUNS = SEQUENCES.flatMap((sequence) => [sequence, [...sequence].reverse().join('')]);
/** The shortest piece of a sequence that counts as one (shorter ones are in every word). */
const MIN_RUN = 3;

/** Compared without case or compatibility variants, so "SiteWard" and "ｓｉｔｅｗａｒｄ" are one word. */
function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** One character, or a piece of up to four, said again and again: "aaaaaaaa", "abcabcabc". */
function repetition(folded: string): 'character' | 'pattern' | undefined {
  const match = /^(.{1,4}?)\1+$/su.exec(folded);
  if (match === null) return undefined;
  return [...(match[1] ?? '')].length === 1 ? 'character' : 'pattern';
}

function isRun(piece: string): boolean {
  return SEQUENCE_RUNS.some((run) => run.includes(piece));
}

/**
 * Made only of runs of the sequences above, forwards or backwards, of three or more characters
 * each ("abcdefgh", "87654321", "qwerty123"), its punctuation left out. An empty remainder is
 * trivial too.
 */
function isSequence(folded: string): boolean {
  const letters = folded.replace(/[^\p{L}\p{N}]/gu, '');
  // covered[i]: the first i characters split into runs.
  const covered = Array.from({ length: letters.length + 1 }, (_, i) => i === 0);
  for (let start = 0; start < letters.length; start++) {
    if (covered[start] !== true) continue;
    for (let end = start + MIN_RUN; end <= letters.length; end++) {
      if (!isRun(letters.slice(start, end))) break;
      covered[end] = true;
    }
  }
  return covered[letters.length] === true;
}

type ContextKind = 'email' | 'name' | 'product';

/** The words of the account that a password must not be built from, longest first. */
function contextWords(context: PasswordContext): Array<{ word: string; kind: ContextKind }> {
  const email = fold(context.email.trim());
  const localPart = email.slice(0, Math.max(0, email.lastIndexOf('@')));
  const name = fold((context.name ?? '').trim());
  const words: Array<{ word: string; kind: ContextKind }> = [
    { word: email, kind: 'email' },
    { word: localPart, kind: 'email' },
    { word: name, kind: 'name' },
    { word: name.replace(/\s+/gu, ''), kind: 'name' },
    ...name.split(/[^\p{L}\p{N}]+/u).map((word) => ({ word, kind: 'name' as const })),
    ...localPart.split(/[^\p{L}\p{N}]+/u).map((word) => ({ word, kind: 'email' as const })),
    { word: PRODUCT_NAME, kind: 'product' },
  ];
  // Longest first, so a whole address goes before its parts; a word that is both a name and part
  // of the address is named as the name (the order above, kept by the stable sort).
  return words.filter(({ word }) => [...word].length >= MIN_RUN).sort((a, b) => b.word.length - a.word.length);
}

/**
 * Which of the account's words the password is built from: what is left once they are taken out
 * is too short to stand alone, or only a sequence ("ada@example.com", "Ada2026!", "siteward1234").
 * A password that merely contains one of them among enough else is not refused.
 */
function builtFrom(folded: string, context: PasswordContext): ContextKind | undefined {
  let rest = folded;
  let first: ContextKind | undefined;
  for (const { word, kind } of contextWords(context)) {
    if (!rest.includes(word)) continue;
    rest = rest.split(word).join('');
    first ??= kind;
  }
  if (first === undefined) return undefined;
  const weak = [...rest].length < PASSWORD_MIN_LENGTH || repetition(rest) !== undefined || isSequence(rest);
  return weak ? first : undefined;
}

const BUILT_FROM_MESSAGE: Record<ContextKind, string> = {
  email: 'must not be built from your e-mail address',
  name: 'must not be built from your name',
  product: `must not be built from the service's name (${PRODUCT_NAME})`,
};

/**
 * The password rules, as field errors under `path` (empty when the password is acceptable). The
 * first guesses of anyone attacking one account are its own e-mail address and name, the
 * service's name, repeats, sequences and the most common passwords; none of them may be chosen,
 * nor anything else zxcvbn estimates to fall to fewer than about 10^8 guesses.
 */
export function checkPasswordPolicy(password: string, context: PasswordContext, path = '/password'): FieldError[] {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return [{ path, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` }];
  if (length > PASSWORD_MAX_LENGTH) return [{ path, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` }];
  const folded = fold(password);
  const source = builtFrom(folded, context);
  if (source !== undefined) return [{ path, message: BUILT_FROM_MESSAGE[source] }];
  const repeated = repetition(folded);
  if (repeated === 'character') return [{ path, message: 'must not be one character repeated' }];
  if (repeated === 'pattern') return [{ path, message: 'must not be a short pattern repeated, like abcabcabc' }];
  if (isSequence(folded)) return [{ path, message: 'must not be a simple sequence, like abcdefgh, 12345678 or qwerty' }];
  const guessable = guessability(password, context);
  if (guessable !== undefined) return [{ path, message: guessable }];
  return [];
}
