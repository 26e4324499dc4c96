/** Error codes of paged lists. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const PAGINATION_ERRORS = {
  INVALID_CURSOR: 'invalid_cursor',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    pagination: typeof PAGINATION_ERRORS;
  }
}
