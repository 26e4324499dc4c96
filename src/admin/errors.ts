/**
 * Error codes of instance administration (the admin API and the CLI's users:promote/demote).
 * Values are the wire's `code`. No imports: the dashboard imports this list too.
 */
export const ADMIN_ERRORS = {
  INSTANCE_ADMIN_REQUIRED: 'instance_admin_required',
  CANNOT_DISABLE_SELF: 'cannot_disable_self',
  LAST_ADMINISTRATOR: 'last_administrator',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    admin: typeof ADMIN_ERRORS;
  }
}
