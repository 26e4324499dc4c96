import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The dashboard's files in both encodings browsers accept. */
export interface Compressed {
  readonly gzip: Buffer;
  readonly br: Buffer;
}

/** Where the build puts each compressed copy: beside the file, as web servers commonly look for it. */
export const COMPRESSED_SUFFIXES = { br: '.br', gzip: '.gz' } as const satisfies Record<keyof Compressed, string>;

/** Images and fonts that are compressed already, and files too small to gain, are sent as they are. */
export function isCompressible(fileName: string, size: number): boolean {
  return size > 1024 && !['.png', '.woff2'].includes(path.extname(fileName));
}

/**
 * The highest settings: the files change only with a build, so the time is spent once. The build
 * writes these copies (web/precompressPlugin.ts); the server makes them itself for a build without.
 */
export function compressFully(body: Buffer): Compressed {
  return {
    gzip: gzipSync(body, { level: 9 }),
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  };
}
