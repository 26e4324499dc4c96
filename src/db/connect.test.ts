import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { until } from '../../test/wait.js';
import { type DatabaseHandle, openDatabase } from './connect.js';
import { WalCheckpoints, WRITER_WAL_AUTOCHECKPOINT_PAGES } from './wal-checkpoints.js';

describe('the SQLite connection', () => {
  let dir: string;
  let database: DatabaseHandle;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'siteward-connect-'));
    database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'test.db') });
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Starts `count` transactions while another holds the connection, lets that one finish, and
   * waits for all: the order they ran in, and how many promises were made meanwhile.
   */
  async function queueBehindHolder(count: number): Promise<{ order: number[]; promises: number }> {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const holder = database.db.transaction().execute(() => gate);
    // Let the holder take the connection before anyone queues.
    await new Promise((resolve) => setImmediate(resolve));
    const order: number[] = [];
    let inside = 0;
    const queued = Array.from({ length: count }, (_, index) =>
      database.db.transaction().execute(async (trx) => {
        inside++;
        assert.equal(inside, 1, 'one transaction at a time on the one connection');
        order.push(index);
        await sql`select ${index} as turn`.execute(trx);
        inside--;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'PROMISE') promises++;
      },
    }).enable();
    try {
      openGate();
      await Promise.all([holder, ...queued]);
    } finally {
      hook.disable();
    }
    return { order, promises };
  }

  test('has its WAL checkpointed by a thread of its own; the writing connection checkpoints only past the back-stop', async () => {
    const autocheckpoint = await database.db.transaction().execute((trx) => sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(trx));
    assert.equal(autocheckpoint.rows[0]?.wal_autocheckpoint, WRITER_WAL_AUTOCHECKPOINT_PAGES);
    await sql`create table checkpointed (n integer)`.execute(database.db);
    for (let n = 0; n < 20; n++) await sql`insert into checkpointed (n) values (${n})`.execute(database.db);
    const checkpoints = database.walCheckpoints;
    assert.ok(checkpoints !== undefined);
    const result = await checkpoints.now();
    assert.equal(result.busy, 0);
    assert.ok(result.log > 0, 'the writes are in the WAL');
    assert.equal(result.checkpointed, result.log, 'and all of it is copied into the database file');
    const rows = await sql<{ count: number }>`select count(*) as count from checkpointed`.execute(database.db);
    assert.equal(rows.rows[0]?.count, 20);
  });

  test('a checkpointing thread that fails tells its owner, and stops without ending the process', async () => {
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    // A folder that does not exist: the thread cannot open the file.
    // The thread holds no process open (in the app the server's socket does): a timer holds this one
    // while the failure travels back.
    const hold = setInterval(() => undefined, 60_000);
    try {
      const checkpoints = new WalCheckpoints(path.join(dir, 'missing', 'test.db'), () => failed());
      // The thread's own error, or its exit, whichever reaches the caller first.
      await assert.rejects(checkpoints.now(), /directory does not exist|the checkpointing thread has stopped/);
      await failure;
      await checkpoints.stop();
      await assert.rejects(checkpoints.now());
    } finally {
      clearInterval(hold);
    }
  });

  test('starts its checkpointing thread only once the WAL has grown past the threshold', async () => {
    const file = path.join(dir, 'lazy.db');
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table filler (text text)');
    const checkpoints = new WalCheckpoints(file, () => assert.fail('the thread failed'), { startAtBytes: 64 * 1024, watchIntervalMs: 10 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(checkpoints.running, false, 'a WAL of a few pages starts no thread');
      const insert = writer.prepare('insert into filler (text) values (?)');
      for (let n = 0; n < 40; n++) insert.run('x'.repeat(4000));
      await until(() => checkpoints.running, 'the thread to start');
      const result = await checkpoints.now();
      assert.equal(result.checkpointed, result.log, 'and it checkpoints the whole WAL');
    } finally {
      await checkpoints.stop();
      writer.close();
    }
  });

  test('is handed to waiting transactions one at a time, in the order they asked', async () => {
    const { order } = await queueBehindHolder(30);
    assert.deepEqual(
      order,
      Array.from({ length: 30 }, (_, index) => index),
    );
  });

  test('is handed on without waking everyone who waits: the work per transaction does not grow with the queue', async () => {
    await queueBehindHolder(10); // statements prepared, code warm
    const short = await queueBehindHolder(10);
    const long = await queueBehindHolder(200);
    const perShort = short.promises / 10;
    const perLong = long.promises / 200;
    // Waking every waiter on each release made a queue of 200 cost about a hundred more promises
    // per transaction than a queue of 10; handed on in turn, the two cost the same.
    assert.ok(perLong < perShort * 1.5, `${perLong.toFixed(1)} promises per transaction behind 200 against ${perShort.toFixed(1)} behind 10`);
  });
});

test('a script whose last work is closing a SQLite database ends when it is closed, the close settled', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'siteward-close-'));
  try {
    const connect = new URL('./connect.js', import.meta.url).href;
    const script = `import { openDatabase } from ${JSON.stringify(connect)};
const database = openDatabase({ kind: 'sqlite', file: ${JSON.stringify(path.join(dir, 'db.sqlite'))} });
await database.close();
console.log('closed');`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, 'closed\n');
    assert.equal(run.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
