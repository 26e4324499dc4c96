import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecondChance } from './second-chance.js';

test('a key is let in at its second try, and only once per refusal', () => {
  const admission = new SecondChance(4);
  assert.equal(admission.admits('a'), false);
  assert.equal(admission.admits('b'), false);
  assert.equal(admission.admits('a'), true);
  assert.equal(admission.admits('a'), false, 'admitted once, a key starts over');
  assert.equal(admission.admits('b'), true);
});

test('only the most recent refusals are remembered, so a long pass never gets in', () => {
  const admission = new SecondChance(3);
  for (let round = 0; round < 3; round++) {
    for (const key of ['k1', 'k2', 'k3', 'k4']) assert.equal(admission.admits(key), false, `${key} in round ${round}`);
  }
  assert.equal(admission.size, 3);
  assert.equal(admission.admits('k4'), true);
});
