import { negotiate } from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { BUFFER_OBJECT_BYTES, ownBuffer } from '../cache/cache.js';
import type { App } from './types.js';

/** Smaller answers go as they are: compressing them saves less than a packet and costs time. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

export type ContentEncoding = 'br' | 'gzip';
/** In order of preference when the client accepts both equally. */
const ENCODINGS: ContentEncoding[] = ['br', 'gzip'];
/** Brotli's quality 11 takes many times longer than 4 for a few per cent less; 4 is what @fastify/compress uses. */
const DYNAMIC_BROTLI_QUALITY = 4;

/** The coding the client's Accept-Encoding prefers among br and gzip; undefined for none (identity). */
export function preferredEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  // "x-gzip" is gzip's old name (RFC 9110, 8.4.1.3).
  return negotiate(acceptEncoding.toLowerCase().replace(/\bx-gzip\b/g, 'gzip'), ENCODINGS) ?? undefined;
}

/**
 * Compresses every answer of 1 KiB or more whose type is text or JSON, when the client's
 * Accept-Encoding allows br or gzip (@fastify/compress, added to each route as it is declared).
 * Request bodies are never decompressed: a few compressed bytes could expand past the body limit
 * before it is checked. Routes that send bytes encoded ahead (the site reads and updates, the
 * dashboard's files) opt out with `compress: false` and compress through `sendJsonBuffer` or
 * their own copies, so that a request without Accept-Encoding runs no compression hook at all.
 */
export async function registerCompression(app: App): Promise<void> {
  await app.register(compress, {
    encodings: ENCODINGS,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    globalDecompression: false,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } },
  });
}

function compressBuffer(encoding: ContentEncoding, body: Buffer): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } }) : gzipSync(body);
}

/**
 * The compressed copies of bodies compressed before, by the body they were made from, for as long
 * as that body lives. The site reads hand out the very Buffer their cache holds on every hit
 * (sites/reads.ts), and compressing a 50-site page anew for each request was most of what such a
 * request cost: about half a millisecond of zlib on the event loop, every other request waiting
 * behind it. A body is never changed once made, so its copy stays right.
 */
const compressedCopies = new WeakMap<Buffer, Partial<Record<ContentEncoding, Buffer>>>();

/** The WeakMap's entry and the object holding a body's copies (bench/cache-memory.ts). */
const COPIES_OBJECT_BYTES = 150;

/** Who is told of each copy made of a body: the cache entry that keeps it (chargeCopiesTo). */
const copyCharges = new WeakMap<Buffer, (bytes: number) => void>();

/**
 * From now on, each compressed copy made of `body` tells `charge` what it holds, so that a cache
 * keeping the body counts its copies in its bound once they exist: an API client that sends no
 * Accept-Encoding never makes one, a browser makes one per coding it is answered in.
 */
export function chargeCopiesTo(body: Buffer, charge: (bytes: number) => void): void {
  if (body.length >= COMPRESSION_THRESHOLD_BYTES) copyCharges.set(body, charge);
}

/** What chargeCopiesTo's own record holds for a body: its closure and WeakMap entry. */
const COPY_CHARGE_BYTES = 200;

/** What chargeCopiesTo's record costs, counted with the body when it is stored. */
export function copyChargeCost(body: Buffer): number {
  return body.length >= COMPRESSION_THRESHOLD_BYTES ? COPY_CHARGE_BYTES : 0;
}

/** `body` in `encoding`: compressed once per body and coding (compressedCopies). */
export function compressedCopy(encoding: ContentEncoding, body: Buffer): Buffer {
  let copies = compressedCopies.get(body);
  const held = copies?.[encoding];
  if (held !== undefined) return held;
  // zlib's result is a view of its 16 KiB output chunk: kept as it is, a 300-byte copy would hold
  // the whole chunk for as long as the cache holds the body.
  const copy = ownBuffer(compressBuffer(encoding, body));
  if (copies === undefined) {
    copies = {};
    compressedCopies.set(body, copies);
  }
  copies[encoding] = copy;
  copyCharges.get(body)?.(BUFFER_OBJECT_BYTES + copy.length + (Object.keys(copies).length === 1 ? COPIES_OBJECT_BYTES : 0));
  return copy;
}

/**
 * Sends JSON encoded beforehand as it is, or compressed as @fastify/compress would have: the same
 * threshold, codings and headers. Without Accept-Encoding this is a plain send of the buffer.
 */
export function sendJsonBuffer(request: FastifyRequest, reply: FastifyReply, body: Buffer): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const acceptEncoding = request.headers['accept-encoding'];
  if (acceptEncoding === undefined || body.length < COMPRESSION_THRESHOLD_BYTES) return reply.send(body);
  const encoding = preferredEncoding(acceptEncoding);
  if (encoding === undefined) return reply.send(body);
  return reply.header('vary', 'accept-encoding').header('content-encoding', encoding).send(compressedCopy(encoding, body));
}
