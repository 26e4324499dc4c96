import SQLite from 'better-sqlite3';
import { Kysely, type LogEvent, PostgresDialect, type SelectQueryBuilder, type RawBuilder, sql } from 'kysely';
import pLimit from 'p-limit';
import { type ChangeFeed, SqliteChangeFeed } from '../cache/change-feed.js';
import { type ChangeFeedLog, PostgresChangeFeed } from '../cache/postgres-change-feed.js';
import type { DatabaseConfig } from '../config.js';
import { namedStatementClient } from './named-statements.js';
import { ownerOnlySqliteFile } from './owner-only-files.js';
import type { Database } from './schema.js';
import { ImmediateSqliteDialect, SQLITE_STATEMENT_CACHE_SIZE, StatementCachingSqlite } from './sqlite-driver.js';
import { ConnectionHolds, type ConnectionUse, type DatabaseUsage, statementFamily } from './usage.js';
import { WalCheckpoints, WRITER_WAL_AUTOCHECKPOINT_PAGES } from './wal-checkpoints.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** How the cache learns of changes other processes commit (src/cache/change-feed.ts); the caller closes it. */
  openChangeFeed(log: ChangeFeedLog): ChangeFeed;
  /** Runs `work` while no other process migrates this database. */
  withMigrationLock<T>(work: () => Promise<T>): Promise<T>;
  /** What the connections are doing now, and each query's time when opened with `timeQueries`: for the metrics. */
  usage: DatabaseUsage;
  /** SQLite: the thread that checkpoints the WAL (db/wal-checkpoints.ts); none on PostgreSQL. */
  walCheckpoints?: WalCheckpoints;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Told the SQL text of every query run: tests count the queries a path makes. */
  onQuery?: (sql: string) => void;
  /**
   * Time every query for `usage.onQueryTime` (the metrics). Off, queries run without Kysely's
   * timing wrapper at all.
   */
  timeQueries?: boolean;
}

/**
 * Opens the configured database. Every difference between SQLite and PostgreSQL lives in this
 * file and the SQLite driver (sqlite-driver.ts); the query code above it is the same for both.
 */
export function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): DatabaseHandle {
  const onQuery = options.onQuery;
  const timed = options.timeQueries === true;
  const holds = new ConnectionHolds(timed);
  let connections: () => ConnectionUse = () => ({ max: 0, inUse: 0, idle: 0, waiting: 0, heldSeconds: 0 });
  const usage: DatabaseUsage = { connections: () => connections(), timed, onQueryTime: undefined };
  // Kysely times each query (two clock reads) once a logger is set; it is set only when someone
  // listens. Failed queries count too: their time was spent all the same.
  const log =
    onQuery === undefined && !timed
      ? {}
      : {
          log: (event: LogEvent) => {
            onQuery?.(event.query.sql);
            usage.onQueryTime?.(statementFamily(event.query.query), event.queryDurationMillis / 1000);
          },
        };
  if (config.kind === 'sqlite') {
    ownerOnlySqliteFile(config.file);
    const sqlite = new SQLite(config.file);
    // WAL lets readers proceed during a write; NORMAL sync is durable across process crashes.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // No busy wait inside SQLite: better-sqlite3 runs on the event loop, and a statement waiting
    // there for another process's write lock stops every request of this one. The driver waits
    // for the lock between attempts instead (SQLITE_BUSY_TIMEOUT_MS).
    sqlite.pragma('busy_timeout = 0');
    // A smaller page cache per connection than better-sqlite3 builds SQLite with: pages missing
    // here come from the operating system's file cache at a pread each, which costs no
    // throughput, and the process's memory stays flat (docs/decisions/storage-sqlite-connections.md).
    sqlite.pragma('cache_size = -4000');
    // Checkpoints, and their fsyncs, are made on a thread of their own (db/wal-checkpoints.ts); this
    // connection makes one only as a back-stop, and again at every 1,000 pages should the thread fail.
    sqlite.pragma(`wal_autocheckpoint = ${WRITER_WAL_AUTOCHECKPOINT_PAGES}`);
    const walCheckpoints = new WalCheckpoints(config.file, () => {
      if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
    });
    // Plain reads run on a connection of their own, which WAL lets read while any connection, of
    // this process or another, writes: a read never queues behind a write waiting for the lock.
    // Opened after the writer, which made the file WAL. query_only: it can never write.
    const reader = new SQLite(config.file);
    reader.pragma('busy_timeout = 0');
    reader.pragma('cache_size = -4000');
    reader.pragma('query_only = ON');
    const turns = pLimit(1);
    // Two connections; the queue in front of the writing one is where callers wait. A read runs
    // synchronously, so a sample never finds the reading one in use.
    connections = () => ({ max: 2, inUse: turns.activeCount, idle: 2 - turns.activeCount, waiting: turns.pendingCount, heldSeconds: holds.seconds });
    const readStatements = new StatementCachingSqlite(reader, SQLITE_STATEMENT_CACHE_SIZE);
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: new StatementCachingSqlite(sqlite, SQLITE_STATEMENT_CACHE_SIZE) }, turns, holds, readStatements), ...log });
    // data_version changes when another connection commits, never for this one's own commits. It
    // reads the WAL index in shared memory: about a microsecond, no disk access. Inside a write
    // transaction of this connection it reads the transaction's start, and while that lasts no
    // other connection can commit, so it is current there too.
    const dataVersion = sqlite.prepare('pragma data_version').pluck();
    const openChangeFeed = () => new SqliteChangeFeed(() => dataVersion.get() as number);
    return {
      db,
      dialect: 'sqlite',
      openChangeFeed,
      withMigrationLock: (work) => withSqliteFileLock(`${config.file}-migration-lock`, work),
      usage,
      walCheckpoints,
      // The thread's connection closes first: the last one to close checkpoints what is left and removes the WAL.
      close: async () => {
        await walCheckpoints.stop();
        await db.destroy();
      },
    };
  }

  // The driver is loaded when the first query needs a connection, so a SQLite process never holds
  // it (docs/decisions/lazy-libraries.md).
  const connect = async () => {
    const { default: pg } = await import('pg');
    // BIGINT columns hold epoch milliseconds, well inside a double's exact range: read them as numbers.
    pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
    const pool = new pg.Pool({ connectionString: config.url, max: config.poolSize, Client: namedStatementClient(pg.Client) });
    // The pool's own counts, read when asked (no connection is opened for it).
    connections = () => ({ max: config.poolSize, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount, heldSeconds: holds.seconds });
    if (timed) {
      pool.on('acquire', (client) => holds.acquired(client));
      pool.on('release', (_error, client) => holds.released(client));
    }
    // A client losing its connection (a database restart) must not crash the process: the pool
    // reports idle ones, and a client in use reports it both to its query, which fails, and as an
    // 'error' event, which with no listener would be thrown.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    return pool;
  };
  // Until the first query opens the pool: no connection, none waiting.
  connections = () => ({ max: config.poolSize, inUse: 0, idle: 0, waiting: 0, heldSeconds: 0 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: connect }), ...log });
  // Kysely's migrator holds a transaction-scoped advisory lock on PostgreSQL already.
  return {
    db,
    dialect: 'postgres',
    openChangeFeed: (log) => new PostgresChangeFeed({ url: config.url, log }),
    withMigrationLock: (work) => work(),
    usage,
    close: () => db.destroy(),
  };
}

