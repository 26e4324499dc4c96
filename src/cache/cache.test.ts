import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bufferCost, Cache, CACHE_TTL_MS, entryCost, ownBuffer } from './cache.js';
import { type ChangeFeed, type ChangeListener, changeTag, NO_CHANGE_FEED, SqliteChangeFeed } from './change-feed.js';

/** A change feed driven by the test, as the PostgreSQL listener drives it: notifications, losses and returns. */
class ManualFeed implements ChangeFeed {
  listening = true;
  listener: ChangeListener | undefined;

  ready(): boolean {
    return this.listening;
  }

  listen(listener: ChangeListener): void {
    this.listener = listener;
  }

  async close(): Promise<void> {
    this.listening = false;
  }

  lose(): void {
    this.listening = false;
    this.listener?.reset();
  }

  comeBack(): void {
    this.listener?.reset();
    this.listening = true;
  }
}

const user = (id: string) => changeTag('users', 'id', id);
const token = (id: string) => changeTag('access_tokens', 'id', id);

function store(cache: Cache, key: string, value: string, tags: string[], epoch = cache.epoch): void {
  cache.set(key, value, { tags, size: value.length, epoch });
}

test('an invalidation drops every entry that depends on a named row, and nothing else', () => {
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024 });
  store(cache, 'jwt u1', 'user 1', [user('u1')]);
  store(cache, 'token a', 'token a of u1', [token('a'), user('u1')]);
  store(cache, 'token b', 'token b of u2', [token('b'), user('u2')]);
  store(cache, 'jwt u2', 'user 2', [user('u2')]);

  cache.invalidate([token('b')]);
  assert.equal(cache.get('token b'), undefined);
  assert.equal(cache.get('jwt u2'), 'user 2');

  cache.invalidate([user('u1')]);
  assert.equal(cache.get('jwt u1'), undefined);
  assert.equal(cache.get('token a'), undefined);
  assert.equal(cache.get('jwt u2'), 'user 2');
  assert.equal(cache.size, 1);
});

test('entries expire within CACHE_TTL_MS, unless stored without expiry', () => {
  let now = 1_000;
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024, time: { now: () => now } });
  store(cache, 'jwt u1', 'user 1', [user('u1')]);
  cache.set('public:spk_a', 'document a', { tags: [user('u1')], size: 10, epoch: cache.epoch, expires: false });
  now += CACHE_TTL_MS + 1;
  assert.equal(cache.get('jwt u1'), undefined);
  assert.equal(cache.get('public:spk_a'), 'document a');
  assert.deepEqual([...cache.namespace<string>('public').values()], ['document a']);
  cache.invalidate([user('u1')]);
  assert.equal(cache.get('public:spk_a'), undefined, 'a change still drops it');
});

test('entries stored together expire spread over the second half of CACHE_TTL_MS, not all at once', () => {
  let now = 1_000;
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024, time: { now: () => now } });
  const keys = Array.from({ length: 200 }, (_, index) => `jwt u${index}`);
  for (const key of keys) store(cache, key, key, [user(key)]);
  const held = () => keys.filter((key) => cache.get(key) !== undefined).length;
  now += CACHE_TTL_MS / 2;
  assert.equal(held(), 200, 'none expires in the first half');
  now += CACHE_TTL_MS / 4;
  // Each is expired by now with a chance of one half: all 200 or none would be 2 chances in 2^200.
  const left = held();
  assert.ok(left > 0 && left < 200, `${left} of 200 left at three quarters`);
  now += CACHE_TTL_MS / 4 + 1;
  assert.equal(held(), 0, 'none outlives CACHE_TTL_MS');
});

test('a read that began before an invalidation of its rows may not store what it read; one of other rows does not stop it', () => {
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024 });
  const before = cache.epoch;
  // A revocation commits while the read runs: the row read may be the old one.
  cache.invalidate([user('u1')]);
  store(cache, 'jwt u1', 'read before the revocation', [user('u1')], before);
  assert.equal(cache.get('jwt u1'), undefined);
  assert.equal(cache.refusedStores, 1);
  const after = cache.epoch;
  store(cache, 'jwt u1', 'read after', [user('u1')], after);
  assert.equal(cache.get('jwt u1'), 'read after');

  // Someone else's revocation leaves the read as it would have left the entry: kept.
  const beforeOther = cache.epoch;
  cache.invalidate([user('someone else'), token('t9')]);
  store(cache, 'jwt u3', 'read before another user changed', [user('u3')], beforeOther);
  assert.equal(cache.get('jwt u3'), 'read before another user changed');
  assert.equal(cache.refusedStores, 1);

  const beforeClear = cache.epoch;
  cache.clear();
  store(cache, 'jwt u2', 'read before everything was dropped', [user('u2')], beforeClear);
  assert.equal(cache.get('jwt u2'), undefined);
  assert.equal(cache.refusedStores, 2);
  assert.equal(cache.clears, 1);
});

