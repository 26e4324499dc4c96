/** Error codes of the signed-in account's own settings. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const ACCOUNT_ERRORS = {
  PASSWORD_INVALID: 'password_invalid',
  OWNERSHIP_TRANSFER_REQUIRED: 'ownership_transfer_required',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    account: typeof ACCOUNT_ERRORS;
  }
}
