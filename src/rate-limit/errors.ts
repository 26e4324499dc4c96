/** Error codes of the rate limits. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const RATE_LIMIT_ERRORS = {
  RATE_LIMITED: 'rate_limited',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    rateLimit: typeof RATE_LIMIT_ERRORS;
  }
}
