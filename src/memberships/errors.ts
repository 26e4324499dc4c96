/** Error codes of workspaces, their members and invitations. Values are the wire's `code`. No imports: the dashboard imports this list too. Here, below workspaces/, because the permission checks every feature makes raise them. */
export const WORKSPACE_ERRORS = {
  WORKSPACE_NOT_FOUND: 'workspace_not_found',
  MEMBER_NOT_FOUND: 'member_not_found',
  INSUFFICIENT_ROLE: 'insufficient_role',
  LAST_OWNER: 'last_owner',
  PERSONAL_WORKSPACE: 'personal_workspace',
  TOO_MANY_WORKSPACES: 'too_many_workspaces',
  ALREADY_MEMBER: 'already_member',
  INVITATION_NOT_FOUND: 'invitation_not_found',
  INVITATION_INVALID: 'invitation_invalid',
  INVITATION_EMAIL_MISMATCH: 'invitation_email_mismatch',
  TWO_FACTOR_REQUIRED: 'two_factor_required',
  TWO_FACTOR_SETUP_REQUIRED: 'two_factor_setup_required',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    workspaces: typeof WORKSPACE_ERRORS;
  }
}
