import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, createSite, signUp, type TestApp } from '../../test/helpers.js';

// What a PUT costs the database, on SQLite and (with TEST_DATABASE_URL) PostgreSQL: one
// transaction holding one locking read (the caller's role, the workspace's webhooks and review
// policy) and the three writes a change must make. A statement added to this path is a cost every
// PUT pays (docs/decisions/storage-site-change-statements.md).

let t: TestApp;
/** The SQL of every query the app ran, in order. */
const queries: string[] = [];

before(async () => {
  // Background jobs poll an hour apart here, so none of their queries falls among the PUT's.
  const hourly = { pollIntervalMs: 3_600_000 };
  t = await buildTestApp({ onQuery: (sql) => queries.push(sql), webhooks: hourly, scheduledChanges: hourly });
});
after(async () => {
  await t.close();
});

test('a PUT runs one transaction: the locking read, the row, its version and its audit event', async () => {
  const owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer);
  const put = (name: string) => t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer }, payload: { name } });
  // The first request reads the caller's principal; the cache answers the next one's.
  assert.equal((await put('First')).statusCode, 200);
  queries.length = 0;
  const answer = await put('Second');
  assert.equal(answer.statusCode, 200);
  assert.equal(answer.json<{ site: { name: string } }>().site.name, 'Second');
  // On PostgreSQL the first PUT's change notice can reach this server after the second began and
  // empty the cache: the caller's principal is then read again, before the transaction.
  const begin = queries.findIndex((sql) => /^begin( immediate)?$/i.test(sql));
  for (const sql of queries.slice(0, Math.max(begin, 0))) assert.match(sql, /^select .* from "(users|workspace_members)"/i, queries.join('\n'));
  const transaction = queries.slice(begin);
  const shapes = [/^begin( immediate)?$/i, /^select .* from "sites"/i, /^update "sites" set/i, /^insert into "site_versions"/i, /^insert into "audit_events"/i, /^commit$/i];
  assert.equal(transaction.length, shapes.length, queries.join('\n'));
  shapes.forEach((shape, index) => assert.match(transaction[index] ?? '', shape));
});
