/**
 * Query parameters whose values are credentials, never logged: the tokens of mailed links (magic
 * link, address verification, invitation, change of address: `token`), a change request's preview
 * token (`preview`), the OpenID Connect callback's `state` and `code` (with the provider's
 * `session_state`, and tokens some providers put in a query), and any other name a credential
 * goes by. A parameter nested in another's value, percent-encoded (`next=%2Finvitations%2Faccept
 * %3Ftoken%3D…`), is found as well: its name follows "%3F" or "%26" and its value runs to the
 * next "%26".
 */
const SECRET_QUERY_PARAMETERS =
  /((?:[?&;]|%3F|%26)(?:token|access_token|refresh_token|id_token|code|state|session_state|preview|secret|client_secret|password|otp|recovery_code|code_verifier|nonce|signature|sig|api_key|apikey|key|jwt|session|cookie|auth|authorization)(?:=|%3D))(?:(?!%26)[^&#;])*/gi;

export function redactUrl(url: string): string {
  // A credential needs "name=" (or "%3D"): most URLs have neither, and skip the regular expression every request line ran.
  return url.includes('=') || url.includes('%3') ? url.replace(SECRET_QUERY_PARAMETERS, '$1[REDACTED]') : url;
}

/** Paths whose values are secrets wherever they appear in a logged object. */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  '*.*.access_token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  'cookie',
  'otp',
  '*.otp',
  'secret',
  '*.secret',
  'recovery_codes',
  '*.recovery_codes',
];
