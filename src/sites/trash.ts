import { decodeCursor, encodeCursor, invalidCursor, isIdCursor } from '../pagination/cursor.js';
import type { SiteRow, TrashPosition } from './queries.js';
import type { TrashEntryJson } from './schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A trashed site as the trash lists it; the site as it was when deleted, without its token. */
export function trashEntry(row: SiteRow, retentionDays: number, siteJson: (row: SiteRow) => TrashEntryJson['site']): TrashEntryJson {
  const deletedAt = row.deleted_at ?? row.updated_at;
  return {
    site: siteJson(row),
    deleted_at: deletedAt,
    deleted_by: row.deleted_by === null ? null : (JSON.parse(row.deleted_by) as TrashEntryJson['deleted_by']),
    purge_at: new Date(Date.parse(deletedAt) + retentionDays * DAY_MS).toISOString(),
  };
}

export function encodeTrashCursor(row: SiteRow): string {
  return encodeCursor([row.deleted_at, row.id]);
}

export function decodeTrashCursor(cursor: string): TrashPosition {
  const parsed = decodeCursor(cursor);
  if (parsed === undefined || parsed.length !== 2) throw invalidCursor('is not a cursor this list issued');
  const [deletedAt, id] = parsed;
  if (typeof deletedAt !== 'string' || Number.isNaN(Date.parse(deletedAt)) || typeof id !== 'string' || !isIdCursor(id)) throw invalidCursor('is not a cursor this list issued');
  return { deletedAt, id };
}
