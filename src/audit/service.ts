import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { assertCan, workspaceNotFound } from '../memberships/permissions.js';
import { findWorkspaceOf } from '../memberships/queries.js';
import { invalidCursor, isIdCursor } from '../pagination/cursor.js';
import { auditEventToJson } from './presenter.js';
import { type AuditFilter, listAuditEvents } from './queries.js';
import type { AuditEventJson, AuditLogPageJson } from './schema.js';

/** Rows read per query while exporting: enough to keep the database busy, few enough to stay small in memory. */
const EXPORT_BATCH = 500;

/** A workspace's audit log, for its admins: read by pages, or every matching event as a stream. */
export class AuditLog {
  constructor(private readonly deps: { db: Kysely<Database> }) {}

  async #assertMayRead(userId: string, workspaceId: string): Promise<void> {
    const workspace = await findWorkspaceOf(this.deps.db, userId, workspaceId);
    assertCan(workspace?.role, 'audit.read', workspaceNotFound);
  }

  async page(userId: string, workspaceId: string, filter: AuditFilter, limit: number, cursor: string | undefined): Promise<AuditLogPageJson> {
    if (cursor !== undefined && !isIdCursor(cursor)) throw invalidCursor('is not a cursor of this audit log');
    await this.#assertMayRead(userId, workspaceId);
    // One row more than asked says whether another page follows.
    const rows = await listAuditEvents(this.deps.db, workspaceId, filter, cursor, limit + 1);
    const events = rows.slice(0, limit).map(auditEventToJson);
    return { events, next_cursor: rows.length > limit ? (events.at(-1)?.id ?? null) : null };
  }

  /**
   * Every matching event, newest first, read in batches as the consumer asks for them: the export
   * holds one batch in memory however long the log is. Refuses (throws) before the first event, so
   * a refusal is an ordinary error answer rather than a broken stream.
   */
  async export(userId: string, workspaceId: string, filter: AuditFilter): Promise<AsyncGenerator<AuditEventJson>> {
    await this.#assertMayRead(userId, workspaceId);
    const { db } = this.deps;
    return (async function* () {
      let before: string | undefined;
      for (;;) {
        const rows = await listAuditEvents(db, workspaceId, filter, before, EXPORT_BATCH);
        for (const row of rows) yield auditEventToJson(row);
        if (rows.length < EXPORT_BATCH) return;
        before = rows.at(-1)?.id;
      }
    })();
  }
}