test('a read that outlives more invalidations than the cache remembers is refused, whatever it read', () => {
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024 });
  const before = cache.epoch;
  for (let i = 0; i < 255; i++) cache.invalidate([user(`other ${i}`)]);
  store(cache, 'within', 'read during 255 invalidations of other rows', [user('u1')], before);
  assert.equal(cache.get('within'), 'read during 255 invalidations of other rows');
  const longBefore = cache.epoch;
  for (let i = 0; i < 257; i++) cache.invalidate([user(`other ${i}`)]);
  store(cache, 'beyond', 'read during 257', [user('u1')], longBefore);
  assert.equal(cache.get('beyond'), undefined);
  assert.equal(cache.refusedStores, 1);
});

test('an entry counts its value, its key and its tags at what each costs, and a buffer its objects too', () => {
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024 });
  const tags = [user('u1'), token('t1')];
  store(cache, 'one', 'x'.repeat(1000), tags);
  assert.equal(cache.bytes, entryCost('one', tags, 1000));
  assert.ok(entryCost('one', tags, 1000) > 1000 + 'one'.length + tags.join('').length, 'the key, tags and index cost more than their characters');
  const body = Buffer.alloc(500);
  assert.ok(bufferCost(body) > 500);
  cache.set('two', body, { tags: [], size: bufferCost(body), epoch: cache.epoch });
  assert.equal(cache.bytes, entryCost('one', tags, 1000) + entryCost('two', [], bufferCost(body)));
});

test('memory stays within the bound: the entries used longest ago go first, and leave the tag index', () => {
  const value = 'x'.repeat(1000);
  const each = entryCost('key 10', [user('u10'), 'shared'], value.length);
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 8 * each });
  for (let i = 10; i < 17; i++) store(cache, `key ${i}`, value, [user(`u${i}`), 'shared']);
  assert.equal(cache.get('key 10'), value);
  // Each entry's own tag, and the one they share.
  assert.equal(cache.indexedTags, 8);
  for (let i = 17; i < 30; i++) store(cache, `key ${i}`, value, [user(`u${i}`), 'shared']);
  assert.ok(cache.bytes <= 8 * each, `${cache.bytes} bytes`);
  assert.equal(cache.evictions, 12);
  assert.equal(cache.size, 8);
  assert.equal(cache.get('key 29'), value);
  assert.equal(cache.get('key 11'), undefined);
  // The evicted entries' tags have left the index: only the kept entries' own tags and the shared one remain.
  assert.equal(cache.indexedTags, 9);
  // An entry larger than the whole bound is not stored at all.
  store(cache, 'huge', 'y'.repeat(20_000), [user('big')]);
  assert.equal(cache.get('huge'), undefined);
  assert.equal(cache.indexedTags, 9);
  // Invalidating the tags of evicted entries finds nothing to drop and leaves the others.
  cache.invalidate(Array.from({ length: 12 }, (_, i) => user(`u${i + 10}`)));
  assert.equal(cache.get('key 29'), value);
  assert.equal(cache.size, 8);
  // The shared tag drops every entry still depending on it, and leaves the index empty.
  cache.invalidate(['shared']);
  assert.equal(cache.size, 0);
  assert.equal(cache.indexedTags, 0);
  assert.equal(cache.bytes, 0);
});

test('an entry grown after it was stored is counted at its new size, keeps its tags and expiry, and pushes older entries out', () => {
  const value = 'x'.repeat(1000);
  const each = entryCost('key 0', [user('u0')], value.length);
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 4 * each });
  for (let i = 0; i < 4; i++) store(cache, `key ${i}`, value, [user(`u${i}`)]);
  assert.equal(cache.size, 4);
  cache.grow('key 1', value, 2 * each);
  assert.equal(cache.bytes, 4 * each, 'the two used longest ago made room for it');
  assert.equal(cache.get('key 0'), undefined);
  assert.equal(cache.get('key 2'), undefined);
  assert.equal(cache.get('key 1'), value);
  // Still under its tag: a change to its row drops it, and the index empties.
  cache.invalidate([user('u1')]);
  assert.equal(cache.get('key 1'), undefined);
  assert.equal(cache.bytes, each);
  // A key that now holds another value, or none, is not grown.
  store(cache, 'key 5', 'other', [user('u5')]);
  const before = cache.bytes;
  cache.grow('key 5', value, 100);
  cache.grow('absent', value, 100);
  assert.equal(cache.bytes, before);
  // Grown past the whole bound, it goes.
  cache.grow('key 3', value, 10 * each);
  assert.equal(cache.get('key 3'), undefined);
});

