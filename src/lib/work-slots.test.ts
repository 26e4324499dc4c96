import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkSlots } from './work-slots.js';

/** A piece of work that finishes when told to, recording when it started. */
function controlled(started: string[], name: string): { work: () => Promise<string>; finish: () => void; fail: () => void } {
  let finish!: () => void;
  let fail!: () => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = () => resolve(name);
    fail = () => reject(new Error(`${name} failed`));
  });
  return { work: () => (started.push(name), done), finish, fail };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('no more than the slots run at once; the others start in arrival order as slots free up, after failures too', async () => {
  const slots = new WorkSlots(2);
  const started: string[] = [];
  const a = controlled(started, 'a');
  const b = controlled(started, 'b');
  const c = controlled(started, 'c');
  const d = controlled(started, 'd');
  const results = [a, b, c, d].map((piece) => slots.run(piece.work));
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  assert.equal(slots.waiting, 2);

  b.fail();
  await assert.rejects(results[1]!, /b failed/);
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c'], 'a failed piece gives its slot to the next');

  a.finish();
  assert.equal(await results[0], 'a');
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  assert.equal(slots.waiting, 0);

  c.finish();
  d.finish();
  assert.deepEqual(await Promise.all([results[2], results[3]]), ['c', 'd']);
  // Every slot is free again: two new pieces start at once.
  const e = controlled(started, 'e');
  const f = controlled(started, 'f');
  const later = [slots.run(e.work), slots.run(f.work)];
  await settle();
  assert.deepEqual(started.slice(4), ['e', 'f']);
  e.finish();
  f.finish();
  await Promise.all(later);
});

test('a slot count below one is refused', () => {
  assert.throws(() => new WorkSlots(0), RangeError);
  assert.throws(() => new WorkSlots(1.5), RangeError);
});
