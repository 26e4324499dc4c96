/** Error codes of the partner connection checks. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const PARTNER_ERRORS = {
  /** Too many draft tests (POST …/partner/test) by one user; the answer carries Retry-After. */
  TEST_RATE_LIMITED: 'partner_test_rate_limited',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    partner: typeof PARTNER_ERRORS;
  }
}
