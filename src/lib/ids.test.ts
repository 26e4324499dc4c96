import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ID_PATTERN, newId } from './ids.js';

test('ids are UUIDv7 that sort in the order they were made, within a millisecond too', () => {
  const moment = new Date('2026-05-01T12:00:00.000Z');
  // More than the 4,096 a millisecond's counter holds: the overflow moves on to the next millisecond.
  const ids = Array.from({ length: 10_000 }, () => newId(moment));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids.slice(0, 50)) {
    assert.match(id, new RegExp(ID_PATTERN));
    assert.equal(id[14], '7', 'version 7');
    assert.ok('89ab'.includes(id[19] ?? ''), 'RFC 9562 variant');
  }
  assert.equal(ids[0]?.slice(0, 13), '019de368-f600', 'the first carries the time it was made');
  const later = newId(new Date(moment.getTime() + 60_000));
  assert.ok(later > (ids.at(-1) ?? ''));
  // A clock that steps back does not make an id sort before the ones already made.
  assert.ok(newId(new Date(moment.getTime() - 60_000)) > later);
});
