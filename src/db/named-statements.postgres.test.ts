import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createPostgresDatabase } from '../../test/helpers.js';
import { type DatabaseHandle, openDatabase } from './connect.js';
import { PreparedQuery } from './prepared-query.js';

type Scratch = {
  scratch: { id: number; label: string };
};

/** The statements the handle's one connection holds prepared, by text. */
async function preparedOnConnection(database: DatabaseHandle): Promise<Array<{ name: string; statement: string }>> {
  const result = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(database.db);
  return result.rows;
}

describe('fixed-shape queries on PostgreSQL', () => {
  let drop: () => Promise<void>;
  let database: DatabaseHandle;

  before(async () => {
    const created = await createPostgresDatabase(process.env.TEST_DATABASE_URL ?? '');
    drop = created.drop;
    // One connection, so every query below meets the statements the ones before it prepared.
    database = openDatabase({ kind: 'postgres', url: created.url, poolSize: 1 });
    await sql`create table scratch (id integer primary key, label text not null)`.execute(database.db);
    await sql`insert into scratch (id, label) values (1, 'one'), (2, 'two')`.execute(database.db);
  });
  after(async () => {
    await database.close();
    await drop();
  });

  const byId = new PreparedQuery((db, p: { id: number }) => db.withTables<Scratch>().selectFrom('scratch').selectAll().where('id', '=', p.id));

  test('run as a named statement, prepared once per connection and bound anew on each run', async () => {
    assert.deepEqual(await byId.execute(database.db, { id: 1 }), [{ id: 1, label: 'one' }]);
    assert.deepEqual(await byId.execute(database.db, { id: 2 }), [{ id: 2, label: 'two' }]);
    assert.deepEqual(await byId.execute(database.db, { id: 3 }), []);
    const prepared = (await preparedOnConnection(database)).filter((row) => row.statement.includes('"scratch"'));
    assert.equal(prepared.length, 1, `one prepared statement for three runs: ${JSON.stringify(prepared)}`);
    assert.match(prepared[0]?.name ?? '', /^siteward_\d+_\d+$/);
    // An ordinary Kysely query is not kept by the connection.
    await database.db.withTables<Scratch>().selectFrom('scratch').select('label').where('id', 'in', [1, 2]).execute();
    assert.equal((await preparedOnConnection(database)).filter((row) => row.statement.includes('"scratch"')).length, 1);
  });

  test('after a schema change alters its columns, a run outside a transaction prepares it afresh', async () => {
    await byId.execute(database.db, { id: 1 });
    await sql`alter table scratch add column note text`.execute(database.db);
    assert.deepEqual(await byId.execute(database.db, { id: 1 }), [{ id: 1, label: 'one', note: null }]);
  });

  test('inside a transaction the refusal fails that transaction alone; the next one runs', async () => {
    await byId.execute(database.db, { id: 2 });
    await sql`alter table scratch add column extra text`.execute(database.db);
    await assert.rejects(
      database.db.transaction().execute((trx) => byId.execute(trx, { id: 2 })),
      (error: { code?: string }) => error.code === '0A000',
    );
    const rows = await database.db.transaction().execute((trx) => byId.execute(trx, { id: 2 }));
    assert.deepEqual(rows, [{ id: 2, label: 'two', note: null, extra: null }]);
  });
});
