import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { invalidCursor, isIdCursor } from '../pagination/cursor.js';
import { securityEventToJson } from './presenter.js';
import { listSecurityEvents } from './queries.js';
import type { SecurityEventPageJson } from './schema.js';

/** A person's own security history (sign-ins, failures, credential changes), newest first. */
export class SecurityHistory {
  constructor(private readonly deps: { db: Kysely<Database> }) {}

  /** A page of the user's events, older than the cursor (the last event's id) when given. */
  async page(userId: string, limit: number, cursor: string | undefined): Promise<SecurityEventPageJson> {
    if (cursor !== undefined && !isIdCursor(cursor)) throw invalidCursor('is not a cursor of this list');
    // One row more than asked says whether another page follows.
    const rows = await listSecurityEvents(this.deps.db, userId, cursor, limit + 1);
    const events = rows.slice(0, limit).map(securityEventToJson);
    const last = events.at(-1);
    return { events, next_cursor: rows.length > limit && last !== undefined ? last.id : null };
  }
}
