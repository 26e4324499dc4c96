import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { AppError } from '../errors.js';

export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

const FIFTEEN_MINUTES = 15 * 60 * 1000;

/** Limits on sign-in, sign-up and sign-in e-mails, per account or address and per client address. */
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
} satisfies Record<string, RateLimitRule>;

/**
 * Fixed-window counters kept in the database, not in process memory: two app servers behind one
 * load balancer must share them, or an attacker simply gets twice the attempts.
 */
export class RateLimiter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Seconds until the key may try again, or 0 when it is not limited. */
  async retryAfter(key: string, rule: RateLimitRule): Promise<number> {
    const row = await this.db.selectFrom('rate_limits').select(['window_start', 'count']).where('key', '=', key).executeTakeFirst();
    const now = this.clock.now().getTime();
    if (row === undefined || row.window_start <= now - rule.windowMs || row.count < rule.limit) return 0;
    return Math.max(1, Math.ceil((row.window_start + rule.windowMs - now) / 1000));
  }

  /** Throws 429 with Retry-After when any of the keys is over its limit. */
  async assertNotLimited(checks: Array<[key: string, rule: RateLimitRule]>): Promise<void> {
    let wait = 0;
    for (const [key, rule] of checks) wait = Math.max(wait, await this.retryAfter(key, rule));
    if (wait > 0) throw tooManyRequests(wait);
  }

  /** Counts one event against the key, opening a new window when the old one has passed. */
  async hit(key: string, rule: RateLimitRule): Promise<void> {
    await this.#count(key, rule);
  }

  /**
   * Reserves one attempt before it is made: counts it and throws 429 when that goes over the
   * limit. Counting first, in one statement, means concurrent attempts (from several app servers
   * too) cannot all pass a check made before any of them counted. An attempt that succeeds gives
   * its place back with `refund`, so only failures use up the limit.
   */
  async take(key: string, rule: RateLimitRule): Promise<void> {
    const { count, windowStart } = await this.#count(key, rule);
    if (count > rule.limit) {
      const now = this.clock.now().getTime();
      throw tooManyRequests(Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000)));
    }
  }

  /** Gives back an attempt reserved by `take` that turned out not to be a failure. */
  async refund(key: string): Promise<void> {
    await this.db
      .updateTable('rate_limits')
      .set((eb) => ({ count: eb('count', '-', 1) }))
      .where('key', '=', key)
      .where('count', '>', 0)
      .execute();
  }

  async #count(key: string, rule: RateLimitRule): Promise<{ count: number; windowStart: number }> {
    const now = this.clock.now().getTime();
    const windowOpenedBefore = now - rule.windowMs;
    const row = await this.db
      .insertInto('rate_limits')
      .values({ key, window_start: now, count: 1 })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          count: sql<number>`case when rate_limits.window_start <= ${windowOpenedBefore} then 1 else rate_limits.count + 1 end`,
          window_start: sql<number>`case when rate_limits.window_start <= ${windowOpenedBefore} then ${now} else rate_limits.window_start end`,
        }),
      )
      .returning(['count', 'window_start'])
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), windowStart: Number(row.window_start) };
  }

  async reset(key: string): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('key', '=', key).execute();
  }

  /** Drops windows that ended long ago, so the table does not grow with every address ever seen. */
  async prune(olderThanMs = 24 * 60 * 60 * 1000): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('window_start', '<', this.clock.now().getTime() - olderThanMs).execute();
  }
}

export function tooManyRequests(retryAfterSeconds: number): AppError {
  return new AppError(429, 'rate_limited', `Too many attempts. Try again in ${retryAfterSeconds} seconds.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
