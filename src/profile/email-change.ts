import type { Kysely } from 'kysely';
import { TOKEN_SHAPE } from '../auth/magic-link.js';
import { EMAIL_CHANGE_PURPOSE, findRedeemableToken } from '../auth/queries.js';
import type { RateLimiter, RateLimitRule } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import { AppError, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { Mailer } from '../mail/mailer.js';
import { emailChangeMessage } from '../mail/templates.js';
import { findUserById } from '../users/queries.js';
import { checkEmail, emailTaken, normalizeEmail } from '../users/service.js';
import { cancelPendingChanges, type CompletedChange, completeEmailChange, findPendingChange, isEmailTakenByOther, replacePendingChange } from './queries.js';
import { PROFILE_ERRORS } from './errors.js';
import { USER_ERRORS } from '../users/errors.js';

export const EMAIL_CHANGE_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Error codes of this feature (a taken address is users' `email_taken`). */

/** Change requests an account may make: each mails an address nobody has yet proved to hold. */
export const EMAIL_CHANGES_PER_ACCOUNT: RateLimitRule = { limit: 5, windowMs: 60 * 60 * 1000 };

export interface PendingEmailChange {
  email: string;
  expires_at: string;
}

const emailUnchanged = () =>
  new AppError(400, PROFILE_ERRORS.EMAIL_UNCHANGED, 'This is already your e-mail address.', { errors: [{ path: '/email', message: 'is already your address' }] });

/**
 * Moving an account to another address. A stolen session must not be enough to move the account
 * to the thief's mailbox (and with it every later sign-in link): the request needs a recent
 * authentication (the route's guard), the new address's holder must confirm it by its link, and
 * the old address is told once it is done. Until then the new address is stored only beside the
 * link, so it signs in to nothing.
 */
export class EmailChangeService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly limiter: RateLimiter,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  /**
   * Mails the new address a link that completes the change (24 hours, one use, stored as a hash),
   * replacing any change asked for before. The place under the limit is reserved before the
   * address is looked up or mailed, so parallel requests cannot all pass one count, nor probe
   * which addresses have accounts beyond it.
   */
  async request(userId: string, emailInput: string): Promise<PendingEmailChange> {
    const email = normalizeEmail(emailInput);
    const invalid = checkEmail(email);
    if (invalid.length > 0) throw validationError(invalid);
    // Read afresh: the request's principal may be cached from before a change.
    const user = await findUserById(this.db, userId);
    if (user === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');
    if (email === user.email) throw emailUnchanged();
    await this.limiter.reserve([[`email-change:user:${user.id}`, EMAIL_CHANGES_PER_ACCOUNT]]);
    if (await isEmailTakenByOther(this.db, email, user.id)) throw emailTaken();

    const token = randomToken(32);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + EMAIL_CHANGE_LIFETIME_MS).toISOString();
    await replacePendingChange(this.db, {
      id: newId(now),
      user_id: user.id,
      purpose: EMAIL_CHANGE_PURPOSE,
      token_hash: sha256(token),
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
      new_email: email,
    });
    const link = `${this.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    this.mailer.send(emailChangeMessage(email, link, EMAIL_CHANGE_LIFETIME_MS / 3_600_000));
    return { email, expires_at: expiresAt };
  }

  /** The change waiting for its link, for the account's own settings. */
  async pending(userId: string): Promise<PendingEmailChange | null> {
    const row = await findPendingChange(this.db, userId, this.clock.now().toISOString());
    return row === undefined || row.new_email === null ? null : { email: row.new_email, expires_at: row.expires_at };
  }

  /** Withdraws the pending change: its link no longer works. */
  cancel(userId: string): Promise<boolean> {
    return cancelPendingChanges(this.db, userId);
  }

  /** For the confirmation page: the address the link would move the account to. Changes nothing. */
  async inspect(token: string): Promise<{ newEmail: string } | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const row = await findRedeemableToken(this.db, EMAIL_CHANGE_PURPOSE, sha256(token), this.clock.now().toISOString());
    return row === undefined || row.new_email === null ? undefined : { newEmail: row.new_email };
  }

  /** Uses the link at most once and applies the change; undefined when the link cannot be used. */
  complete(token: string): Promise<CompletedChange | undefined> {
    if (!TOKEN_SHAPE.test(token)) return Promise.resolve(undefined);
    return completeEmailChange(this.db, sha256(token), this.clock.now().toISOString());
  }
}
