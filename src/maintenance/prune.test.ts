import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, signUp, STRONG_PASSWORD } from '../../test/helpers.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';
import { pruneStaleRows } from './prune.js';

test('pruning deletes rate-limit windows, sessions and one-time tokens that ended over a day ago, and nothing live', async () => {
  const t = await buildTestApp();
  try {
    const user = await signUp(t.app, 'prune@example.com');
    await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: 'wrong-password' } });
    await t.app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email: user.email } });
    const signIn = { method: 'POST' as const, url: '/auth/session', headers: { origin: 'http://localhost:3000' }, payload: { email: user.email, password: STRONG_PASSWORD } };
    assert.equal((await t.app.inject(signIn)).statusCode, 200);
    const count = async () => ({
      limits: (await t.database.db.selectFrom('rate_limits').selectAll().execute()).length,
      sessions: (await t.database.db.selectFrom('sessions').selectAll().execute()).length,
      tokens: (await t.database.db.selectFrom('one_time_tokens').selectAll().execute()).length,
    });
    const limiter = new RateLimiter(t.database.db, t.clock);

    await pruneStaleRows(t.database.db, limiter, t.clock);
    const live = await count();
    // The sign-up's address-confirmation link and the sign-in link.
    assert.ok(live.limits > 0 && live.sessions === 1 && live.tokens === 2, JSON.stringify(live));

    // The session lives 30 days; a day after that everything here has ended.
    t.clock.advance(31 * 24 * 60 * 60 * 1000 + 1000);
    await pruneStaleRows(t.database.db, limiter, t.clock);
    assert.deepEqual(await count(), { limits: 0, sessions: 0, tokens: 0 });
  } finally {
    await t.close();
  }
});