test('a grown entry still expires when it would have', () => {
  let now = 1_000_000;
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024, time: { now: () => now } });
  store(cache, 'key', 'value', [user('u1')]);
  now += CACHE_TTL_MS / 2;
  cache.grow('key', 'value', 100);
  assert.equal(cache.get('key'), 'value');
  now += CACHE_TTL_MS / 2 + 1;
  assert.equal(cache.get('key'), undefined);
});

test('a replaced entry leaves the index under the tags it no longer has', () => {
  const cache = new Cache({ feed: new ManualFeed(), maxBytes: 1024 * 1024 });
  store(cache, 'key', 'old', [user('u1')]);
  store(cache, 'key', 'new', [user('u2')]);
  assert.equal(cache.indexedTags, 1);
  cache.invalidate([user('u1')]);
  assert.equal(cache.get('key'), 'new');
  cache.invalidate([user('u2')]);
  assert.equal(cache.get('key'), undefined);
  assert.equal(cache.indexedTags, 0);
});

test('a kept buffer is one of its own, never a view that would keep a larger allocation alive', () => {
  const pooled = Buffer.from('a small answer');
  assert.ok(pooled.buffer.byteLength > pooled.length, 'Buffer.from of a small string is a slice of the pool');
  const kept = ownBuffer(pooled);
  assert.deepEqual(kept, pooled);
  assert.equal(kept.buffer.byteLength, kept.length);
  const text = ownBuffer('a small answer');
  assert.equal(text.toString(), 'a small answer');
  assert.equal(text.buffer.byteLength, text.length);
  const whole = Buffer.allocUnsafeSlow(4);
  assert.equal(ownBuffer(whole), whole);
});

test('while the feed cannot vouch for it, nothing is answered or stored; when it is back the cache starts empty', () => {
  const feed = new ManualFeed();
  const cache = new Cache({ feed, maxBytes: 1024 * 1024 });
  store(cache, 'site', 'old', []);
  assert.equal(cache.available, true);

  feed.lose();
  assert.equal(cache.available, false);
  assert.equal(cache.get('site'), undefined);
  store(cache, 'site', 'read while lost', []);
  assert.equal(cache.size, 0);

  const readWhileLost = cache.epoch;
  feed.comeBack();
  assert.equal(cache.get('site'), undefined);
  // A read begun while the feed was down may have missed a change: it may not fill the cache.
  store(cache, 'site', 'read while lost, stored after', [], readWhileLost);
  assert.equal(cache.get('site'), undefined);
  store(cache, 'site', 'new', []);
  assert.equal(cache.get('site'), 'new');
});

test('notifications from the feed invalidate what they name', () => {
  const feed = new ManualFeed();
  const cache = new Cache({ feed, maxBytes: 1024 * 1024 });
  store(cache, 'a', 'a', [user('u1')]);
  store(cache, 'b', 'b', [user('u2')]);
  feed.listener?.changed([user('u1'), changeTag('sites', 'id', 'unknown')]);
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.get('b'), 'b');
});

test("SQLite's counter: any move empties the cache, read at most once per turn of the event loop", async () => {
  let counter = 1;
  let reads = 0;
  const cache = new Cache({
    feed: new SqliteChangeFeed(() => {
      reads++;
      return counter;
    }),
    maxBytes: 1024 * 1024,
  });
  store(cache, 'a', 'a', []);
  assert.equal(cache.get('a'), 'a');
  await new Promise((resolve) => setImmediate(resolve));
  counter++;
  const readsBefore = reads;
  assert.equal(cache.get('a'), undefined);
  store(cache, 'a', 'again', []);
  assert.equal(cache.get('a'), 'again');
  assert.equal(reads, readsBefore + 1, 'one read of the counter in one turn');
});

test('without a feed (CACHE_MB=0, or a bound of 0) the cache is off', () => {
  for (const cache of [new Cache({ feed: NO_CHANGE_FEED, maxBytes: 1024 }), new Cache({ feed: new ManualFeed(), maxBytes: 0 })]) {
    store(cache, 'a', 'a', []);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.available, false);
  }
});
