/** Error codes of the public path (delivery). Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const DELIVERY_ERRORS = {
  INVALID_PUBLIC_KEY: 'invalid_public_key',
  TOO_MANY_STREAMS: 'too_many_streams',
} as const;
