/** Error codes of webhooks. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const WEBHOOK_ERRORS = {
  WEBHOOK_NOT_FOUND: 'webhook_not_found',
  DELIVERY_NOT_FOUND: 'delivery_not_found',
  WEBHOOK_URL_REFUSED: 'webhook_url_refused',
  WEBHOOK_DISABLED: 'webhook_disabled',
  TOO_MANY_WEBHOOKS: 'too_many_webhooks',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    webhooks: typeof WEBHOOK_ERRORS;
  }
}
