import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { type DialectName, forUpdate } from '../db/connect.js';
import type { ChangeRequestsTable, Database } from '../db/schema.js';
import { type ChangeRequestStatus, PENDING_CHANGE_REQUEST_STATUSES } from './contract.js';
import type { PublicSiteRow } from '../delivery/queries.js';
import { isWorkspaceRole, type WorkspaceRole } from '../memberships/permissions.js';

export type ChangeRequestRow = Selectable<ChangeRequestsTable>;

// Every query that answers a caller is scoped by the site (or workspace) the caller was found to be
// a member of first: a change request id alone never reaches another workspace's request.

export function insertChangeRequest(trx: Transaction<Database>, row: ChangeRequestRow): Promise<unknown> {
  return trx.insertInto('change_requests').values(row).execute();
}

export function findChangeRequest(db: Kysely<Database>, siteId: string, id: string): Promise<ChangeRequestRow | undefined> {
  return db.selectFrom('change_requests').selectAll().where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
}

/** The request, locked until the transaction ends: every change of one request runs after the other. */
export function lockChangeRequest(trx: Transaction<Database>, dialect: DialectName, siteId: string, id: string): Promise<ChangeRequestRow | undefined> {
  return forUpdate(dialect, trx.selectFrom('change_requests').selectAll().where('site_id', '=', siteId).where('id', '=', id)).executeTakeFirst();
}

export function updateChangeRequest(trx: Transaction<Database>, id: string, changes: Partial<Omit<ChangeRequestRow, 'id'>>): Promise<unknown> {
  return trx.updateTable('change_requests').set(changes).where('id', '=', id).execute();
}

/** A site's requests, newest first. */
export function listSiteChangeRequests(db: Kysely<Database>, siteId: string, status: ChangeRequestStatus | undefined, limit: number): Promise<ChangeRequestRow[]> {
  let query = db.selectFrom('change_requests').selectAll().where('site_id', '=', siteId);
  if (status !== undefined) query = query.where('status', '=', status);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** A workspace's requests on its live sites (the review queue), newest first. */
export function listWorkspaceChangeRequests(db: Kysely<Database>, workspaceId: string, statuses: readonly ChangeRequestStatus[], limit: number): Promise<ChangeRequestRow[]> {
  return db
    .selectFrom('change_requests')
    .innerJoin('sites', 'sites.id', 'change_requests.site_id')
    .selectAll('change_requests')
    .where('change_requests.workspace_id', '=', workspaceId)
    .where('sites.deleted_at', 'is', null)
    .where('change_requests.status', 'in', [...statuses])
    .orderBy('change_requests.id', 'desc')
    .limit(limit)
    .execute();
}

export interface ApprovalRow {
  change_request_id: string;
  user_id: string;
  email: string;
  name: string;
  at: string;
}

/**
 * The approvals of the requests that still count: given by someone whose account is enabled and
 * who is an admin or owner of the workspace now. That they held the role without a break since
 * approving is kept by the writes that take it away: a demotion or a removal deletes their
 * approvals (withdrawApprovalsOf), so a role given back later finds none to revive.
 */
export function listApprovals(db: Kysely<Database>, workspaceId: string, ids: readonly string[]): Promise<ApprovalRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('change_request_approvals as approval')
    .innerJoin('users', 'users.id', 'approval.user_id')
    .innerJoin('workspace_members as member', (join) => join.onRef('member.user_id', '=', 'approval.user_id').on('member.workspace_id', '=', workspaceId))
    .select(['approval.change_request_id', 'approval.user_id', 'users.email', 'users.name', 'approval.at'])
    .where('approval.change_request_id', 'in', [...ids])
    .where('member.role', 'in', ['owner', 'admin'])
    .where('users.disabled_at', 'is', null)
    .orderBy('approval.at')
    .orderBy('approval.user_id')
    .execute();
}

/**
 * What a scheduled request's author is at this moment in its workspace: their role, whether their
 * account is enabled, and whether the workspace requires two-factor authentication of members.
 * Undefined once they are not a member.
 */