/**
 * Locks the selected rows until the transaction ends. PostgreSQL needs FOR UPDATE; SQLite
 * serialises writers on the database already, so the clause (which it does not know) is left out.
 */
export function forUpdate<DB, TB extends keyof DB, O>(
  dialect: DialectName,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/**
 * The weaker row locks of PostgreSQL, for lock orders that must not deadlock with foreign-key
 * checks: `no key update` excludes other writers of the row but not an insert that references it
 * (which takes `key share`); `share` excludes updates and deletes of the row but not other readers.
 * SQLite serialises writers on the database already, so nothing is added there.
 */
export function withRowLock<DB, TB extends keyof DB, O>(
  dialect: DialectName,
  query: SelectQueryBuilder<DB, TB, O>,
  strength: 'no key update' | 'share' | 'key share',
): SelectQueryBuilder<DB, TB, O> {
  if (dialect === 'sqlite') return query;
  if (strength === 'no key update') return query.forNoKeyUpdate();
  return strength === 'share' ? query.forShare() : query.forKeyShare();
}

/**
 * A LIMIT that stays a bound parameter without costing a re-prepare. SQLite (3.53 here) reads the
 * value of a plain `limit ?` while planning, which marks the statement to be prepared again
 * whenever that parameter is bound anew: on every run, since better-sqlite3 binds each run, a
 * large share of a page of sites. Written as an expression, the value is read only when
 * the statement runs; the plan is the same (the index already gives the order). PostgreSQL takes
 * the same expression.
 */
export function limitParameter(limit: number): RawBuilder<number> {
  return sql<number>`${limit} + 0`;
}
/**
 * A lock across processes for SQLite, where Kysely's migrator runs without a transaction (SQLite
 * DDL is not transactional there) and takes no lock: two servers starting together on one file
 * would both create the tables. An IMMEDIATE transaction on a separate lock file is held while
 * the work runs; the other process waits in its busy handler.
 */
async function withSqliteFileLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  ownerOnlySqliteFile(lockFile);
  const lock = new SQLite(lockFile);
  try {
    lock.pragma('busy_timeout = 60000');
    lock.exec('begin immediate');
    try {
      return await work();
    } finally {
      lock.exec('commit');
    }
  } finally {
    lock.close();
  }
}
