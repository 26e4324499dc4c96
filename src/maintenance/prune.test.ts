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

    await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 365, trashDays: 30 });
    const live = await count();
    // The sign-up's address-confirmation link and the sign-in link.
    assert.ok(live.limits > 0 && live.sessions === 1 && live.tokens === 2, JSON.stringify(live));

    // The session lives 30 days; a day after that everything here has ended.
    t.clock.advance(31 * 24 * 60 * 60 * 1000 + 1000);
    await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 365, trashDays: 30 });
    assert.deepEqual(await count(), { limits: 0, sessions: 0, tokens: 0 });
  } finally {
    await t.close();
  }
});

test('pruning deletes audit events older than the retention, and keeps the rest', async () => {
  const t = await buildTestApp();
  try {
    const user = await signUp(t.app);
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: user.bearer }, payload: { name: 'Old' } });
    assert.equal(created.statusCode, 201, created.body);
    const workspace = created.json<{ workspace: { id: string } }>().workspace.id;
    // Less than the JWT's 7 days, so the same sign-in makes the second change.
    t.clock.advance(5 * 24 * 60 * 60 * 1000);
    const renamed = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspace}`, headers: { authorization: user.bearer }, payload: { name: 'New' } });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const actions = async () => (await t.database.db.selectFrom('audit_events').select('action').orderBy('id').execute()).map((row) => row.action);
    const limiter = new RateLimiter(t.database.db, t.clock);

    await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 6, trashDays: 30 });
    assert.deepEqual(await actions(), ['workspace.created', 'workspace.updated']);
    await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 4, trashDays: 30 });
    assert.deepEqual(await actions(), ['workspace.updated']);
  } finally {
    await t.close();
  }
});
