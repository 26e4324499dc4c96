import { AppError } from '../errors.js';
import { PERMISSIONS, WORKSPACE_ROLES, type WorkspaceAction, type WorkspaceRole } from './contract.js';
import { WORKSPACE_ERRORS } from './errors.js';

export { PERMISSIONS, WORKSPACE_ACTIONS, WORKSPACE_ROLES, type WorkspaceAction, type WorkspaceRole } from './contract.js';

/** Whether a member with `role` may take `action`. */
export function can(role: WorkspaceRole, action: WorkspaceAction): boolean {
  return PERMISSIONS[action].includes(role);
}

export function isWorkspaceRole(value: string): value is WorkspaceRole {
  return (WORKSPACE_ROLES as readonly string[]).includes(value);
}

/**
 * The rule every workspace and site route applies: someone who is not a member learns nothing
 * (404, the same as for an id that does not exist: `notFound`); a member whose role is too low is
 * told so (403 insufficient_role), since they can see the thing anyway.
 */
export function assertCan(role: WorkspaceRole | undefined, action: WorkspaceAction, notFound: () => AppError): WorkspaceRole {
  if (role === undefined) throw notFound();
  if (!can(role, action)) {
    throw new AppError(403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE, `Your role in this workspace (${role}) does not allow this; it needs ${PERMISSIONS[action].join(' or ')}.`);
  }
  return role;
}

/**
 * What changing a member's role (or removing them: `to` null) asks of the one doing it: making
 * or unmaking an owner is the owners' own; every other change is managing members.
 */
export function memberChangeAction(from: WorkspaceRole, to: WorkspaceRole | null): WorkspaceAction {
  return from === 'owner' || to === 'owner' ? 'owner.grant' : 'member.manage';
}

/**
 * The rule every workspace and site route applies after membership: a workspace that requires
 * two-factor authentication of its members is closed to a member who has neither TOTP nor a
 * passkey (`missingIn`, the principal's list of such workspaces), whatever their credential. 403,
 * not 404: they are a member, and are told what to do.
 */
export function assertTwoFactorMet(missingIn: ReadonlySet<string>, workspaceId: string): void {
  if (!missingIn.has(workspaceId)) return;
  throw new AppError(
    403,
    WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED,
    'This workspace requires two-factor authentication of its members: turn on an authenticator app or add a passkey under Settings > Security, then try again.',
  );
}

/**
 * Whether giving `to` to someone who had `from` (undefined: an invitation) grants administration:
 * admin or owner, higher than before. An admin invites and manages members and webhooks, so such a
 * grant outlives the granting credential (a thief's admin accomplice stays after the owner signs
 * out everywhere): it needs a recent sign-in, like a new access token.
 */
export function grantsAdministration(from: WorkspaceRole | undefined, to: WorkspaceRole): boolean {
  if (to !== 'admin' && to !== 'owner') return false;
  return from === undefined || WORKSPACE_ROLES.indexOf(to) < WORKSPACE_ROLES.indexOf(from);
}

export function workspaceNotFound(): AppError {
  // A workspace one is not a member of is "not found" too: its existence is not revealed.
  return new AppError(404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND, 'No workspace with this id.');
}
