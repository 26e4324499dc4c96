import type { Kysely } from 'kysely';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { Database } from '../db/schema.js';
import { hasOtherCredentials, markEmailVerified } from '../email-verification/queries.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { findUserByEmail, findUserById, type UserRow } from '../users/queries.js';
import { hasPassword, isEmailVerified, type UserService } from '../users/service.js';
import { hasPendingInvitationFor } from '../workspaces/invitation-queries.js';
import { OIDC_ERRORS } from './errors.js';
import { findIdentityBySubject, findIdentityOf, type IdentityRow, insertIdentity, touchIdentity } from './queries.js';
import type { VerifiedIdentity } from './contract.js';

/** How a sign-in through a provider ends. */
export type SingleSignOnOutcome =
  | {
      kind: 'signed_in';
      user: UserRow;
      identity: IdentityRow;
      /** The identity was linked by this sign-in (to an existing account, or a new one). */
      linked: boolean;
      /** The account was made by this sign-in. */
      created: boolean;
      /** The provider's word was the first proof of the account's address. */
      newlyVerified: boolean;
    }
  /** An unverified account with credentials holds the address: its mailbox holder chooses first (the claim step). */
  | { kind: 'claim_required'; user: UserRow }
  /** The account is disabled: nothing was linked, verified or touched. */
  | { kind: 'account_disabled'; user: UserRow };

/** Another request linked or created the same thing between our read and our write. */
class LostRace extends Error {}

export const emailNotVerifiedAtProvider = () =>
  new AppError(403, OIDC_ERRORS.OIDC_EMAIL_NOT_VERIFIED, 'Your sign-in provider has not confirmed your e-mail address, so it cannot sign in to or create a Siteward account.');
export const identityConflict = () =>
  new AppError(409, OIDC_ERRORS.OIDC_IDENTITY_CONFLICT, 'This account at the provider belongs to another Siteward account, or yours is linked to another account at this provider.');
const signupClosed = () => new AppError(403, AUTH_ERRORS.SIGNUP_CLOSED, 'Sign-up is closed on this server and no invitation waits for this address; ask an administrator.');

/**
 * Which account a sign-in through a provider opens. The identity (provider and "sub") decides when
 * it is linked. Otherwise the address decides, but only when the provider vouches for it
 * (`email_verified: true`): an address anyone could type at a provider must not open the account
 * that holds it. An unverified Siteward account with credentials may be a squatter's (pre-account
 * hijacking), so the mailbox holder answers the claim step before the identity is linked.
 */
export class SingleSignOn {
  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      users: UserService;
      signupOpen: boolean;
    },
  ) {}

  async signIn(provider: string, identity: VerifiedIdentity): Promise<SingleSignOnOutcome> {
    try {
      return await this.#signIn(provider, identity);
    } catch (error) {
      if (!(error instanceof LostRace)) throw error;
    }
    // A parallel sign-in of the same person linked or created first: what it made now decides.
    try {
      return await this.#signIn(provider, identity);
    } catch (error) {
      if (error instanceof LostRace) throw identityConflict();
      throw error;
    }
  }

  /**
   * Links the identity to the signed-in user who asked for it. The address plays no part: the person
   * proved both accounts. Refused when the identity is another account's, or the user already has
   * another identity at the provider.
   */
  async link(userId: string, provider: string, identity: VerifiedIdentity): Promise<{ identity: IdentityRow; alreadyLinked: boolean }> {
    const { db } = this.deps;
    const linked = await findIdentityBySubject(db, provider, identity.subject);
    if (linked !== undefined) {
      if (linked.user_id !== userId) throw identityConflict();
      await touchIdentity(db, linked.id, identity.email, this.#now());
      return { identity: linked, alreadyLinked: true };
    }
    const row = this.#identityRow(userId, provider, identity);
    if (!(await insertIdentity(db, row))) throw identityConflict();
    return { identity: row, alreadyLinked: false };
  }

  /**
   * Links the identity whose sign-in waited for the claim step, now answered: the account's address
   * is verified. Undefined when it cannot be linked any more (linked elsewhere meanwhile).
   */
  async linkAfterClaim(userId: string, provider: string, identity: VerifiedIdentity): Promise<IdentityRow | undefined> {
    const row = this.#identityRow(userId, provider, identity);
    return (await insertIdentity(this.deps.db, row)) ? row : undefined;
  }

  async #signIn(provider: string, identity: VerifiedIdentity): Promise<SingleSignOnOutcome> {
    const { db } = this.deps;
    const linked = await findIdentityBySubject(db, provider, identity.subject);
    if (linked !== undefined) {
      const user = await findUserById(db, linked.user_id);
      if (user === undefined) throw new LostRace();
      if (user.disabled_at !== null) return { kind: 'account_disabled', user };
      await touchIdentity(db, linked.id, identity.email, this.#now());
      return { kind: 'signed_in', user, identity: linked, linked: false, created: false, newlyVerified: false };
    }
    // From here the address decides, and only an address the provider vouches for may.
    if (identity.email === null || !identity.emailVerified) throw emailNotVerifiedAtProvider();
    const user = await findUserByEmail(db, identity.email);
    if (user !== undefined) return this.#linkByAddress(user, provider, identity);
    return this.#createAccount(provider, { ...identity, email: identity.email });
  }

  async #linkByAddress(user: UserRow, provider: string, identity: VerifiedIdentity): Promise<SingleSignOnOutcome> {
    const { db } = this.deps;
    if (user.disabled_at !== null) return { kind: 'account_disabled', user };
    // Another person at the same provider with the account's address (a reused or reassigned
    // address) does not replace the identity the owner linked.
    if ((await findIdentityOf(db, user.id, provider)) !== undefined) throw identityConflict();
    let signedIn = user;
    let newlyVerified = false;
    if (!isEmailVerified(user)) {
      if (hasPassword(user) || (await hasOtherCredentials(db, user.id))) return { kind: 'claim_required', user };
      const now = this.#now();
      newlyVerified = await markEmailVerified(db, user.id, now);
      signedIn = { ...user, email_verified_at: now, updated_at: now };
    }
    const row = this.#identityRow(user.id, provider, identity);
    if (!(await insertIdentity(db, row))) throw new LostRace();
    return { kind: 'signed_in', user: signedIn, identity: row, linked: true, created: false, newlyVerified };
  }

  async #createAccount(provider: string, identity: VerifiedIdentity & { email: string }): Promise<SingleSignOnOutcome> {
    const { db, users, signupOpen } = this.deps;
    if (!signupOpen && !(await hasPendingInvitationFor(db, identity.email, this.#now()))) throw signupClosed();
    let row: IdentityRow | undefined;
    const user = await users.createWithoutPassword({ email: identity.email, name: identity.name }, async (trx, created) => {
      row = this.#identityRow(created.id, provider, identity);
      if (!(await insertIdentity(trx, row))) throw new LostRace();
    });
    if (user === undefined || row === undefined) throw new LostRace();
    return { kind: 'signed_in', user, identity: row, linked: true, created: true, newlyVerified: false };
  }

  #identityRow(userId: string, provider: string, identity: VerifiedIdentity): IdentityRow {
    const now = this.deps.clock.now();
    return { id: newId(now), user_id: userId, provider, subject: identity.subject, email: identity.email, linked_at: now.toISOString(), last_used_at: now.toISOString() };
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }
}
