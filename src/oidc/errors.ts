/**
 * Error codes of single sign-on (OpenID Connect): the pages of a sign-in at a provider, and the
 * identities linked to an account. Values are the wire's `code` (and the pages' reference). No
 * imports: the dashboard imports this list too.
 */
export const OIDC_ERRORS = {
  OIDC_PROVIDER_NOT_FOUND: 'oidc_provider_not_found',
  OIDC_PROVIDER_UNREACHABLE: 'oidc_provider_unreachable',
  OIDC_STATE_INVALID: 'oidc_state_invalid',
  OIDC_CANCELLED: 'oidc_cancelled',
  OIDC_REFUSED: 'oidc_refused',
  OIDC_RESPONSE_INVALID: 'oidc_response_invalid',
  OIDC_EMAIL_NOT_VERIFIED: 'oidc_email_not_verified',
  OIDC_IDENTITY_CONFLICT: 'oidc_identity_conflict',
  IDENTITY_NOT_FOUND: 'identity_not_found',
  LAST_SIGN_IN_METHOD: 'last_sign_in_method',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    oidc: typeof OIDC_ERRORS;
  }
}
