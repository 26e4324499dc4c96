import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cache } from '../cache/cache.js';
import { NO_CHANGE_FEED } from '../cache/change-feed.js';
import { InvalidJwtError, JWT_LIFETIME_SECONDS, JwtService } from './jwt.js';

// Runs once, on SQLite: no database is opened; the checked tokens are kept in memory only.

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const ISSUER = 'https://siteward.example.com';

/** A clock the test moves. */
function movableClock() {
  let now = Date.parse('2026-11-29T12:00:00Z');
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

/** A cache whose feed always vouches for it, as a single SQLite process's does. */
function cacheOf(maxBytes: number): Cache {
  return new Cache({ feed: { ...NO_CHANGE_FEED, ready: () => true }, maxBytes });
}

test('checked JWTs are kept in the app cache and count towards its bound', () => {
  const clock = movableClock();
  const cache = cacheOf(64 * 1024);
  const issuer = new JwtService(SECRET, ISSUER, clock);
  const verifier = new JwtService(SECRET, ISSUER, clock, cache);
  const tokens = Array.from({ length: 500 }, (_, index) => issuer.issue(`user-${index}`, 0).token);

  for (const token of tokens) verifier.verify(token);
  // 500 tokens of about 1 KB each cannot all fit in 64 KiB: the bound pushed the oldest out.
  assert.ok(cache.size > 0 && cache.size < tokens.length, `${cache.size} kept`);
  assert.ok(cache.bytes <= 64 * 1024, `${cache.bytes} bytes counted`);

  const last = tokens.at(-1) ?? '';
  const hitsBefore = cache.hits;
  assert.equal(verifier.verify(last).sub, 'user-499');
  assert.equal(cache.hits, hitsBefore + 1, 'the second check of a kept token is answered from the cache');
});

test('a kept token is still refused once it has expired', () => {
  const clock = movableClock();
  const cache = cacheOf(1024 * 1024);
  const service = new JwtService(SECRET, ISSUER, clock, cache);
  const { token } = service.issue('someone', 0);
  assert.equal(service.verify(token).sub, 'someone');
  clock.advance(JWT_LIFETIME_SECONDS * 1000);
  assert.throws(() => service.verify(token), (error) => error instanceof InvalidJwtError && error.message === 'expired');
});

test('what a kept token proved is only what the server uses, frozen', () => {
  const clock = movableClock();
  const service = new JwtService(SECRET, ISSUER, clock, cacheOf(1024 * 1024));
  const claims = service.verify(service.issue('someone', 3).token);
  assert.deepEqual(Object.keys(claims).sort(), ['auth_time', 'exp', 'gen', 'iat', 'sub']);
  assert.equal(claims.gen, 3);
  assert.ok(Object.isFrozen(claims));
});

test('a forged token is refused whether or not a genuine one is kept', () => {
  const clock = movableClock();
  const service = new JwtService(SECRET, ISSUER, clock, cacheOf(1024 * 1024));
  const { token } = service.issue('someone', 0);
  service.verify(token);
  const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
  assert.throws(() => service.verify(forged), InvalidJwtError);
  const other = new JwtService('another-secret-of-at-least-thirty-two-chars', ISSUER, clock).issue('someone', 0).token;
  assert.throws(() => service.verify(other), InvalidJwtError);
});
