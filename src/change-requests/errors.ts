/** Error codes of change requests and review. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const CHANGE_REQUEST_ERRORS = {
  CHANGE_REQUEST_NOT_FOUND: 'change_request_not_found',
  CHANGE_REQUEST_CONFLICT: 'change_request_conflict',
  APPROVALS_MISSING: 'approvals_missing',
  CHANGE_REQUEST_NOT_OPEN: 'change_request_not_open',
  SELF_APPROVAL: 'self_approval',
  NOT_THE_AUTHOR: 'not_the_author',
  SITE_IN_TRASH: 'site_in_trash',
  NOTHING_TO_CHANGE: 'nothing_to_change',
  AUTHOR_NOT_ALLOWED: 'author_not_allowed',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    changeRequests: typeof CHANGE_REQUEST_ERRORS;
  }
}
