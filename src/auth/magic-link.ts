import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { Mailer } from '../mail/mailer.js';
import { magicLinkMessage } from '../mail/templates.js';
import { findUserById } from '../users/queries.js';
import { normalizeEmail, type UserService } from '../users/service.js';
import { findRedeemableToken, insertOneTimeToken, MAGIC_LINK_PURPOSE, redeemToken } from './queries.js';
import { RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import { whyOneTimeLinkRefused } from './link-refusal.js';

export const MAGIC_LINK_LIFETIME_MS = 15 * 60 * 1000;
/** 32 random bytes in base64url; anything else is not ours and costs no lookup. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Passwordless sign-in by e-mail. The token is redeemed only by POST /magic, never by opening the
 * link: mail scanners and link previews fetch every link in a message, and must not burn it.
 */
export class MagicLinkService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly users: UserService,
    private readonly limiter: RateLimiter,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  /**
   * Mails a link to a known address. Unknown addresses take the same path as far as they can (the
   * same limits, a token made and a query of the same cost) and the caller answers the same, so
   * neither the answer nor its timing tells whether an account exists.
   */
  async request(emailInput: string, clientIp: string): Promise<void> {
    const email = normalizeEmail(emailInput);
    // Counted before anything is looked up or mailed, every request alike: concurrent requests
    // cannot all pass a limit read before any of them was counted (a mailbox flooded with links).
    await this.limiter.reserve([
      [`magic:address:${email}`, RATE_LIMITS.magicLinksPerAddress],
      [`magic:ip:${clientIp}`, RATE_LIMITS.magicLinksPerIp],
    ]);

    const token = randomToken(32);
    const tokenHash = sha256(token);
    const user = await this.users.findByEmail(email);
    const now = this.clock.now();
    if (user === undefined) {
      await findRedeemableToken(this.db, MAGIC_LINK_PURPOSE, tokenHash, now.toISOString());
      return;
    }
    await insertOneTimeToken(this.db, {
      id: newId(now),
      user_id: user.id,
      purpose: MAGIC_LINK_PURPOSE,
      token_hash: tokenHash,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + MAGIC_LINK_LIFETIME_MS).toISOString(),
      used_at: null,
    });
    const link = `${this.publicUrl}/magic?token=${encodeURIComponent(token)}`;
    this.mailer.send(magicLinkMessage(user.email, link, MAGIC_LINK_LIFETIME_MS / 60_000));
  }

  /** For the confirmation page: whose link this is, if it can still be redeemed. Changes nothing. */
  async inspect(token: string): Promise<{ email: string } | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const row = await findRedeemableToken(this.db, MAGIC_LINK_PURPOSE, sha256(token), this.clock.now().toISOString());
    if (row === undefined) return undefined;
    const user = await findUserById(this.db, row.user_id);
    return user === undefined ? undefined : { email: user.email };
  }

  /** Why a link this page refused could not be used, and whose it was: for the security log. */
  whyRefused(token: string): ReturnType<typeof whyOneTimeLinkRefused> {
    return whyOneTimeLinkRefused(this.db, this.clock.now(), 'magic_link', token);
  }

  /** Redeems the token at most once, whatever the concurrency; returns the user id. */
  async redeem(token: string): Promise<string | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    return redeemToken(this.db, MAGIC_LINK_PURPOSE, sha256(token), this.clock.now().toISOString());
  }
}
