import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ifMatchVersions, ifNoneMatchHits, versionEtag } from './etag.js';

test('If-Match names the versions a write may replace, by strong comparison; no header or "*" lets any through', () => {
  assert.equal(ifMatchVersions(undefined), undefined);
  assert.equal(ifMatchVersions('*'), undefined);
  assert.equal(ifMatchVersions('"3", *'), undefined);
  assert.deepEqual(ifMatchVersions(versionEtag(7)), [7]);
  assert.deepEqual(ifMatchVersions('"1", "12" ,"3"'), [1, 12, 3]);
  // A weak tag never matches for If-Match, and neither does a tag that is no version of ours.
  assert.deepEqual(ifMatchVersions('W/"7"'), []);
  assert.deepEqual(ifMatchVersions('"07", "7.0", "-1", "", 7, "abc"'), []);
  assert.deepEqual(ifMatchVersions(''), []);
});

test('If-None-Match compares weakly: W/"1" and "1" are the same entity', () => {
  assert.equal(ifNoneMatchHits(undefined, versionEtag(1)), false);
  assert.equal(ifNoneMatchHits('W/"1"', versionEtag(1)), true);
  assert.equal(ifNoneMatchHits('"2", "1"', versionEtag(1)), true);
  assert.equal(ifNoneMatchHits('"2"', versionEtag(1)), false);
  assert.equal(ifNoneMatchHits('*', versionEtag(1)), true);
});
