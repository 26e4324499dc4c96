/**
 * The workspace contract's plain values: the roles, highest first, and what each may do. No
 * imports, so the dashboard can take these values (to show or hide a button) and nothing else.
 */
export const WORKSPACE_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/** Everything a member may be allowed to do in a workspace; the routes and services ask by these names. */
export const WORKSPACE_ACTIONS = [
  'workspace.read',
  'workspace.update',
  'workspace.delete',
  'site.read',
  'site.create',
  'site.update',
  'site.delete',
  'public_key.rotate_under_review',
  'partner.read',
  'partner.check',
  'member.read',
  'member.manage',
  'invitation.manage',
  'audit.read',
  'webhook.manage',
  'owner.grant',
  'review.manage',
  'change_request.open',
  'change_request.review',
] as const;
export type WorkspaceAction = (typeof WORKSPACE_ACTIONS)[number];

const EVERYONE: readonly WorkspaceRole[] = ['owner', 'admin', 'editor', 'viewer'];
const EDITORS: readonly WorkspaceRole[] = ['owner', 'admin', 'editor'];
const ADMINS: readonly WorkspaceRole[] = ['owner', 'admin'];
const OWNERS: readonly WorkspaceRole[] = ['owner'];

/**
 * The permission table: which roles may take each action. A viewer reads sites and members; an
 * editor also creates and updates sites and runs partner checks; an admin also deletes sites,
 * manages members below owner, invitations and webhooks, sets the review policy, approves
 * change requests and reads the audit log; an owner also renames or
 * deletes the workspace and makes (or unmakes) owners.
 */
export const PERMISSIONS: Readonly<Record<WorkspaceAction, readonly WorkspaceRole[]>> = {
  'workspace.read': EVERYONE,
  'workspace.update': OWNERS,
  'workspace.delete': OWNERS,
  'site.read': EVERYONE,
  'site.create': EDITORS,
  'site.update': EDITORS,
  'site.delete': ADMINS,
  // Rotating a site's public key while the workspace requires review (editors rotate otherwise, as
  // they update): a rotation cannot be proposed and reviewed, and it moves every page that embeds the site.
  'public_key.rotate_under_review': ADMINS,
  'partner.read': EVERYONE,
  'partner.check': EDITORS,
  'member.read': EVERYONE,
  'member.manage': ADMINS,
  'invitation.manage': ADMINS,
  'audit.read': ADMINS,
  'webhook.manage': ADMINS,
  'owner.grant': OWNERS,
  // The review policy: whether changes need review and how many approvals.
  'review.manage': ADMINS,
  // Proposing a change, and commenting on one.
  'change_request.open': EDITORS,
  // Approving, declining and applying someone else's change request.
  'change_request.review': ADMINS,
};
