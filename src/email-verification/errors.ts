/**
 * Error codes of e-mail verification and of the keep-or-reset claim that follows a magic link to
 * an unverified account (the guard's refusal while the claim waits is auth's `claim_required`). Values are the wire's `code`. No imports: the dashboard imports this list too.
 */
export const EMAIL_VERIFICATION_ERRORS = {
  EMAIL_NOT_VERIFIED: 'email_not_verified',
  EMAIL_ALREADY_VERIFIED: 'email_already_verified',
  VERIFICATION_TOKEN_INVALID: 'verification_token_invalid',
  CLAIM_NOT_PENDING: 'claim_not_pending',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    emailVerification: typeof EMAIL_VERIFICATION_ERRORS;
  }
}
