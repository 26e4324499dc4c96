import type { Kysely } from 'kysely';
import type { Database, SecurityEventsTable } from '../db/schema.js';
import { idFloor } from '../lib/ids.js';

export type SecurityEventRow = SecurityEventsTable;

/** Appends an account's event. There is no function to change or delete one (only retention). */
export async function insertSecurityEvent(db: Kysely<Database>, row: SecurityEventRow): Promise<void> {
  await db.insertInto('security_events').values(row).execute();
}

/** One page of an account's events, newest first, older than the `before` id when given. */
export function listSecurityEvents(db: Kysely<Database>, userId: string, before: string | undefined, limit: number): Promise<SecurityEventRow[]> {
  let query = db.selectFrom('security_events').selectAll().where('user_id', '=', userId);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** Retention: deletes events made before the cut-off (ids are time). */
export async function pruneSecurityEvents(db: Kysely<Database>, olderThan: Date): Promise<void> {
  await db.deleteFrom('security_events').where('id', '<', idFloor(olderThan)).execute();
}
