import { randomFillSync } from 'node:crypto';

// The last id's time and counter, so ids made in one millisecond still sort in the order they were made.
let lastMs = 0;
let counter = 0;
const COUNTER_MAX = 0xfff;

// Random bytes are drawn from the system in blocks and handed out 16 at a time, as Node's own
// randomUUID does: one call to the system per 256 ids, not two per id (ids are made on every write).
const RANDOM_BLOCK = 16 * 256;
const randomPool = Buffer.alloc(RANDOM_BLOCK);
let randomOffset = RANDOM_BLOCK;

function randomSixteen(): Buffer {
  if (randomOffset === RANDOM_BLOCK) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  // A view, not a copy: each slice is handed out once and used before the block is refilled.
  const bytes = randomPool.subarray(randomOffset, randomOffset + 16);
  randomOffset += 16;
  return bytes;
}

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then random bits. Ids sort
 * by creation time, which keeps B-tree inserts local and gives cursor pagination a stable,
 * meaningful order. Within one process they also sort by creation inside a millisecond (the
 * counter, RFC 9562 section 6.2, method 1): an audit log's order is the order of its events.
 */
export function newId(now: Date = new Date()): string {
  const bytes = randomSixteen();
  let ms = now.getTime();
  if (ms > lastMs) {
    // Starts low in the range, leaving room to count up within the millisecond. Byte 6 is free
    // randomness here: the version and counter overwrite it below.
    counter = (bytes[6] ?? 0) & 0x7f;
  } else {
    ms = lastMs;
    counter++;
    if (counter > COUNTER_MAX) {
      ms = lastMs + 1;
      counter = 0;
    }
  }
  lastMs = ms;
  // 48 bits of milliseconds: the high 16 and the low 32, each exact in a double.
  bytes.writeUInt16BE(Math.floor(ms / 2 ** 32), 0);
  bytes.writeUInt32BE(ms % 2 ** 32, 2);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest id made at or after `moment`: ids below it were made before it (retention by id). */
export function idFloor(moment: Date): string {
  const hex = Math.max(0, moment.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

export const ID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
