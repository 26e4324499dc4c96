import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ForeignChanges } from './foreign-changes.js';

function countingCounter(): { read: () => number; reads: () => number; commit: () => void } {
  let value = 7;
  let reads = 0;
  return {
    read: () => {
      reads++;
      return value;
    },
    reads: () => reads,
    commit: () => {
      value++;
    },
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('the counter is read once in a turn of the event loop, however often it is asked for', async () => {
  const counter = countingCounter();
  const changes = new ForeignChanges(counter.read);
  assert.equal(counter.reads(), 0);
  assert.deepEqual([changes.current(), changes.current(), changes.current()], [7, 7, 7]);
  await Promise.resolve();
  assert.equal(changes.current(), 7);
  assert.equal(counter.reads(), 1);
});

test('a commit made during a turn is seen in the next turn', async () => {
  const counter = countingCounter();
  const changes = new ForeignChanges(counter.read);
  assert.equal(changes.current(), 7);
  counter.commit();
  assert.equal(changes.current(), 7);
  await nextTurn();
  assert.equal(changes.current(), 8);
  assert.equal(counter.reads(), 2);
  await nextTurn();
  await nextTurn();
  assert.equal(changes.current(), 8);
  assert.equal(counter.reads(), 3);
});
