import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createAccessToken, signUp, type TestApp } from '../../test/helpers.js';
import { LastUseRecorder } from './access-token-last-use.js';

// The recorder on the app's own database (SQLite, or PostgreSQL with TEST_DATABASE_URL), with
// tokens made through the API. Failures are real: the table is renamed away while a write runs.

let t: TestApp;
let tokenIds: string[];
let errors: unknown[];
let recorder: LastUseRecorder;

beforeEach(async () => {
  t = await buildTestApp();
  const user = await signUp(t.app);
  tokenIds = [];
  for (let i = 0; i < 3; i++) tokenIds.push((await createAccessToken(t.app, user)).id);
  errors = [];
  recorder = new LastUseRecorder(t.database.db, (error) => errors.push(error));
});

afterEach(async () => {
  await t.close();
});

async function stored(): Promise<Array<string | null>> {
  const rows = await t.database.db.selectFrom('access_tokens').select(['id', 'last_used_at']).execute();
  return tokenIds.map((id) => rows.find((row) => row.id === id)?.last_used_at ?? null);
}

async function renameTable(from: string, to: string): Promise<void> {
  await sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(t.database.db);
}

test('the records of one turn are stored together, the latest time of a token winning, before the promises settle', async () => {
  const [a, b, c] = tokenIds as [string, string, string];
  const settled = [
    recorder.record(a, '2026-01-15T10:00:00.000Z'),
    recorder.record(b, '2026-01-15T10:00:01.000Z'),
    recorder.record(a, '2026-01-15T10:00:02.000Z'),
  ];
  // One write carries the turn's records. (Reading the table here to see nothing written yet
  // would race the write on PostgreSQL: the read is only sent when a pool connection is free.)
  assert.equal(new Set(settled).size, 1, 'the records of one turn share one write');
  await Promise.all(settled);
  assert.deepEqual(await stored(), ['2026-01-15T10:00:02.000Z', '2026-01-15T10:00:01.000Z', null]);

  await recorder.record(c, '2026-01-15T10:01:00.000Z');
  assert.deepEqual(await stored(), ['2026-01-15T10:00:02.000Z', '2026-01-15T10:00:01.000Z', '2026-01-15T10:01:00.000Z']);
  assert.deepEqual(errors, []);
});

test('a record made while a write runs goes into the next write, so a later time is never overwritten by an earlier one', async () => {
  const [a] = tokenIds as [string];
  const first = recorder.record(a, '2026-01-15T10:00:00.000Z');
  // Two turns: the first write has begun (on PostgreSQL it is still running), so this joins the next.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  const second = recorder.record(a, '2026-01-15T10:01:00.000Z');
  assert.notEqual(first, second);
  await Promise.all([first, second]);
  assert.deepEqual((await stored())[0], '2026-01-15T10:01:00.000Z');
});

test('a failed write is reported, never thrown, and its records are written by the next one', async () => {
  const [a, b] = tokenIds as [string, string];
  await renameTable('access_tokens', 'access_tokens_away');
  try {
    await recorder.record(a, '2026-01-15T10:00:00.000Z');
    await recorder.record(b, '2026-01-15T10:00:05.000Z');
  } finally {
    await renameTable('access_tokens_away', 'access_tokens');
  }
  assert.equal(errors.length, 2);
  assert.deepEqual(await stored(), [null, null, null]);

  await recorder.record(b, '2026-01-15T10:00:09.000Z');
  assert.deepEqual(await stored(), ['2026-01-15T10:00:00.000Z', '2026-01-15T10:00:09.000Z', null], 'a kept record yields to a later one of the same token');
});

test('close writes what is still pending', async () => {
  const [a] = tokenIds as [string];
  void recorder.record(a, '2026-01-15T10:00:00.000Z');
  await recorder.close();
  assert.deepEqual((await stored())[0], '2026-01-15T10:00:00.000Z');
});
