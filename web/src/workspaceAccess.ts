// What the dashboard offers a person in a workspace, read from the server's permission table
// (@server/memberships/contract), so a button is shown exactly when the server would allow it.
import { PERMISSIONS, WORKSPACE_ROLES, type WorkspaceAction, type WorkspaceRole } from '@server/memberships/contract';

export type { WorkspaceRole };

export const ROLE_LABELS: Record<WorkspaceRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  editor: 'Editor',
  viewer: 'Viewer',
};

/** Whether `role` may take `action`; no role (not a member, or not known yet) may do nothing. */
export function can(role: WorkspaceRole | undefined, action: WorkspaceAction): boolean {
  return role !== undefined && PERMISSIONS[action].includes(role);
}

/** What the site editor lets a member do with a site of their workspace. */
export interface SiteAccess {
  edit: boolean;
  delete: boolean;
  /** Run partner connection checks and tests. */
  check: boolean;
}

export function siteAccess(role: WorkspaceRole | undefined): SiteAccess {
  return { edit: can(role, 'site.update'), delete: can(role, 'site.delete'), check: can(role, 'partner.check') };
}

/**
 * The roles a member's role select offers, the current one included; empty when the caller may
 * not change it (then the role is shown as text). Making, unmaking or being an owner is for
 * owners (owner.grant); other changes are for member managers (member.manage). One's own role is
 * not changed from the list: an owner stepping down does so deliberately, after making another.
 */
export function rolesOffered(callerRole: WorkspaceRole | undefined, memberRole: WorkspaceRole, isSelf: boolean): WorkspaceRole[] {
  if (isSelf || !can(callerRole, 'member.manage')) return [];
  if (memberRole === 'owner' && !can(callerRole, 'owner.grant')) return [];
  return WORKSPACE_ROLES.filter((role) => role === memberRole || role !== 'owner' || can(callerRole, 'owner.grant'));
}

/** Whether the caller may remove this member (leaving oneself is a separate action, always offered). */
export function canRemoveMember(callerRole: WorkspaceRole | undefined, memberRole: WorkspaceRole, isSelf: boolean): boolean {
  if (isSelf) return false;
  return can(callerRole, memberRole === 'owner' ? 'owner.grant' : 'member.manage');
}

/** "a viewer", "an admin": the role as a sentence names it. */
export function roleWithArticle(role: WorkspaceRole): string {
  const word = ROLE_LABELS[role].toLowerCase();
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

/** The workspace a new site goes to: the one on screen if the person may create sites there, else their personal one. */
export function defaultWorkspaceForNewSite<W extends { id: string; role: WorkspaceRole; personal: boolean }>(workspaces: readonly W[], selectedId: string | null): W | undefined {
  const creatable = workspaces.filter((workspace) => can(workspace.role, 'site.create'));
  return creatable.find((workspace) => workspace.id === selectedId) ?? creatable.find((workspace) => workspace.personal) ?? creatable[0];
}
