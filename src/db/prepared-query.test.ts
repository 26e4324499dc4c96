import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { buildTestApp, signUp, type TestApp } from '../../test/helpers.js';
import { StatementCachingSqlite } from './sqlite-driver.js';
import { PreparedQuery } from './prepared-query.js';

describe('a prepared query', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  const byEmailAndGeneration = new PreparedQuery((db, p: { email: string; limit: number }) =>
    db.selectFrom('users').select(['id', 'email']).where('email', '=', p.email).where('jwt_generation', '=', 0).orderBy('id').limit(p.limit),
  );

  test('answers each call with its own arguments, as the same Kysely query would', async () => {
    const alice = await signUp(t.app);
    const bob = await signUp(t.app);
    const { db } = t.database;
    for (const user of [alice, bob, alice]) {
      const prepared = await byEmailAndGeneration.execute(db, { email: user.email, limit: 10 });
      const direct = await db.selectFrom('users').select(['id', 'email']).where('email', '=', user.email).where('jwt_generation', '=', 0).orderBy('id').limit(10).execute();
      assert.deepEqual(prepared, direct);
      assert.deepEqual(prepared, [{ id: user.id, email: user.email }]);
    }
    assert.deepEqual(await byEmailAndGeneration.execute(db, { email: alice.email, limit: 0 }), []);
  });

  test('binds arguments as values: SQL in an argument is only text', async () => {
    const user = await signUp(t.app);
    assert.deepEqual(await byEmailAndGeneration.execute(t.database.db, { email: `${user.email}' or '1'='1`, limit: 10 }), []);
    assert.deepEqual(await byEmailAndGeneration.execute(t.database.db, { email: "x' or 1=1 --", limit: 10 }), []);
  });

  test('refuses a build that reads a parameter without passing it to Kysely as a value', async () => {
    const branches = new PreparedQuery((db, p: { cursor: string | undefined }) => {
      const query = db.selectFrom('users').select('id');
      return p.cursor === undefined ? query : query.where('id', '>', 'x');
    });
    await assert.rejects(branches.execute(t.database.db, { cursor: 'a' }), /must pass each parameter/);
    const transforms = new PreparedQuery((db, p: { email: string }) => db.selectFrom('users').select('id').where('email', '=', p.email.toLowerCase()));
    await assert.rejects(transforms.execute(t.database.db, { email: 'A@example.com' }), /must pass each parameter/);
  });

  test('serves a transaction with the query compiled on its database', async () => {
    const user = await signUp(t.app);
    const rows = await t.database.db.transaction().execute((trx) => byEmailAndGeneration.execute(trx, { email: user.email, limit: 1 }));
    assert.deepEqual(rows, [{ id: user.id, email: user.email }]);
  });
});

describe('the SQLite statement cache', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'siteward-statements-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('reuses a statement per SQL text and keeps at most its capacity, dropping the least recently used', () => {
    const cache = new StatementCachingSqlite(new SQLite(path.join(dir, 'cache.db')), 3);
    try {
      const first = cache.prepare('select 1');
      assert.equal(cache.prepare('select 1'), first);
      cache.prepare('select 2');
      cache.prepare('select 3');
      cache.prepare('select 1'); // used again: now the most recent
      cache.prepare('select 4'); // drops "select 2", the least recently used
      assert.equal(cache.size, 3);
      assert.equal(cache.prepare('select 1'), first);
      assert.deepEqual(cache.prepare('select ? as value').all([7]), [{ value: 7 }]);
      assert.deepEqual(cache.prepare('select ? as value').all([8]), [{ value: 8 }], 'a reused statement binds the new parameters');
    } finally {
      cache.close();
    }
  });
});
