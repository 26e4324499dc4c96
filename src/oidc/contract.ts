// What a sign-in at a provider produces and how it fails, apart from the relying party itself
// (relying-party.ts), which loads openid-client and is imported only once a provider is used.
// No imports.

/**
 * What can go wrong in a sign-in at a provider, as a person needs to hear it: the provider did not
 * answer (`unreachable`), the person said no there (`cancelled`), the provider refused (`refused`:
 * a code already used or made for another client), or its answer failed our checks (`invalid`).
 */
export type OidcFailure = 'unreachable' | 'cancelled' | 'refused' | 'invalid';

/** A failed exchange with a provider. `reason` is a short code for the log; never shown to anyone. */
export class OidcExchangeError extends Error {
  override name = 'OidcExchangeError';

  constructor(
    readonly failure: OidcFailure,
    readonly reason: string,
  ) {
    super(`${failure}: ${reason}`);
  }
}

/** The person the provider vouched for, after every check of its answer. */
export interface VerifiedIdentity {
  /** The provider's stable id for the person ("sub"); unique per issuer. */
  subject: string;
  /** Normalised; null when the provider gave none or one that is not an address. */
  email: string | null;
  /** Only the provider's own `email_verified: true` counts. */
  emailVerified: boolean;
  name: string;
}

/** The values bound to one authorization request, checked against the provider's answer. */
export interface AuthorizationChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}
