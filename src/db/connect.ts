import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type LogEvent,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase,
  SqliteDriver,
  type SqliteStatement,
  type SelectQueryBuilder,
  type RawBuilder,
  sql,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { type ChangeFeed, SqliteChangeFeed } from '../cache/change-feed.js';
import { type ChangeFeedLog, PostgresChangeFeed } from '../cache/postgres-change-feed.js';
import type { DatabaseConfig } from '../config.js';
import { namedStatementClient } from './named-statements.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** How the cache learns of changes other processes commit (src/cache/change-feed.ts); the caller closes it. */
  openChangeFeed(log: ChangeFeedLog): ChangeFeed;
  /** Runs `work` while no other process migrates this database. */
  withMigrationLock<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Told the SQL text of every query run: tests count the queries a path makes. */
  onQuery?: (sql: string) => void;
}

/**
 * Opens the configured database. Every difference between SQLite and PostgreSQL lives in this
 * file; the query code above it is the same for both.
 */
export function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): DatabaseHandle {
  const onQuery = options.onQuery;
  const log = onQuery === undefined ? {} : { log: (event: LogEvent) => onQuery(event.query.sql) };
  if (config.kind === 'sqlite') {
    const sqlite = new SQLite(config.file);
    // WAL lets readers proceed during a write; NORMAL sync is durable across process crashes.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // A smaller page cache per connection than better-sqlite3 builds SQLite with: pages missing
    // here come from the operating system's file cache at a pread each, which costs no
    // throughput, and the process's memory stays flat (docs/performance.md, "Memory").
    sqlite.pragma('cache_size = -4000');
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: new StatementCachingSqlite(sqlite, SQLITE_STATEMENT_CACHE_SIZE) }), ...log });
    // data_version changes when another connection commits, never for this one's own commits. It
    // reads the WAL index in shared memory: about a microsecond, no disk access. Inside a write
    // transaction of this connection it reads the transaction's start, and while that lasts no
    // other connection can commit, so it is current there too.
    const dataVersion = sqlite.prepare('pragma data_version').pluck();
    const openChangeFeed = () => new SqliteChangeFeed(() => dataVersion.get() as number);
    return { db, dialect: 'sqlite', openChangeFeed, withMigrationLock: (work) => withSqliteFileLock(`${config.file}-migration-lock`, work), close: () => db.destroy() };
  }

  // The driver is loaded when the first query needs a connection, so a SQLite process never holds
  // it (docs/decisions.md, "Rarely used libraries load on first use").
  const connect = async () => {
    const { default: pg } = await import('pg');
    // BIGINT columns hold epoch milliseconds, well inside a double's exact range: read them as numbers.
    pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
    const pool = new pg.Pool({ connectionString: config.url, max: config.poolSize, Client: namedStatementClient(pg.Client) });
    // A client losing its connection (a database restart) must not crash the process: the pool
    // reports idle ones, and a client in use reports it both to its query, which fails, and as an
    // 'error' event, which with no listener would be thrown.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    return pool;
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: connect }), ...log });
  // Kysely's migrator holds a transaction-scoped advisory lock on PostgreSQL already.
  return {
    db,
    dialect: 'postgres',
    openChangeFeed: (log) => new PostgresChangeFeed({ url: config.url, log }),
    withMigrationLock: (work) => work(),
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
 * Distinct SQL texts kept prepared per SQLite connection. The service issues a few dozen; the
 * bound keeps memory flat should some query ever vary its text (an IN list of varying length).
 */
export const SQLITE_STATEMENT_CACHE_SIZE = 200;

/**
 * better-sqlite3 behind Kysely, with each distinct SQL text prepared once and reused (least
 * recently used dropped past `capacity`). Kysely's driver prepares every query anew, which cost
 * more than running the hot queries (docs/performance.md). Reuse is safe because Kysely's SQLite driver
 * runs one query at a time on its single connection (a mutex), so no statement is ever asked to
 * run while it is still running; SQLite re-prepares a statement by itself after a schema change.
 * Parameters are bound anew on every run: a reused statement carries no value from one query to
 * the next.
 */
export class StatementCachingSqlite implements SqliteDatabase {
  readonly #statements: LRUCache<string, SqliteStatement>;

  constructor(
    private readonly sqlite: SQLite.Database,
    capacity: number,
  ) {
    this.#statements = new LRUCache({ max: capacity });
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** How many statements are kept: for the test of the bound. */
  get size(): number {
    return this.#statements.size;
  }

  close(): void {
    this.#statements.clear();
    this.sqlite.close();
  }
}

/**
 * SQLite transactions that take the write lock when they begin. Ours all read and then write; a
 * deferred transaction in another process holding a read lock at that moment would make the
 * upgrade fail at once with SQLITE_BUSY (the busy timeout cannot help a would-be deadlock). Begun
 * IMMEDIATE, a second writer waits its turn instead: two processes may share one database file.
 *
 * Callers also take turns for the single connection in a queue, first come first served. Kysely's
 * own wait wakes every waiter each time the connection is released, and all but one go back to
 * waiting, so each hand-over cost more the more requests were queued (docs/decisions.md, "Stack
 * details"). Queued here, only the next caller wakes, and Kysely's wait is never contended.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #turns = pLimit(1);
  /** Ends the current holder's turn; set while someone holds the connection. */
  #endTurn: (() => void) | undefined;

  override async acquireConnection(): Promise<DatabaseConnection> {
    let endTurn!: () => void;
    const turn = new Promise<void>((resolve) => (endTurn = resolve));
    await new Promise<void>((started) => {
      void this.#turns(() => {
        started();
        return turn;
      });
    });
    try {
      const connection = await super.acquireConnection();
      this.#endTurn = endTurn;
      return connection;
    } catch (error) {
      endTurn();
      throw error;
    }
  }

  override async releaseConnection(): Promise<void> {
    const endTurn = this.#endTurn;
    this.#endTurn = undefined;
    await super.releaseConnection();
    endTurn?.();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];

  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/**
 * A lock across processes for SQLite, where Kysely's migrator runs without a transaction (SQLite
 * DDL is not transactional there) and takes no lock: two servers starting together on one file
 * would both create the tables. An IMMEDIATE transaction on a separate lock file is held while
 * the work runs; the other process waits in its busy handler.
 */
async function withSqliteFileLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
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
