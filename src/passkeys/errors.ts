/** Error codes of passkeys: signing in with one, adding and managing them. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const PASSKEY_ERRORS = {
  PASSKEY_CHALLENGE_INVALID: 'passkey_challenge_invalid',
  PASSKEY_VERIFICATION_FAILED: 'passkey_verification_failed',
  PASSKEY_UNKNOWN_CREDENTIAL: 'passkey_unknown_credential',
  PASSKEY_COUNTER_NOT_INCREASED: 'passkey_counter_not_increased',
  PASSKEY_ALREADY_REGISTERED: 'passkey_already_registered',
  PASSKEY_NOT_FOUND: 'passkey_not_found',
  TOO_MANY_PASSKEYS: 'too_many_passkeys',
  NO_PASSKEYS: 'no_passkeys',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    passkeys: typeof PASSKEY_ERRORS;
  }
}
