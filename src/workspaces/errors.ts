/** Error codes of workspaces and their members. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const WORKSPACE_ERRORS = {
  WORKSPACE_NOT_FOUND: 'workspace_not_found',
  MEMBER_NOT_FOUND: 'member_not_found',
  INSUFFICIENT_ROLE: 'insufficient_role',
  LAST_OWNER: 'last_owner',
  PERSONAL_WORKSPACE: 'personal_workspace',
  TOO_MANY_WORKSPACES: 'too_many_workspaces',
} as const;
