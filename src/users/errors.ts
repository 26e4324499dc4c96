/** Error codes of accounts: creating one and changing its password. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const USER_ERRORS = {
  EMAIL_TAKEN: 'email_taken',
  USER_NOT_FOUND: 'user_not_found',
  CURRENT_PASSWORD_INVALID: 'current_password_invalid',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    users: typeof USER_ERRORS;
  }
}
