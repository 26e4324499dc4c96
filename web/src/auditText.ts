// The audit log in words for people: one sentence per event, and the filter's names for actions.
import { AUDIT_ACTIONS, type AuditAction } from '@server/audit/contract';
import type { AuditEvent } from './api/types';
import { CHANGE_REQUEST_ERRORS } from '@server/change-requests/errors';
import { WORKSPACE_ERRORS } from '@server/memberships/errors';
import { ROLE_LABELS, type WorkspaceRole } from './workspaceAccess';

export type { AuditEvent };

/**
 * Why a scheduled change did not go live when it was due (its `failure.code`, the audit event's
 * `reason`), as the end of a sentence; undefined for a code this dashboard does not know.
 */
export function scheduledFailureReason(code: string): string | undefined {
  switch (code) {
    case CHANGE_REQUEST_ERRORS.SITE_IN_TRASH:
      return 'the site was in the trash';
    case CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT:
      return 'the site had changed at the same settings';
    case CHANGE_REQUEST_ERRORS.APPROVALS_MISSING:
      return 'it no longer had the approvals the workspace requires (an approver was demoted, removed or disabled, or the policy changed)';
    case CHANGE_REQUEST_ERRORS.AUTHOR_NOT_ALLOWED:
      return 'its author was no longer allowed to apply it (removed, demoted to viewer or disabled)';
    case WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED:
      return 'the workspace requires two-factor authentication, which its author had not set up';
    default:
      return undefined;
  }
}

export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'workspace.created': 'Workspace created',
  'workspace.updated': 'Workspace renamed',
  'member.invited': 'Invitation sent',
  'invitation.revoked': 'Invitation withdrawn',
  'member.joined': 'Member joined',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'site.created': 'Site created',
  'site.updated': 'Site changed',
  'site.deleted': 'Site deleted',
  'site.restored': 'Site restored',
  'site.public_key_rotated': 'Site key rotated',
  'partner.status_changed': 'Partner connection changed',
  'webhook.created': 'Webhook created',
  'webhook.updated': 'Webhook changed',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'webhook.disabled': 'Webhook turned off',
  'webhook.deleted': 'Webhook deleted',
  'change_request.opened': 'Change proposed',
  'change_request.approved': 'Change approved',
  'change_request.declined': 'Change declined',
  'change_request.applied': 'Change applied',
  'change_request.failed': 'Scheduled change failed',
};

export const AUDIT_ACTION_OPTIONS = AUDIT_ACTIONS.map((action) => ({ value: action, label: AUDIT_ACTION_LABELS[action] }));

function isRole(value: unknown): value is WorkspaceRole {
  return typeof value === 'string' && value in ROLE_LABELS;
}

function role(value: unknown): string {
  return isRole(value) ? ROLE_LABELS[value].toLowerCase() : 'another role';
}

/** `{before, after}` from an event's details, when it has that shape. */
function change(value: unknown): { before: unknown; after: unknown } | undefined {
  return typeof value === 'object' && value !== null && 'before' in value && 'after' in value ? { before: value.before, after: value.after } : undefined;
}

/** Who acted, as the log (and a site's history) names them: their name, else their address; the command line has neither. */
export function actorName(event: Pick<AuditEvent, 'actor' | 'via'>): string {
  if (event.actor === null) return event.via.type === 'cli' ? 'An administrator (command line)' : 'Siteward';
  return event.actor.name.trim() === '' ? event.actor.email : event.actor.name;
}

/** What happened, after the actor's name: "changed grace@example.com from editor to admin". */
export function auditSentence(event: AuditEvent): string {
  const target = event.target.name;
  const details = event.details;
  switch (event.action) {
    case 'workspace.created':
      return `created the workspace ${target}`;
    case 'workspace.updated': {
      const name = change(details.name);
      if (name !== undefined) return `renamed the workspace from ${String(name.before)} to ${String(name.after)}`;
      const twoFactor = change(details.require_two_factor);
      if (twoFactor !== undefined) return twoFactor.after === true ? `required two-factor authentication of every member of ${target}` : `stopped requiring two-factor authentication in ${target}`;
      return `changed the workspace ${target}`;
    }
    case 'member.invited':
      return `invited ${target} as ${role(details.role)}`;
    case 'invitation.revoked':
      // Withdrawn with its sender's right to invite (they left, were removed or lowered), by the change that ended it.
      return typeof details.withdrawn_because === 'string' ? `withdrew the invitation to ${target}, as its sender can no longer invite` : `withdrew the invitation to ${target}`;
    case 'member.joined':
      if (event.actor !== null && event.actor.id === event.target.id) return `joined as ${role(details.role)}${details.invitation_id === undefined ? '' : ', by invitation'}`;
      return `added ${target} as ${role(details.role)}`;
    case 'member.role_changed': {
      const roles = change(details.role);
      return roles === undefined ? `changed the role of ${target}` : `changed ${target} from ${role(roles.before)} to ${role(roles.after)}`;
    }
    case 'member.removed':
      return `removed ${target} (${role(details.role)})`;
    case 'member.left':
      return 'left the workspace';
    case 'site.created':
      return `created the site ${target}`;
    case 'site.updated':
      return `changed the site ${target}`;
    case 'site.deleted':
      return `moved the site ${target} to the trash`;
    case 'site.restored':
      if (details.from === 'trash') return `brought the site ${target} back from the trash`;
      return typeof details.restored_from === 'number' ? `restored version ${details.restored_from} of the site ${target}` : `restored the site ${target}`;
    case 'site.public_key_rotated':
      return `rotated the public key of the site ${target} (the old key works for 24 hours)`;
    case 'partner.status_changed': {
      const status = change(details.status);
      if (status?.after === 'error') return `saw the partner connection of ${target} stop working`;
      if (status?.after === 'ok') return `saw the partner connection of ${target} work again`;
      return `saw the partner connection of ${target} change`;
    }
    case 'webhook.created':
      return `created a webhook to ${target}`;
    case 'webhook.updated':
      return `changed the webhook to ${target}`;
    case 'webhook.secret_rotated':
      return `rotated the signing secret of the webhook to ${target}`;
    case 'webhook.disabled':
      return `turned off the webhook to ${target} after 3 days of failed deliveries`;
    case 'webhook.deleted':
      return `deleted the webhook to ${target}`;
    case 'change_request.opened':
      return `proposed the change “${target}”`;
    case 'change_request.approved':
      return `approved the change “${target}”`;
    case 'change_request.declined':
      return `declined the change “${target}”`;
    case 'change_request.applied':
      return typeof details.version === 'number' ? `applied the change “${target}”, making version ${details.version}` : `applied the change “${target}”`;
    case 'change_request.failed': {
      const reason = typeof details.reason === 'string' ? scheduledFailureReason(details.reason) : undefined;
      return reason === undefined ? `could not apply the scheduled change “${target}”` : `could not apply the scheduled change “${target}”: ${reason}`;
    }
    default:
      return `${event.action} on ${target}`;
  }
}

/** How the change was made, when it was not the dashboard: "with the access token “deploy bot”". */
export function viaText(event: Pick<AuditEvent, 'via'>): string | undefined {
  switch (event.via.type) {
    case 'access_token':
      return `with the access token “${event.via.access_token?.name ?? ''}”`;
    case 'jwt':
      return 'through the API';
    case 'cli':
    case 'system':
    case 'session':
      return undefined;
  }
}
