/**
 * Error codes of the HTTP layer: requests refused before or beside any feature (bad framing, bad
 * bodies, no such route) and failures of the server itself. Values are the wire's `code`; they
 * never change once published. No imports: the dashboard imports this list too.
 */
export const HTTP_ERRORS = {
  VALIDATION_FAILED: 'validation_failed',
  BAD_REQUEST: 'bad_request',
  BAD_URL: 'bad_url',
  MALFORMED_REQUEST: 'malformed_request',
  INVALID_JSON: 'invalid_json',
  EMPTY_BODY: 'empty_body',
  BAD_CONTENT_LENGTH: 'bad_content_length',
  BODY_TOO_LARGE: 'body_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  URI_TOO_LONG: 'uri_too_long',
  REQUEST_TIMEOUT: 'request_timeout',
  HEADERS_TOO_LARGE: 'headers_too_large',
  EXPECTATION_FAILED: 'expectation_failed',
  ROUTE_NOT_FOUND: 'route_not_found',
  DATABASE_UNAVAILABLE: 'database_unavailable',
  INTERNAL_ERROR: 'internal_error',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    http: typeof HTTP_ERRORS;
  }
}
