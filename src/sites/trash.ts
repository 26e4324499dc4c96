import { decodeCursor, encodeCursor, invalidCursor, isIdCursor } from '../pagination/cursor.js';
import type { SiteRow, TrashPosition } from './queries.js';

export function encodeTrashCursor(row: SiteRow): string {
  return encodeCursor([row.deleted_at, row.id]);
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function decodeTrashCursor(cursor: string): TrashPosition {
  const parsed = decodeCursor(cursor);
  if (parsed === undefined || parsed.length !== 2) throw invalidCursor('is not a cursor this list issued');
  const [deletedAt, id] = parsed;
  if (typeof deletedAt !== 'string' || !TIMESTAMP.test(deletedAt) || Number.isNaN(Date.parse(deletedAt)) || typeof id !== 'string' || !isIdCursor(id)) throw invalidCursor('is not a cursor this list issued');
  return { deletedAt, id };
}