export async function findAuthorStanding(
  trx: Transaction<Database>,
  workspaceId: string,
  authorId: string,
): Promise<{ role: WorkspaceRole; disabled: boolean; requireTwoFactor: boolean } | undefined> {
  const row = await trx
    .selectFrom('workspace_members as member')
    .innerJoin('users', 'users.id', 'member.user_id')
    .innerJoin('workspaces', 'workspaces.id', 'member.workspace_id')
    .select(['member.role', 'users.disabled_at', 'workspaces.require_two_factor'])
    .where('member.workspace_id', '=', workspaceId)
    .where('member.user_id', '=', authorId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  // The column's CHECK constraint allows only the roles; anything else is a corrupt row.
  if (!isWorkspaceRole(row.role)) throw new Error(`unknown workspace role in the database: ${row.role}`);
  return { role: row.role, disabled: row.disabled_at !== null, requireTwoFactor: row.require_two_factor === 1 };
}

/** Records an approval; a second one by the same person changes nothing. */
export function insertApproval(trx: Transaction<Database>, changeRequestId: string, userId: string, at: string): Promise<unknown> {
  return trx
    .insertInto('change_request_approvals')
    .values({ change_request_id: changeRequestId, user_id: userId, at })
    .onConflict((conflict) => conflict.columns(['change_request_id', 'user_id']).doNothing())
    .execute();
}

export function deleteApprovals(trx: Transaction<Database>, changeRequestId: string): Promise<unknown> {
  return trx.deleteFrom('change_request_approvals').where('change_request_id', '=', changeRequestId).execute();
}

/**
 * Withdraws for good what a member approved in the workspace's requests that can still go live, in
 * the transaction that demotes them below admin or removes them. Approving reads the approver's
 * role under a share lock of their membership row (lockRole), so an approval and a demotion
 * committing at once take turns: the approval is refused, or deleted here.
 */
export async function withdrawApprovalsOf(trx: Transaction<Database>, workspaceId: string, userId: string): Promise<number> {
  const result = await trx
    .deleteFrom('change_request_approvals')
    .where('user_id', '=', userId)
    .where('change_request_id', 'in', (eb) =>
      eb
        .selectFrom('change_requests')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('status', 'in', [...PENDING_CHANGE_REQUEST_STATUSES]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export type CommentRow = Selectable<Database['change_request_comments']>;

export function insertComment(trx: Transaction<Database>, row: CommentRow): Promise<unknown> {
  return trx.insertInto('change_request_comments').values(row).execute();
}

export function listComments(db: Kysely<Database>, ids: readonly string[]): Promise<CommentRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('change_request_comments').selectAll().where('change_request_id', 'in', [...ids]).orderBy('id').execute();
}

/** A live site's public columns, when `publicKey` is its current key. */
export function findPreviewSite(db: Kysely<Database>, siteId: string, publicKey: string): Promise<PublicSiteRow | undefined> {
  return db
    .selectFrom('sites')
    .select(['id', 'workspace_id', 'name', 'color', 'widget', 'portal', 'branding', 'public_theme', 'version', 'updated_at', 'public_key', 'previous_public_key', 'previous_public_key_expires_at'])
    .where('id', '=', siteId)
    .where('public_key', '=', publicKey)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The request a preview token names, by the token's hash, while it is open or scheduled, with its site. */
export function findPreviewByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<ChangeRequestRow | undefined> {
  return db.selectFrom('change_requests').selectAll().where('preview_token_hash', '=', tokenHash).where('status', 'in', ['open', 'scheduled']).executeTakeFirst();
}

/**
 * Up to `limit` scheduled requests due by `now` without a live lease, in the order they were due;
 * locked FOR UPDATE SKIP LOCKED on PostgreSQL, so servers never wait for each other.
 */
export function findDueScheduledRequests(trx: Transaction<Database>, dialect: DialectName, now: string, limit: number): Promise<Array<{ id: string; site_id: string; workspace_id: string }>> {
  // Literal 'scheduled': the partial index on it is used only when the planner sees the value.
  const scheduled = sql.lit<'scheduled'>('scheduled');
  let query = trx
    .selectFrom('change_requests')
    .select(['id', 'site_id', 'workspace_id'])
    .where('status', '=', scheduled)
    .where('scheduled_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('scheduled_at')
    .orderBy('id')
    .limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return query.execute();
}

/**
 * Extends to `until` the leases `owner` still holds on these requests: one applied, failed or
 * closed meanwhile has no lease any more, and one another server took over is that server's.
 */
export async function renewChangeRequestLeases(db: Kysely<Database>, ids: readonly string[], owner: string, until: string): Promise<void> {
  await db.updateTable('change_requests').set({ lease_until: until }).where('id', 'in', ids).where('lease_owner', '=', owner).where('status', '=', 'scheduled').execute();
}

/** Leases the requests to `owner` until `until`: another server takes them only once it runs out. */
export async function leaseChangeRequests(trx: Transaction<Database>, ids: readonly string[], owner: string, until: string): Promise<void> {
  await trx.updateTable('change_requests').set({ lease_owner: owner, lease_until: until }).where('id', 'in', ids).execute();
}
