import { AppError } from '../errors.js';
import { ID_PATTERN } from '../lib/ids.js';
import { SITE_ERRORS } from './errors.js';
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

const ID = new RegExp(ID_PATTERN);

export function encodeTrashCursor(row: SiteRow): string {
  return Buffer.from(JSON.stringify([row.deleted_at, row.id]), 'utf8').toString('base64url');
}

export function decodeTrashCursor(cursor: string): TrashPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidTrashCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalidTrashCursor();
  const [deletedAt, id] = parsed as unknown[];
  if (typeof deletedAt !== 'string' || Number.isNaN(Date.parse(deletedAt)) || typeof id !== 'string' || !ID.test(id)) throw invalidTrashCursor();
  return { deletedAt, id };
}

function invalidTrashCursor(): AppError {
  return new AppError(400, SITE_ERRORS.INVALID_CURSOR, '/querystring/cursor: is not a cursor this list issued; start again without it', {
    errors: [{ path: '/querystring/cursor', message: 'is not a cursor this list issued' }],
  });
}
