import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropOldest } from './insertion-order.js';

test('the entries inserted first go, re-inserted ones count as new, until the bound holds', () => {
  const map = new Map([['a', 1], ['b', 2], ['c', 3], ['d', 4]]);
  map.delete('a');
  map.set('a', 1);
  dropOldest(map, 2);
  assert.deepEqual([...map.keys()], ['d', 'a']);

  const set = new Set(['x', 'y']);
  dropOldest(set, 2);
  assert.deepEqual([...set], ['x', 'y']);
  dropOldest(set, 0);
  assert.equal(set.size, 0);
});
