import { AppError } from '../errors.js';
import { ID_PATTERN } from '../lib/ids.js';
import { PAGINATION_ERRORS } from './errors.js';

/**
 * A 400 for a cursor the list did not issue. `refusal` says which list, as a field error reads
 * ('is not a cursor of this audit log'), so a client knows to start again from the first page.
 */
export function invalidCursor(refusal: string): AppError {
  return new AppError(400, PAGINATION_ERRORS.INVALID_CURSOR, `/querystring/cursor: ${refusal}; start again without it`, {
    errors: [{ path: '/querystring/cursor', message: refusal }],
  });
}

const ID = new RegExp(ID_PATTERN);

/** Whether a cursor has the shape of a row id (UUIDv7), the cursor of lists ordered by id. */
export function isIdCursor(cursor: string): boolean {
  return ID.test(cursor);
}

/** A position of several values (a timestamp and an id) as an opaque cursor for a URL. */
export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The values of a cursor made by encodeCursor; undefined for anything else. */
export function decodeCursor(cursor: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? (parsed as unknown[]) : undefined;
  } catch {
    return undefined;
  }
}
