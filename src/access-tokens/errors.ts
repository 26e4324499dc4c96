/**
 * Error codes of managing personal access tokens (what a token may not do is the guard's: auth/errors.ts).
 * Values are the wire's `code`. No imports: the dashboard imports this list too.
 */
export const ACCESS_TOKEN_ERRORS = {
  ACCESS_TOKEN_NOT_FOUND: 'access_token_not_found',
  TOO_MANY_ACCESS_TOKENS: 'too_many_access_tokens',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    accessTokens: typeof ACCESS_TOKEN_ERRORS;
  }
}
