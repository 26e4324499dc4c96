/**
 * Error codes of authentication: credentials, sessions, the sign-in steps, their limits, and what
 * a credential may do.
 * Values are the wire's `code`. No imports: the dashboard imports this list too.
 */
export const AUTH_ERRORS = {
  UNAUTHENTICATED: 'unauthenticated',
  INVALID_TOKEN: 'invalid_token',
  WRONG_SCHEME: 'wrong_scheme',
  UNSUPPORTED_SCHEME: 'unsupported_scheme',
  INVALID_CREDENTIALS: 'invalid_credentials',
  SESSION_EXPIRED: 'session_expired',
  SESSION_NOT_FOUND: 'session_not_found',
  CLAIM_REQUIRED: 'claim_required',
  SECOND_FACTOR_REQUIRED: 'second_factor_required',
  SECOND_FACTOR_NOT_PENDING: 'second_factor_not_pending',
  SIGNUP_CLOSED: 'signup_closed',
  CROSS_SITE_REQUEST: 'cross_site_request',
  REAUTHENTICATION_REQUIRED: 'reauthentication_required',
  ACCESS_TOKEN_NOT_ALLOWED: 'access_token_not_allowed',
  INSUFFICIENT_SCOPE: 'insufficient_scope',
  ACCOUNT_DISABLED: 'account_disabled',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    auth: typeof AUTH_ERRORS;
  }
}
