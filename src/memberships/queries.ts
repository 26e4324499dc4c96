import type { Kysely, Selectable, Transaction } from 'kysely';
import { type DialectName, withRowLock } from '../db/connect.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database, WorkspaceMembersTable, WorkspacesTable } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { isWorkspaceRole, type WorkspaceRole } from './permissions.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;

/** A workspace as one of its members sees it: with their own role. */
export interface MemberWorkspaceRow extends WorkspaceRow {
  role: WorkspaceRole;
}

export interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role: WorkspaceRole;
  joined_at: string;
}

// Every query that answers a caller names the caller's membership in its WHERE: a workspace id
// alone never reaches a workspace they do not belong to.

function asRole(role: string): WorkspaceRole {
  // The column's CHECK constraint allows only these; anything else is a corrupt row, not a viewer.
  if (!isWorkspaceRole(role)) throw new Error(`unknown workspace role in the database: ${role}`);
  return role;
}

export const PERSONAL_WORKSPACE_NAME = 'Personal';

/** A new user's personal workspace, with them as its owner; in the transaction that creates the user. */
export async function insertPersonalWorkspace(trx: Transaction<Database>, userId: string, now: Date): Promise<WorkspaceRow> {
  const at = now.toISOString();
  const workspace: WorkspaceRow = { id: newId(now), name: PERSONAL_WORKSPACE_NAME, personal_user_id: userId, require_two_factor: 0, review_required: 0, review_approvals: 1, created_at: at, updated_at: at };
  await trx.insertInto('workspaces').values(workspace).execute();
  await trx.insertInto('workspace_members').values({ workspace_id: workspace.id, user_id: userId, role: 'owner', joined_at: at }).execute();
  return workspace;
}

/** A team workspace and its first member, its owner. */
export async function insertWorkspace(trx: Transaction<Database>, workspace: WorkspaceRow, ownerId: string): Promise<void> {
  await trx.insertInto('workspaces').values(workspace).execute();
  await trx.insertInto('workspace_members').values({ workspace_id: workspace.id, user_id: ownerId, role: 'owner', joined_at: workspace.created_at }).execute();
}

// Read by the guard for a principal it does not hold: prepared once (db/prepared-query.ts).
const membershipsOfUser = new PreparedQuery((db, p: { userId: string }) =>
  db.selectFrom('workspace_members').select(['workspace_id', 'role']).where('user_id', '=', p.userId),
);

/** The user's workspaces and their role in each. */
export async function findMemberships(db: Kysely<Database>, userId: string): Promise<Map<string, WorkspaceRole>> {
  const rows = await membershipsOfUser.execute(db, { userId });
  return new Map(rows.map((row) => [row.workspace_id, asRole(row.role)]));
}

// Read by the guard for a principal it does not hold, in place of membershipsOfUser: prepared once.
const accessOfUser = new PreparedQuery((db, p: { userId: string }) =>
  db
    .selectFrom('workspace_members')
    .innerJoin('workspaces', 'workspaces.id', 'workspace_members.workspace_id')
    .select(['workspace_members.workspace_id', 'workspace_members.role', 'workspaces.require_two_factor'])
    .where('workspace_members.user_id', '=', p.userId),
);

/** The user's memberships, and which of their workspaces require two-factor authentication of members. */
export interface WorkspaceAccess {
  memberships: Map<string, WorkspaceRole>;
  requiringTwoFactor: string[];
}

export async function findWorkspaceAccess(db: Kysely<Database>, userId: string): Promise<WorkspaceAccess> {
  const rows = await accessOfUser.execute(db, { userId });
  return {
    memberships: new Map(rows.map((row) => [row.workspace_id, asRole(row.role)])),
    requiringTwoFactor: rows.filter((row) => row.require_two_factor === 1).map((row) => row.workspace_id),
  };
}

export async function listWorkspacesOf(db: Kysely<Database>, userId: string): Promise<MemberWorkspaceRow[]> {
  const rows = await db
    .selectFrom('workspaces')
    .innerJoin('workspace_members', 'workspace_members.workspace_id', 'workspaces.id')
    .selectAll('workspaces')
    .select('workspace_members.role')
    .where('workspace_members.user_id', '=', userId)
    .orderBy('workspaces.id')
    .execute();
  return rows.map((row) => ({ ...row, role: asRole(row.role) }));
}

/** The workspace with the caller's role; undefined when it does not exist or they are not a member. */
export async function findWorkspaceOf(db: Kysely<Database>, userId: string, workspaceId: string): Promise<MemberWorkspaceRow | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .innerJoin('workspace_members', 'workspace_members.workspace_id', 'workspaces.id')
    .selectAll('workspaces')
    .select('workspace_members.role')
    .where('workspace_members.user_id', '=', userId)
    .where('workspaces.id', '=', workspaceId)
    .executeTakeFirst();
  return row === undefined ? undefined : { ...row, role: asRole(row.role) };
}

