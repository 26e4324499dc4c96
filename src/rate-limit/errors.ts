/** Error codes of the rate limits. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const RATE_LIMIT_ERRORS = {
  RATE_LIMITED: 'rate_limited',
} as const;
