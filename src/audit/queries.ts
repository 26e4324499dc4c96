import type { Kysely, Transaction } from 'kysely';
import type { AuditEventsTable, Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { AuditAction } from './contract.js';
import { type ChangeOrigin, originColumns } from './origin.js';

export type AuditEventRow = AuditEventsTable;

/** What changed, in a workspace: the part of an event the change itself knows. */
export interface AuditEntry {
  workspaceId: string;
  action: AuditAction;
  target: { type: 'workspace' | 'member' | 'invitation' | 'site' | 'webhook'; id: string; name: string };
  /** Facts about the change that name no secret (a role, changed paths, a version number). */
  details?: Record<string, unknown>;
}

/**
 * Appends an event, in the caller's transaction: a change that rolls back leaves no event, and no
 * change commits without its event. There is no function to change or delete one (only retention).
 */
export async function recordAuditEvent(trx: Transaction<Database> | Kysely<Database>, clock: Clock, origin: ChangeOrigin, entry: AuditEntry): Promise<void> {
  const now = clock.now();
  await trx
    .insertInto('audit_events')
    .values({
      id: newId(now),
      workspace_id: entry.workspaceId,
      at: now.toISOString(),
      action: entry.action,
      ...originColumns(origin),
      target_type: entry.target.type,
      target_id: entry.target.id,
      target_name: entry.target.name,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
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

/** Retention: deletes events older than the cut-off. The only deletion of events there is. */
export async function pruneAuditEvents(db: Kysely<Database>, olderThan: string): Promise<void> {
  await db.deleteFrom('audit_events').where('at', '<', olderThan).execute();
}
