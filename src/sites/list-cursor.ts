import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor, invalidCursor, isIdCursor } from '../pagination/cursor.js';
import { DEFAULT_SITE_LIST_SORT, NAME_MAX_LENGTH, type SiteListSort } from './contract.js';

/** What a list is ordered and filtered by; a cursor is only valid for the query that issued it. */
export interface SiteListOrder {
  readonly sort: SiteListSort;
  /** The search text; '' for none. */
  readonly q: string;
}

/** Where a page ended: the last row's id and, unless the order is the id's own, its sort value. */
export interface ListPosition {
  readonly id: string;
  readonly value?: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Ids are UUIDv7, made from the creation time: their order is the creation order. */
export function sortsById(sort: SiteListSort): boolean {
  return sort === 'created_at' || sort === '-created_at';
}

function isDefaultOrder(order: SiteListOrder): boolean {
  return order.sort === DEFAULT_SITE_LIST_SORT && order.q === '';
}

/** Binds a cursor to its search without carrying the text (up to 200 characters) in every URL. */
function searchDigest(q: string): string {
  return q === '' ? '' : createHash('sha256').update(q, 'utf8').digest('base64url').slice(0, 16);
}

/**
 * The default order's cursor is the last id alone, as it always was; every other order's names the
 * sort and the search it was made for, so that it cannot be replayed against another order, where
 * it would silently give a page with gaps or repeats.
 */
export function encodeListCursor(order: SiteListOrder, position: ListPosition): string {
  if (isDefaultOrder(order)) return Buffer.from(position.id, 'utf8').toString('base64url');
  return encodeCursor([order.sort, searchDigest(order.q), position.value ?? null, position.id]);
}

function notIssuedForOrder(): Error {
  return invalidCursor('is not a cursor issued for this sort and search');
}

export function decodeListCursor(order: SiteListOrder, cursor: string): ListPosition {
  if (isDefaultOrder(order)) {
    const id = Buffer.from(cursor, 'base64url').toString('utf8');
    if (!isIdCursor(id)) throw notIssuedForOrder();
    return { id };
  }
  const parsed = decodeCursor(cursor);
  if (parsed === undefined || parsed.length !== 4) throw notIssuedForOrder();
  const [sort, digest, value, id] = parsed;
  if (sort !== order.sort || digest !== searchDigest(order.q) || typeof id !== 'string' || !isIdCursor(id)) throw notIssuedForOrder();
  if (sortsById(order.sort)) {
    if (value !== null) throw notIssuedForOrder();
    return { id };
  }
  if (typeof value !== 'string' || !validSortValue(order.sort, value)) throw notIssuedForOrder();
  return { id, value };
}

function validSortValue(sort: SiteListSort, value: string): boolean {
  // A cursor is the client's text: a name in it is compared in SQL, where PostgreSQL refuses NUL.
  if (sort === 'name' || sort === '-name') return [...value].length <= NAME_MAX_LENGTH && !value.includes('\u0000');
  return TIMESTAMP.test(value);
}
