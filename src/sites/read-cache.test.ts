import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMISSION_CANDIDATES, type EncodedSite, PAGES_PER_USER, SiteCache } from './read-cache.js';

function site(id: string, version = 1, size = 100): EncodedSite {
  return { id, version, json: Buffer.alloc(size, 'x') };
}

/** A cache whose foreign change counter the test moves by hand. */
function cacheWithCounter(maxBytes = 1024 * 1024): { cache: SiteCache; foreignCommit: () => void } {
  let counter = 7;
  const cache = new SiteCache({ foreignChanges: () => counter, maxBytes });
  return { cache, foreignCommit: () => counter++ };
}

describe('the site cache on its own', () => {
  test('a remembered page and its sites are found for their owner only', () => {
    const { cache } = cacheWithCounter();
    cache.rememberPage('u1', '50', { sites: [site('a'), site('b')], nextCursor: null }, cache.readStarted());
    assert.deepEqual(cache.page('u1', '50')?.sites.map((s) => s.id), ['a', 'b']);
    assert.equal(cache.site('u1', 'b')?.id, 'b');
    assert.equal(cache.page('u1', '10'), undefined, 'another limit is another page');
    assert.equal(cache.site('u2', 'b'), undefined, "another user never finds u1's site");
    assert.equal(cache.page('u2', '50'), undefined);
  });

  test("a changed site is dropped; its pages are served again once it is read afresh", () => {
    const { cache } = cacheWithCounter();
    cache.rememberPage('u1', '50', { sites: [site('a'), site('b')], nextCursor: null }, cache.readStarted());
    cache.siteChanged('u1', 'b');
    assert.equal(cache.site('u1', 'b'), undefined);
    assert.equal(cache.page('u1', '50'), undefined, 'a page with a dropped site is not served');
    assert.equal(cache.site('u1', 'a')?.version, 1, 'the other site stays');
    cache.rememberSite('u1', site('b', 2), cache.readStarted());
    assert.deepEqual(cache.page('u1', '50')?.sites.map((s) => `${s.id}@${s.version}`), ['a@1', 'b@2']);
  });

  test('a created or deleted site drops every page of its owner, and the deleted site', () => {
    const { cache } = cacheWithCounter();
    cache.rememberPage('u1', '50', { sites: [site('a'), site('b')], nextCursor: null }, cache.readStarted());
    cache.rememberPage('u1', '1', { sites: [site('a')], nextCursor: 'c1' }, cache.readStarted());
    cache.sitesAddedOrRemoved('u1');
    assert.equal(cache.page('u1', '50'), undefined);
    assert.equal(cache.page('u1', '1'), undefined);
    assert.equal(cache.site('u1', 'a')?.id, 'a', 'a site itself does not change when another is created');
    cache.sitesAddedOrRemoved('u1', 'a');
    assert.equal(cache.site('u1', 'a'), undefined);
  });

  test("a read that began before a write to the user's sites does not store what it read", () => {
    const { cache } = cacheWithCounter();
    const before = cache.readStarted();
    cache.siteChanged('u1', 'a'); // committed while the read was running: it may have read the old row
    cache.rememberSite('u1', site('a', 1), before);
    assert.equal(cache.site('u1', 'a'), undefined);
    cache.rememberPage('u1', '50', { sites: [site('a', 1)], nextCursor: null }, before);
    assert.equal(cache.page('u1', '50'), undefined);
    const after = cache.readStarted();
    cache.rememberSite('u1', site('a', 2), after);
    assert.equal(cache.site('u1', 'a')?.version, 2);
  });

  test("a write to one user's sites does not stop a read of another user's from being stored", () => {
    const { cache } = cacheWithCounter();
    const ticket = cache.readStarted();
    cache.siteChanged('u2', 'z');
    cache.rememberSite('u1', site('a'), ticket);
    assert.equal(cache.site('u1', 'a')?.id, 'a');
  });

  test('a commit by another connection drops everything at the next lookup, and reads running then store nothing', () => {
    const { cache, foreignCommit } = cacheWithCounter();
    cache.rememberSite('u1', site('a'), cache.readStarted());
    const running = cache.readStarted();
    foreignCommit();
    assert.equal(cache.site('u1', 'a'), undefined);
    assert.equal(cache.bytes, 0);
    cache.rememberSite('u1', site('a'), running);
    assert.equal(cache.site('u1', 'a'), undefined, 'a read begun before the foreign commit was noticed may hold the old row');
    cache.rememberSite('u1', site('a', 2), cache.readStarted());
    assert.equal(cache.site('u1', 'a')?.version, 2);
  });

  test('memory stays within maxBytes by dropping the users used longest ago', () => {
    const { cache } = cacheWithCounter(4200); // three users of one 1000-byte site each fit, four do not
    for (const user of ['u1', 'u2', 'u3']) cache.rememberSite(user, site(`${user}-s`, 1, 1000), cache.readStarted());
    assert.ok(cache.site('u1', 'u1-s') !== undefined, 'u1 is now the most recently used');
    cache.rememberSite('u4', site('u4-s', 1, 1000), cache.readStarted());
    assert.equal(cache.site('u4', 'u4-s'), undefined, 'a new user is not let in at the first read once the cache is full');
    assert.ok(cache.site('u2', 'u2-s') !== undefined, 'and nobody was dropped for it');
    cache.rememberSite('u4', site('u4-s', 1, 1000), cache.readStarted());
    assert.ok(cache.bytes <= 4200, `${cache.bytes} bytes held`);
    assert.equal(cache.site('u3', 'u3-s'), undefined, 'u3 was used longest ago');
    assert.ok(cache.site('u1', 'u1-s') !== undefined);
    assert.ok(cache.site('u4', 'u4-s') !== undefined, 'at the second read, u4 is let in');
  });

  test('a pass over more users than fit, each read once, leaves what is held alone', () => {
    const { cache } = cacheWithCounter(4200);
    for (const user of ['u1', 'u2', 'u3']) cache.rememberSite(user, site(`${user}-s`, 1, 1000), cache.readStarted());
    const held = cache.bytes;
    // A rotation longer than the candidates remembered: no user of it is read twice "soon".
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < ADMISSION_CANDIDATES + 1; index++) {
        cache.rememberSite(`scan-${index}`, site(`scan-${index}-s`, 1, 1000), cache.readStarted());
      }
    }
    assert.equal(cache.bytes, held);
    for (const user of ['u1', 'u2', 'u3']) assert.ok(cache.site(user, `${user}-s`) !== undefined, `${user} is still held`);
    assert.equal(cache.site('scan-0', 'scan-0-s'), undefined);
  });

  test('a user dropped for room cannot have a stale read stored after a write to them', () => {
    const { cache } = cacheWithCounter(2500);
    const running = cache.readStarted();
    cache.siteChanged('u1', 'a'); // remembered in u1's entry…
    // u3 is read twice: the second read is let in, and u1's entry is dropped to make room.
    for (const user of ['u2', 'u3', 'u3']) cache.rememberSite(user, site(`${user}-s`, 1, 1000), cache.readStarted());
    assert.ok(cache.site('u3', 'u3-s') !== undefined);
    cache.rememberSite('u1', site('a', 1), running); // …so that what it knew of the write is gone
    assert.equal(cache.site('u1', 'a'), undefined);
  });

  test('pages per user are bounded', () => {
    const { cache } = cacheWithCounter();
    for (let limit = 1; limit <= PAGES_PER_USER + 3; limit++) {
      cache.rememberPage('u1', String(limit), { sites: [site('a')], nextCursor: null }, cache.readStarted());
    }
    const held = Array.from({ length: PAGES_PER_USER + 3 }, (_, index) => cache.page('u1', String(index + 1))).filter((page) => page !== undefined);
    assert.equal(held.length, PAGES_PER_USER);
    assert.ok(cache.page('u1', String(PAGES_PER_USER + 3)) !== undefined, 'the newest page is kept');
  });

  test('without a foreign change counter (PostgreSQL), or with no memory, nothing is ever held', () => {
    for (const cache of [new SiteCache({ foreignChanges: null, maxBytes: 1024 * 1024 }), new SiteCache({ foreignChanges: () => 1, maxBytes: 0 })]) {
      assert.equal(cache.enabled, false);
      cache.rememberPage('u1', '50', { sites: [site('a')], nextCursor: null }, cache.readStarted());
      cache.rememberSite('u1', site('b'), cache.readStarted());
      cache.siteChanged('u1', 'a');
      assert.equal(cache.page('u1', '50'), undefined);
      assert.equal(cache.site('u1', 'b'), undefined);
      assert.equal(cache.bytes, 0);
    }
  });
});
