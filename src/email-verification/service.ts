import type { Kysely } from 'kysely';
import { whyOneTimeLinkRefused } from '../auth/link-refusal.js';
import { TOKEN_SHAPE } from '../auth/magic-link.js';
import { EMAIL_VERIFICATION_PURPOSE, findRedeemableToken, insertOneTimeToken } from '../auth/queries.js';
import type { RateLimiter, RateLimitRule } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { Mailer } from '../mail/mailer.js';
import { emailVerificationMessage } from '../mail/templates.js';
import { findUserById, type UserRow } from '../users/queries.js';
import { hasPassword, isEmailVerified } from '../users/service.js';
import { EMAIL_VERIFICATION_ERRORS } from './errors.js';
import { hasOtherCredentials, markEmailVerified, redeemVerificationToken } from './queries.js';
import { USER_ERRORS } from '../users/errors.js';

export const EMAIL_VERIFICATION_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Verification mails a signed-in account may ask for: each is a mail to an address we do not know is theirs. */
export const VERIFICATION_RESENDS_PER_ACCOUNT: RateLimitRule = { limit: 3, windowMs: 60 * 60 * 1000 };

/**
 * For features an unverified account may not use (inviting people, webhooks): an address nobody
 * has proved to hold could be someone else's, and these would mail or call out in its name.
 */
export function assertEmailVerified(user: UserRow): void {
  if (!isEmailVerified(user)) {
    throw new AppError(403, EMAIL_VERIFICATION_ERRORS.EMAIL_NOT_VERIFIED, 'Confirm your e-mail address first: use the link we mailed you, or ask for a new one.');
  }
}

export const verificationTokenInvalid = () =>
  new AppError(410, EMAIL_VERIFICATION_ERRORS.VERIFICATION_TOKEN_INVALID, 'This confirmation link is unknown, already used or expired; sign in and ask for a new one.');

/**
 * Proof that an account's holder reads its address's mail. A sign-up proves nothing about the
 * address (anyone can type anyone's), so until this proof the account may be a squatter's.
 */
export class EmailVerificationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly limiter: RateLimiter,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  /** Why a verification or address-change link /verify-email refused could not be used, and whose it was: for the security log. */
  whyRefused(token: string): ReturnType<typeof whyOneTimeLinkRefused> {
    return whyOneTimeLinkRefused(this.db, this.clock.now(), 'email_verification', token);
  }

  /** Mails the account's address a link that verifies it (24 hours, one use, stored as a hash). */
  async send(user: UserRow): Promise<void> {
    const token = randomToken(32);
    const now = this.clock.now();
    await insertOneTimeToken(this.db, {
      id: newId(now),
      user_id: user.id,
      purpose: EMAIL_VERIFICATION_PURPOSE,
      token_hash: sha256(token),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + EMAIL_VERIFICATION_LIFETIME_MS).toISOString(),
      used_at: null,
    });
    const link = `${this.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    this.mailer.send(emailVerificationMessage(user.email, link, `${this.publicUrl}/sign-in`, EMAIL_VERIFICATION_LIFETIME_MS / 3_600_000));
  }

  /**
   * A new link for a signed-in account. The place is reserved before the mail is made, so
   * parallel requests cannot all pass a count taken before any of them was counted.
   */
  async resend(userId: string): Promise<void> {
    // Read afresh: the request's principal may be cached from before a verification.
    const user = await findUserById(this.db, userId);
    if (user === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');
    if (isEmailVerified(user)) throw new AppError(409, EMAIL_VERIFICATION_ERRORS.EMAIL_ALREADY_VERIFIED, 'This e-mail address is already confirmed.');
    await this.limiter.reserve([[`verify-email:user:${user.id}`, VERIFICATION_RESENDS_PER_ACCOUNT]]);
    await this.send(user);
  }

  /** For the confirmation page: whose address the link confirms, if it still can. Changes nothing. */
  async inspect(token: string): Promise<{ email: string } | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const row = await findRedeemableToken(this.db, EMAIL_VERIFICATION_PURPOSE, sha256(token), this.clock.now().toISOString());
    if (row === undefined) return undefined;
    const user = await findUserById(this.db, row.user_id);
    return user === undefined ? undefined : { email: user.email };
  }

  /** Uses the link at most once, whatever the concurrency; undefined when it cannot be used. */
  async verify(token: string): Promise<{ user: UserRow; newlyVerified: boolean } | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const redeemed = await redeemVerificationToken(this.db, sha256(token), this.clock.now().toISOString());
    if (redeemed === undefined) return undefined;
    const user = await findUserById(this.db, redeemed.userId);
    return user === undefined ? undefined : { user, newlyVerified: redeemed.newlyVerified };
  }

  /**
   * After a magic link was redeemed for the user: the link proved the mailbox, so an unverified
   * address becomes verified, unless the account already holds a password or other credentials.
   * Those may be a squatter's (pre-account hijacking), so the mailbox holder must first choose to
   * keep or reset them (`claimRequired`).
   */
  async afterMagicLink(userId: string): Promise<{ user: UserRow; disabled: boolean; claimRequired: boolean; newlyVerified: boolean } | undefined> {
    const user = await findUserById(this.db, userId);
    if (user === undefined) return undefined;
    // A disabled account signs in no way, and its link changes nothing but its own use.
    if (user.disabled_at !== null) return { user, disabled: true, claimRequired: false, newlyVerified: false };
    if (isEmailVerified(user)) return { user, disabled: false, claimRequired: false, newlyVerified: false };
    if (hasPassword(user) || (await hasOtherCredentials(this.db, user.id))) return { user, disabled: false, claimRequired: true, newlyVerified: false };
    const newlyVerified = await markEmailVerified(this.db, user.id, this.clock.now().toISOString());
    return { user: { ...user, email_verified_at: this.clock.now().toISOString() }, disabled: false, claimRequired: false, newlyVerified };
  }
}
