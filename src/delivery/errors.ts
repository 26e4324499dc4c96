/** Error codes of the public path (delivery). Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const DELIVERY_ERRORS = {
  INVALID_PUBLIC_KEY: 'invalid_public_key',
  TOO_MANY_STREAMS: 'too_many_streams',
  /** A rotation while the key the last one replaced still answers: it would stop at once, and pages with it. */
  PREVIOUS_KEY_STILL_ANSWERING: 'previous_key_still_answering',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    delivery: typeof DELIVERY_ERRORS;
  }
}
