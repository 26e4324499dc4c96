/** Error codes of paged lists. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const PAGINATION_ERRORS = {
  INVALID_CURSOR: 'invalid_cursor',
} as const;