/**
 * The workspace, locked until the transaction ends, with the caller's role, read under the lock.
 * Every change to a workspace or its members takes this lock first, so two changes of one
 * workspace run one after the other: each counts the owners the other left (never zero).
 *
 * Lock order, so that no two transactions wait for each other: the workspace's row, then a
 * membership row, then a site's. The workspace lock lets inserts that reference the workspace
 * through (a site being created holds `key share` on it while it checks its membership).
 */
export async function lockWorkspaceOf(trx: Transaction<Database>, dialect: DialectName, userId: string, workspaceId: string): Promise<MemberWorkspaceRow | undefined> {
  const workspace = await lockWorkspace(trx, dialect, workspaceId);
  if (workspace === undefined) return undefined;
  const role = await findRole(trx, workspaceId, userId);
  return role === undefined ? undefined : { ...workspace, role };
}

/** The workspace, locked until the transaction ends (see lockWorkspaceOf); for a change made by the server's operator. */
export function lockWorkspace(trx: Transaction<Database>, dialect: DialectName, workspaceId: string): Promise<WorkspaceRow | undefined> {
  return withRowLock(dialect, trx.selectFrom('workspaces').selectAll().where('id', '=', workspaceId), 'no key update').executeTakeFirst();
}

/** Adds a membership; resolves false when the user was a member already (their role is kept). */
export async function insertMember(trx: Transaction<Database>, member: Selectable<WorkspaceMembersTable>): Promise<boolean> {
  const result = await trx
    .insertInto('workspace_members')
    .values(member)
    .onConflict((conflict) => conflict.columns(['workspace_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findRole(db: Kysely<Database>, workspaceId: string, userId: string): Promise<WorkspaceRole | undefined> {
  const row = await db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
  return row === undefined ? undefined : asRole(row.role);
}

/**
 * The user's role in the workspace, for a write that depends on it: the workspace is held against
 * deletion and the membership against change until the transaction ends, in the order of
 * lockWorkspaceOf. Other members' writes are not held up.
 */
export async function lockRole(trx: Transaction<Database>, dialect: DialectName, workspaceId: string, userId: string): Promise<WorkspaceRole | undefined> {
  const workspace = await withRowLock(dialect, trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId), 'key share').executeTakeFirst();
  if (workspace === undefined) return undefined;
  const row = await withRowLock(dialect, trx.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId), 'share').executeTakeFirst();
  return row === undefined ? undefined : asRole(row.role);
}

export async function countMemberships(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('workspace_members')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countOwners(trx: Transaction<Database>, workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom('workspace_members')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The members of a workspace the caller belongs to; none otherwise. */
export async function listMembers(db: Kysely<Database>, callerId: string, workspaceId: string): Promise<MemberRow[]> {
  const rows = await db
    .selectFrom('workspace_members as member')
    .innerJoin('workspace_members as caller', (join) => join.onRef('caller.workspace_id', '=', 'member.workspace_id').on('caller.user_id', '=', callerId))
    .innerJoin('users', 'users.id', 'member.user_id')
    .select(['member.user_id', 'users.email', 'users.name', 'member.role', 'member.joined_at'])
    .where('member.workspace_id', '=', workspaceId)
    .orderBy('member.joined_at')
    .orderBy('member.user_id')
    .execute();
  return rows.map((row) => ({ ...row, role: asRole(row.role) }));
}

export async function listMemberIds(trx: Transaction<Database>, workspaceId: string): Promise<string[]> {
  const rows = await trx.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', workspaceId).execute();
  return rows.map((row) => row.user_id);
}

export function updateMemberRole(trx: Transaction<Database>, workspaceId: string, userId: string, role: WorkspaceRole): Promise<unknown> {
  return trx.updateTable('workspace_members').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

export function deleteMember(trx: Transaction<Database>, workspaceId: string, userId: string): Promise<unknown> {
  return trx.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

export function renameWorkspace(trx: Transaction<Database>, workspaceId: string, name: string, now: string): Promise<unknown> {
  return trx.updateTable('workspaces').set({ name, updated_at: now }).where('id', '=', workspaceId).execute();
}

/** Whether the workspace requires review of changes; undefined when there is no such workspace. */
export async function findReviewRequired(trx: Transaction<Database>, workspaceId: string): Promise<boolean | undefined> {
  const row = await trx.selectFrom('workspaces').select('review_required').where('id', '=', workspaceId).executeTakeFirst();
  return row === undefined ? undefined : row.review_required === 1;
}

export function setReviewPolicy(trx: Transaction<Database>, workspaceId: string, review: { required: boolean; approvals: number }, now: string): Promise<unknown> {
  return trx.updateTable('workspaces').set({ review_required: review.required ? 1 : 0, review_approvals: review.approvals, updated_at: now }).where('id', '=', workspaceId).execute();
}

export function setRequireTwoFactor(trx: Transaction<Database>, workspaceId: string, required: boolean, now: string): Promise<unknown> {
  return trx.updateTable('workspaces').set({ require_two_factor: required ? 1 : 0, updated_at: now }).where('id', '=', workspaceId).execute();
}

/** The members of the workspace with neither TOTP on nor a passkey: whom its requirement of two-factor authentication shuts out. */
export async function findMembersWithoutSecondFactor(db: Kysely<Database>, workspaceId: string): Promise<Array<{ id: string; email: string }>> {
  return db
    .selectFrom('workspace_members')
    .innerJoin('users', 'users.id', 'workspace_members.user_id')
    .select(['users.id', 'users.email'])
    .where('workspace_members.workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.and([
        eb.not(eb.exists(eb.selectFrom('user_totp').select('user_totp.user_id').whereRef('user_totp.user_id', '=', 'users.id').where('user_totp.enabled_at', 'is not', null))),
        eb.not(eb.exists(eb.selectFrom('passkeys').select('passkeys.id').whereRef('passkeys.user_id', '=', 'users.id'))),
      ]),
    )
    .orderBy('users.email')
    .execute();
}

/** Deletes the workspace with its sites (and their check history) and its memberships. */
export async function deleteWorkspace(trx: Transaction<Database>, workspaceId: string): Promise<void> {
  // The sites first, by name rather than by cascade, so a reader sees what goes.
  await trx.deleteFrom('sites').where('workspace_id', '=', workspaceId).execute();
  await trx.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
}

/** The ids of the workspaces the user belongs to, in id order: the order they are locked in when the account goes. */
export async function listWorkspaceIdsOf(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('workspace_members').select('workspace_id').where('user_id', '=', userId).orderBy('workspace_id').execute();
  return rows.map((row) => row.workspace_id);
}

/** The user's personal workspace, if they are still its member. */
export async function findPersonalWorkspaceId(db: Kysely<Database>, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .innerJoin('workspace_members', 'workspace_members.workspace_id', 'workspaces.id')
    .select('workspaces.id')
    .where('workspaces.personal_user_id', '=', userId)
    .where('workspace_members.user_id', '=', userId)
    .executeTakeFirst();
  return row?.id;
}

/** A workspace as the operator's list shows it: whose personal workspace, how many members. */
export interface OperatorWorkspaceRow extends WorkspaceRow {
  personal_email: string | null;
  member_count: number;
}

/** Every workspace, for the server's operator (the CLI); never answers a request. */
export async function listAllWorkspaces(db: Kysely<Database>): Promise<OperatorWorkspaceRow[]> {
  const rows = await db
    .selectFrom('workspaces')
    .leftJoin('users', 'users.id', 'workspaces.personal_user_id')
    .selectAll('workspaces')
    .select('users.email as personal_email')
    .select((eb) =>
      eb
        .selectFrom('workspace_members')
        .select((count) => count.fn.countAll<number | string>().as('count'))
        .whereRef('workspace_members.workspace_id', '=', 'workspaces.id')
        .as('member_count'),
    )
    .orderBy('workspaces.id')
    .execute();
  return rows.map((row) => ({ ...row, member_count: Number(row.member_count ?? 0) }));
}

/** A workspace's name, as mail names it; undefined once it is gone. */
export async function findWorkspaceName(db: Kysely<Database>, workspaceId: string): Promise<string | undefined> {
  return (await db.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirst())?.name;
}

/** How many approvals a workspace's review policy asks for before a change goes live. */
export async function findReviewApprovals(db: Kysely<Database>, workspaceId: string): Promise<number> {
  return (await db.selectFrom('workspaces').select('review_approvals').where('id', '=', workspaceId).executeTakeFirstOrThrow()).review_approvals;
}

/** The addresses of a workspace's owners and admins: who is told when its webhooks or partner connections fail. */
export async function findAdminEmails(db: Kysely<Database>, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('workspace_members')
    .innerJoin('users', 'users.id', 'workspace_members.user_id')
    .select('users.email')
    .where('workspace_members.workspace_id', '=', workspaceId)
    .where('workspace_members.role', 'in', ['owner', 'admin'])
    .orderBy('users.email')
    .execute();
  return rows.map((row) => row.email);
}

/**
 * The workspace of a site, live or in the trash, whoever asks: for the gate that checks the
 * workspace's requirement of two-factor authentication before the route reads the site for its
 * member. Undefined when there is no such site.
 */
export async function findWorkspaceIdOfSite(db: Kysely<Database>, siteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('sites').select('workspace_id').where('id', '=', siteId).executeTakeFirst();
  return row?.workspace_id;
}
