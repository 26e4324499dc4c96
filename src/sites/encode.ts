import build from 'fast-json-stringify';
import { ownBuffer } from '../cache/cache.js';
import type { SiteRow } from './queries.js';
import { SiteSchema } from './schema.js';
import { siteToJson } from './presenter.js';

/** A site's JSON as answers show it, and its version, which is the ETag. */
export interface EncodedSite {
  readonly id: string;
  readonly version: number;
  readonly json: Buffer;
}

/** One page of the sites list, encoded. */
export interface EncodedPage {
  readonly sites: readonly EncodedSite[];
  readonly nextCursor: string | null;
}

// The same serialiser Fastify compiles for a response schema: what SiteSchema does not name (a
// stray key in stored partner settings, say) is left out of the bytes, as from any other answer.
const serializeSite = build(SiteSchema);

/** A site's JSON, once, in a buffer of its own (a pooled slice would keep its whole 8 KiB pool alive in the cache). */
export function encodeSite(row: SiteRow): EncodedSite {
  const text = serializeSite(siteToJson(row));
  return { id: row.id, version: row.version, json: ownBuffer(text) };
}

const LIST_START = Buffer.from('{"sites":[');
const COMMA = Buffer.from(',');
const ENVELOPE_START = Buffer.from('{"site":');
const OBJECT_END = Buffer.from('}');

/** The body of GET /api/v1/sites, as the SiteList schema has it. */
export function encodeSiteList(page: EncodedPage): Buffer {
  const parts: Buffer[] = [LIST_START];
  page.sites.forEach((site, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(site.json);
  });
  parts.push(Buffer.from(`],"next_cursor":${JSON.stringify(page.nextCursor)}}`));
  return concatOwn(parts);
}

/** The body of GET /api/v1/sites/{id}, as the SiteEnvelope schema has it. */
export function encodeSiteEnvelope(site: EncodedSite): Buffer {
  return concatOwn([ENVELOPE_START, site.json, OBJECT_END]);
}

/**
 * The parts in one buffer of its own, as Buffer.concat would join them. Answers under 4 KiB (a
 * site, a page of three) would otherwise be slices of Node's shared 8 KiB pool, and one kept in
 * the cache keeps its whole pool alive (docs/performance.md, "Memory").
 */
function concatOwn(parts: readonly Buffer[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = Buffer.allocUnsafeSlow(length);
  let offset = 0;
  for (const part of parts) offset += part.copy(joined, offset);
  return joined;
}
