import type { Kysely } from 'kysely';
import { endPendingClaim } from '../auth/queries.js';
import type { SessionService } from '../auth/sessions.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { sha256 } from '../lib/crypto.js';
import type { AuthenticationMethod, RequestOrigin } from '../security/event-types.js';
import type { TotpService } from '../totp/service.js';
import { cancelPendingChanges } from '../profile/queries.js';
import { findUserById, type UserRow } from '../users/queries.js';
import { markEmailVerified, resetAccountCredentials } from './queries.js';

export const CLAIM_DECISIONS = ['keep', 'reset'] as const;
export type ClaimDecision = (typeof CLAIM_DECISIONS)[number];

/**
 * A sign-in that proved the mailbox another way than a magic link (a provider's verified address:
 * src/oidc/pending-links.ts) and waits with the claim-pending session for the same choice. Only
 * once the choice is made is it finished: what it would add to the account is added after the
 * reset, never before it, so a squatter's credentials cannot ride along or outlive it.
 */
export interface PendingClaimSignIn {
  /** How the mailbox was proved, for the security events. */
  method: AuthenticationMethod;
  /** Where the sign-in was headed. */
  next: string;
  /** Whether the account's second factor is asked for after the choice (not when a provider owns it). */
  secondFactor: boolean;
  /** Adds what waited to the account, whose address is verified now. */
  finish(user: UserRow, origin: RequestOrigin): Promise<void>;
}

export interface PendingClaimSignIns {
  /** What waits with the claim-pending session behind the cookie, if it came some other way than a magic link. */
  find(cookieValue: string): Promise<PendingClaimSignIn | undefined>;
}

/** With "keep": what becomes of a change of address waiting for its link ("reset" always voids it). */
export const CLAIM_EMAIL_CHANGE_CHOICES = ['keep', 'withdraw'] as const;
export type ClaimEmailChangeChoice = (typeof CLAIM_EMAIL_CHANGE_CHOICES)[number];

/** Thrown inside the reset's transaction when another answer came first: it rolls the reset back. */
class ClaimAlreadyAnswered extends Error {}

export interface ClaimOutcome {
  user: UserRow;
  /** TOTP is still on (the account was kept): the second step follows. */
  secondFactorPending: boolean;
  /** The address was not verified before this answer. */
  newlyVerified: boolean;
}

/**
 * The one-time choice about an unverified account that already had credentials when its address's
 * mailbox holder signed in by magic link. Someone may have signed up with another person's address
 * and waited (pre-account hijacking): "reset" ends everything granted before; "keep" is for the
 * owner who set the account up and never confirmed the address.
 */
export class AccountClaimService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly sessions: SessionService,
    private readonly totp: TotpService,
    private readonly clock: Clock,
  ) {}

  /**
   * Applies the answer of the pending session behind the cookie, once: the session is ended in the
   * answer's own transaction by a conditional DELETE, so a second answer (or a concurrent one)
   * finds nothing and changes nothing. Undefined when no claim waits behind the cookie.
   *
   * A change of address asked for before (by whoever held the account) would move the account to
   * another mailbox once its link is used: "reset" voids it with every other grant; "keep" voids it
   * when the mailbox holder says they did not ask for it (`emailChange` "withdraw").
   */
  async decide(cookieValue: string, decision: ClaimDecision, emailChange: ClaimEmailChangeChoice = 'keep'): Promise<ClaimOutcome | undefined> {
    const pending = await this.sessions.findPendingClaim(cookieValue);
    if (pending === undefined) return undefined;
    const userId = pending.user.id;
    const tokenHash = sha256(cookieValue);
    const now = this.clock.now().toISOString();

    if (decision === 'keep') {
      const newlyVerified = await this.db.transaction().execute(async (trx) => {
        if ((await endPendingClaim(trx, tokenHash, now)) === undefined) return undefined;
        if (emailChange === 'withdraw') await cancelPendingChanges(trx, userId);
        return markEmailVerified(trx, userId, now);
      });
      if (newlyVerified === undefined) return undefined;
      const user = await findUserById(this.db, userId);
      if (user === undefined) return undefined;
      return { user, secondFactorPending: await this.totp.isEnabled(userId), newlyVerified };
    }

    try {
      // Every session (the pending one included), every JWT and every unused sign-in link go in
      // the same transaction as the password, passkeys, TOTP and access tokens.
      await this.sessions.revokeEverythingElse(userId, null, async (trx) => {
        if ((await endPendingClaim(trx, tokenHash, now)) === undefined) throw new ClaimAlreadyAnswered();
        await resetAccountCredentials(trx, userId, now);
      });
    } catch (error) {
      if (error instanceof ClaimAlreadyAnswered) return undefined;
      throw error;
    }
    const user = await findUserById(this.db, userId);
    return user === undefined ? undefined : { user, secondFactorPending: false, newlyVerified: pending.user.email_verified_at === null };
  }
}
