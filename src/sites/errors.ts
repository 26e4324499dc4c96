/** Error codes of sites. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const SITE_ERRORS = {
  SITE_NOT_FOUND: 'site_not_found',
  PRECONDITION_FAILED: 'precondition_failed',
  FIELD_TOO_LARGE: 'field_too_large',
  VERSION_NOT_FOUND: 'version_not_found',
  /** A direct change in a workspace that requires review, by someone who may only propose one. */
  REVIEW_REQUIRED: 'review_required',
  /** A member holds as many site event streams open on this server as one may. */
  TOO_MANY_SITE_STREAMS: 'too_many_site_streams',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    sites: typeof SITE_ERRORS;
  }
}
