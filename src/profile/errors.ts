/** Error codes of the profile (name and e-mail address). Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const PROFILE_ERRORS = {
  EMAIL_UNCHANGED: 'email_unchanged',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    profile: typeof PROFILE_ERRORS;
  }
}
