/** The audit log's vocabulary and limits. No imports: the dashboard's filters read them from here. */

/** What an audit event says happened. */
export const AUDIT_ACTIONS = [
  'workspace.created',
  'workspace.updated',
  'member.invited',
  'invitation.revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'site.created',
  'site.updated',
  'site.deleted',
  'site.restored',
  'site.public_key_rotated',
  'partner.status_changed',
  'webhook.created',
  'webhook.updated',
  'webhook.secret_rotated',
  'webhook.disabled',
  'webhook.deleted',
  'change_request.opened',
  'change_request.approved',
  'change_request.declined',
  'change_request.applied',
  'change_request.failed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The credential a change came with: the dashboard's session, a JWT, a named access token, the command line, or Siteward itself. */
export const AUDIT_VIA_TYPES = ['session', 'jwt', 'access_token', 'cli', 'system'] as const;
export type AuditViaType = (typeof AUDIT_VIA_TYPES)[number];

export const AUDIT_LOG_DEFAULT_LIMIT = 50;
export const AUDIT_LOG_MAX_LIMIT = 200;
