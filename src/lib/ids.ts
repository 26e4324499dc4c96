import { randomUUID } from 'node:crypto';

// The last id's time and counter, so ids made in one millisecond still sort in the order they were made.
let lastMs = 0;
let counter = 0;
const COUNTER_MAX = 0xfff;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then random bits. Ids sort
 * by creation time, which keeps B-tree inserts local and gives cursor pagination a stable,
 * meaningful order. Within one process they also sort by creation inside a millisecond (the
 * counter, RFC 9562 section 6.2, method 1): an audit log's order is the order of its events.
 */
export function newId(now: Date = new Date()): string {
  // A UUIDv4's random bits: Node draws them from a block it refills, not from the system per id.
  const random = randomUUID();
  let ms = now.getTime();
  if (ms > lastMs) {
    // Starts low in the range, leaving room to count up within the millisecond.
    counter = Number.parseInt(random.slice(16, 18), 16) & 0x7f;
  } else {
    ms = lastMs;
    counter++;
    if (counter > COUNTER_MAX) {
      ms = lastMs + 1;
      counter = 0;
    }
  }
  lastMs = ms;
  const time = ms.toString(16).padStart(12, '0');
  // The version 4 UUID's variant and last 62 random bits (from its fourth group on) are kept as they are.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${counter.toString(16).padStart(3, '0')}${random.slice(18)}`;
}

/** The smallest id made at or after `moment`: ids below it were made before it (retention by id). */
export function idFloor(moment: Date): string {
  const hex = Math.max(0, moment.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

export { ID_PATTERN } from './id-shape.js';
