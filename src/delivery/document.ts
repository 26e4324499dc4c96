import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { COMPRESSION_THRESHOLD_BYTES, type ContentEncoding } from '../http/compression.js';
import { BUFFER_OBJECT_BYTES, bufferCost, ownBuffer } from '../cache/cache.js';
import type { Clock } from '../lib/clock.js';
import type { PublicSiteRow } from './queries.js';
import type { PublicConfigJson } from './schema.js';

/** The groups of a site that its visitors' browsers receive. No other settings group is ever read on the public path. */
const PUBLIC_GROUPS = ['widget', 'portal', 'branding', 'public_theme'] as const;

/** A group's text as the JSON object it holds; null when it is empty, not JSON, or JSON but no object. */
function publicGroup(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The public configuration of a site, as GET /public/v1/sites/{public_key} answers it. */
export function publicConfig(row: PublicSiteRow): PublicConfigJson {
  const site: PublicConfigJson['site'] = { name: row.name, color: row.color, widget: null, portal: null, branding: null, public_theme: null };
  for (const group of PUBLIC_GROUPS) site[group] = publicGroup(row[group]);
  return { site, version: row.version, updated_at: row.updated_at };
}

/** The document's object, its keys' strings and the answers built for it, besides its buffers. */
const DOCUMENT_OBJECT_BYTES = 750;

/** Brotli at the quality a one-off compression of a document kept for its whole version can afford. */
const BROTLI_QUALITY = 9;

/**
 * One version of a site's public configuration, encoded once for every request that asks for it:
 * the JSON, its compressed forms (made when first asked for), its entity tags, and the event the
 * event streams send. Kept in the cache under each key that answers for the site.
 */
export class PublicDocument {
  readonly siteId: string;
  readonly version: number;
  readonly body: Buffer;
  /** The strong entity tag of the uncompressed JSON; each compressed form has its own ("7-gzip"). */
  readonly etag: string;
  /** `event: config` with the version as its id and the JSON as its data, as the event streams send it. */
  readonly event: Buffer;
  readonly currentKey: string;
  readonly previousKey: string | null;
  /** Epoch milliseconds after which the previous key no longer answers. */
  readonly previousKeyExpiresAt: number;
  #gzip: Buffer | undefined;
  #br: Buffer | undefined;

  constructor(row: PublicSiteRow) {
    this.siteId = row.id;
    this.version = row.version;
    const json = JSON.stringify(publicConfig(row));
    this.body = ownBuffer(json);
    this.etag = `"${row.version}"`;
    this.event = ownBuffer(`event: config\nid: ${row.version}\ndata: ${json}\n\n`);
    this.currentKey = row.public_key;
    this.previousKey = row.previous_public_key;
    this.previousKeyExpiresAt = row.previous_public_key_expires_at === null ? 0 : Date.parse(row.previous_public_key_expires_at);
  }

  /** Whether `key` answers for this site now: its current key always, the previous one until it expires. */
  answersFor(key: string, clock: Clock): boolean {
    return key === this.currentKey || (key === this.previousKey && clock.now().getTime() < this.previousKeyExpiresAt);
  }

  /** Whether the document is worth compressing at all; smaller answers go as they are. */
  get compressible(): boolean {
    return this.body.length >= COMPRESSION_THRESHOLD_BYTES;
  }

  /** The body in `encoding`, compressed on first use and kept (in a buffer of its own: see ownBuffer). */
  encoded(encoding: ContentEncoding): Buffer {
    if (encoding === 'gzip') {
      this.#gzip ??= ownBuffer(gzipSync(this.body, { level: 9 }));
      return this.#gzip;
    }
    this.#br ??= ownBuffer(brotliCompressSync(this.body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length } }));
    return this.#br;
  }

  etagFor(encoding: ContentEncoding | undefined): string {
    return encoding === undefined ? this.etag : `"${this.version}-${encoding}"`;
  }

  /**
   * Memory the document holds, for the cache's bound: its object and keys, the JSON and its event,
   * as much again for its compressed forms, and the answers built for it (PublicAnswers keeps a
   * few header sets per document). Measured by bench/cache-memory.ts.
   */
  get size(): number {
    const compressed = this.compressible ? BUFFER_OBJECT_BYTES + this.body.length : 0;
    return DOCUMENT_OBJECT_BYTES + bufferCost(this.body) + bufferCost(this.event) + compressed;
  }
}
