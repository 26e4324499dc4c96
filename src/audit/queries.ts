import type { Kysely, QueryCreator, Transaction } from 'kysely';
import type { AuditEventsTable, Database } from '../db/schema.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Clock } from '../lib/clock.js';
import { idFloor, newId } from '../lib/ids.js';
import type { AuditAction } from './contract.js';
import { type ChangeOrigin, originColumns, originValues } from './origin.js';

export type AuditEventRow = AuditEventsTable;

/** What changed, in a workspace: the part of an event the change itself knows. */
export interface AuditEntry {
  workspaceId: string;
  action: AuditAction;
  target: { type: 'workspace' | 'member' | 'invitation' | 'site' | 'webhook' | 'change_request'; id: string; name: string };
  /** Facts about the change that name no secret (a role, changed paths, a version number). */
  details?: Record<string, unknown>;
}

/** The insert of one event. */
function insertEventQuery(db: QueryCreator<Database>, p: AuditEventRow) {
  return db.insertInto('audit_events').values({
    id: p.id,
    workspace_id: p.workspace_id,
    at: p.at,
    action: p.action,
    ...originValues(p),
    target_type: p.target_type,
    target_id: p.target_id,
    target_name: p.target_name,
    details: p.details,
  });
}

// Written on every site change, so built and compiled once.
const insertEvent = new PreparedQuery(insertEventQuery);

/** An event as stored, made now. */
export function auditEventRow(clock: Clock, origin: ChangeOrigin, entry: AuditEntry): AuditEventRow {
  const now = clock.now();
  return {
    id: newId(now),
    workspace_id: entry.workspaceId,
    at: now.toISOString(),
    action: entry.action,
    ...originColumns(origin),
    target_type: entry.target.type,
    target_id: entry.target.id,
    target_name: entry.target.name,
    details: JSON.stringify(entry.details ?? {}),
  };
}

/**
 * Appends an event, in the caller's transaction: a change that rolls back leaves no event, and no
 * change commits without its event. There is no function to change or delete one (only retention).
 */
export async function recordAuditEvent(trx: Transaction<Database> | Kysely<Database>, clock: Clock, origin: ChangeOrigin, entry: AuditEntry): Promise<void> {
  await recordEvent(trx, auditEventRow(clock, origin, entry));
}

/** Appends an event made with auditEventRow, as recordAuditEvent does. */
export async function recordEvent(trx: Transaction<Database> | Kysely<Database>, row: AuditEventRow): Promise<void> {
  await insertEvent.execute(trx, row);
}

export interface AuditFilter {
  action?: string | undefined;
  actorId?: string | undefined;
}

/** One page of a workspace's events, newest first, older than the `before` id when given. */
export async function listAuditEvents(db: Kysely<Database>, workspaceId: string, filter: AuditFilter, before: string | undefined, limit: number): Promise<AuditEventRow[]> {
  let query = db.selectFrom('audit_events').selectAll().where('workspace_id', '=', workspaceId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** Workspaces whose events one retention statement deletes: each is a range of the log's key. */
const PRUNE_BATCH = 500;

/**
 * Retention: deletes events made before the cut-off, a range of ids (which are time) in each
 * workspace's part of the key, in batches of workspaces so no statement holds the writer long.
 * The only deletion of events there is, besides a workspace's own.
 */
export async function pruneAuditEvents(db: Kysely<Database>, olderThan: Date): Promise<void> {
  const floor = idFloor(olderThan);
  let after = '';
  for (;;) {
    const batch = await db.selectFrom('workspaces').select('id').where('id', '>', after).orderBy('id').limit(PRUNE_BATCH).execute();
    const last = batch.at(-1);
    if (last === undefined) return;
    await db
      .deleteFrom('audit_events')
      .where(
        'workspace_id',
        'in',
        batch.map((workspace) => workspace.id),
      )
      .where('id', '<', floor)
      .execute();
    after = last.id;
  }
}
