import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { AppError } from '../errors.js';
import { RATE_LIMIT_ERRORS } from './errors.js';
import { countAttempt, deleteWindowsBefore, uncountAttempt } from './queries.js';

export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

const FIFTEEN_MINUTES = 15 * 60 * 1000;

/**
 * The window of failed passwords for one account (by its normalised e-mail): sign-in and the
 * password-change form count into the same one, so neither is a side door for guessing.
 */
export function failedPasswordKey(email: string): string {
  return `login:account:${email}`;
}

export const RATE_LIMITS = {
  loginFailuresPerAccount: { limit: 10, windowMs: FIFTEEN_MINUTES },
  loginFailuresPerIp: { limit: 50, windowMs: FIFTEEN_MINUTES },
  signupsPerIp: { limit: 10, windowMs: 60 * 60 * 1000 },
  magicLinksPerAddress: { limit: 5, windowMs: FIFTEEN_MINUTES },
  magicLinksPerIp: { limit: 20, windowMs: FIFTEEN_MINUTES },
  /** Wrong TOTP or recovery codes, across every sign-in path and client address. */
  codeFailuresPerAccount: { limit: 10, windowMs: FIFTEEN_MINUTES },
  /** Failed passkey sign-ins (bad, replayed or unknown responses) from one client address. */
  passkeyFailuresPerIp: { limit: 50, windowMs: FIFTEEN_MINUTES },
  /** Passkey sign-in challenges: each is a database row, and a sign-in page may ask at every load. */
  passkeyOptionsPerIp: { limit: 300, windowMs: FIFTEEN_MINUTES },
  /** Sign-ins started at a provider: each is a database row until it expires. */
  oidcStartsPerIp: { limit: 300, windowMs: FIFTEEN_MINUTES },
  /** Invitations one person sends, across workspaces: each is a mail to an address of their choosing. */
  invitationsPerUser: { limit: 20, windowMs: 60 * 60 * 1000 },
} satisfies Record<string, RateLimitRule>;

/** One limit an attempt counts against: the counter's key (what is limited) and its rule. */
export type RateLimitCheck = readonly [key: string, rule: RateLimitRule];

/** The places an attempt holds under its limits, until it gives them back. */
export interface Reservation {
  /** Gives the places back: the attempt turned out not to be one the limit is about (a success). */
  refund(): Promise<void>;
}

/**
 * Fixed-window counters kept in the database, not in process memory: two app servers behind one
 * load balancer must share them, or an attacker simply gets twice the attempts.
 */
export class RateLimiter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * Reserves one attempt against every key before the attempt is made, and throws 429 with
   * Retry-After when that goes over any key's limit. Counting comes first, one atomic statement
   * per key, because a limit read before an expensive check (argon2id, a passkey signature) and
   * counted after it lets every concurrent guess, from one process or several, pass the same read.
   * A refused attempt gives its places back at once, so the counters hold only attempts that were
   * let through. Where only failures should use up the limit, the caller refunds the reservation
   * when the attempt succeeds. `refusal` makes the 429 for a feature whose refusal has a code of
   * its own.
   */
  async reserve(checks: ReadonlyArray<RateLimitCheck>, refusal: (retryAfterSeconds: number) => AppError = tooManyRequests): Promise<Reservation> {
    const now = this.clock.now().getTime();
    const counted: Array<{ key: string; windowStart: number }> = [];
    let wait = 0;
    for (const [key, rule] of checks) {
      const { count, windowStart } = await this.#count(key, rule, now);
      counted.push({ key, windowStart });
      if (count > rule.limit) wait = Math.max(wait, Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000)));
    }
    const reservation: Reservation = { refund: () => this.#refund(counted) };
    if (wait > 0) {
      await reservation.refund();
      throw refusal(wait);
    }
    return reservation;
  }

  /** Gives back one counted attempt per key, in the window it was counted in (never a later one). */
  async #refund(counted: ReadonlyArray<{ key: string; windowStart: number }>): Promise<void> {
    for (const { key, windowStart } of counted) await uncountAttempt(this.db, key, windowStart);
  }

  /** Counts one attempt against the key, opening a new window when the old one has passed. */
  async #count(key: string, rule: RateLimitRule, now: number): Promise<{ count: number; windowStart: number }> {
    return countAttempt(this.db, key, now, now - rule.windowMs);
  }

  /** Drops windows that ended long ago, so the table does not grow with every address ever seen. */
  async prune(olderThanMs = 24 * 60 * 60 * 1000): Promise<void> {
    await deleteWindowsBefore(this.db, this.clock.now().getTime() - olderThanMs);
  }
}

export function tooManyRequests(retryAfterSeconds: number): AppError {
  return new AppError(429, RATE_LIMIT_ERRORS.RATE_LIMITED, `Too many attempts. Try again in ${retryAfterSeconds} seconds.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
