import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import type { LimitFunction } from 'p-limit';
import type { ConnectionHolds } from './usage.js';

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
 * How long a statement waits for another process's write lock before it fails with SQLITE_BUSY:
 * SQLite's busy_timeout, kept by the driver, which waits between attempts without holding the
 * event loop.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * SQLite with two connections: plain reads (a select outside a transaction) on one, everything
 * else on the other, which writes.
 *
 * Transactions take the write lock when they begin. Ours all read and then write; a deferred
 * transaction in another process holding a read lock at that moment would make the upgrade fail
 * at once with SQLITE_BUSY (the busy timeout cannot help a would-be deadlock). Begun IMMEDIATE, a
 * second writer waits its turn instead: two processes may share one database file. A statement
 * that finds another process holding the write lock is tried again after a pause, up to
 * SQLITE_BUSY_TIMEOUT_MS: the wait is the caller's alone, the event loop and the reads go on.
 *
 * Callers take turns for the writing connection in a queue, first come first served. Kysely's
 * own wait wakes every waiter each time the connection is released, and all but one go back to
 * waiting, so each hand-over cost more the more requests were queued
 * (docs/decisions/sqlite-write-queue.md). Queued here, only the next caller wakes, and Kysely's
 * wait is never contended. The turn is taken at a caller's first statement that needs the
 * writer, so a plain read takes none.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #turns: LimitFunction;
  readonly #holds: ConnectionHolds;
  readonly #reader: StatementCachingSqlite;
  /** Ends the current holder's turn; set while someone holds the writing connection. */
  #endTurn: (() => void) | undefined;

  constructor(config: SqliteDialectConfig, turns: LimitFunction, holds: ConnectionHolds, reader: StatementCachingSqlite) {
    super(config);
    this.#turns = turns;
    this.#holds = holds;
    this.#reader = reader;
  }

  override acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(new SqliteSession(this, this.#reader, this.#holds));
  }

  /** Waits for this caller's turn with the writing connection, and takes it. */
  async takeWriter(): Promise<DatabaseConnection> {
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
      // One writing connection: the driver stands for it.
      this.#holds.acquired(this);
      return connection;
    } catch (error) {
      endTurn();
      throw error;
    }
  }

  override async releaseConnection(connection?: DatabaseConnection): Promise<void> {
    if (!(connection instanceof SqliteSession) || !connection.release()) return;
    const endTurn = this.#endTurn;
    this.#endTurn = undefined;
    this.#holds.released(this);
    await super.releaseConnection();
    endTurn?.();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof SqliteSession) connection.inTransaction = true;
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    if (connection instanceof SqliteSession) connection.inTransaction = false;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await super.rollbackTransaction(connection);
    if (connection instanceof SqliteSession) connection.inTransaction = false;
  }

  override async destroy(): Promise<void> {
    this.#reader.close();
    await super.destroy();
  }
}

/**
 * What Kysely holds as "the connection" between acquiring and releasing it: a plain read goes to
 * the reading connection at once; anything else (a write, a transaction and all in it, raw SQL)
 * takes the writing connection, which is kept until Kysely releases the session.
 */
class SqliteSession implements DatabaseConnection {
  inTransaction = false;
  #writer: DatabaseConnection | undefined;

  constructor(
    private readonly driver: ImmediateSqliteDriver,
    private readonly reader: StatementCachingSqlite,
    private readonly holds: ConnectionHolds,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#writer === undefined && !this.inTransaction && SelectQueryNode.is(query.query)) {
      return retryWhileBusy(() => this.#read<R>(query));
    }
    const writer = await this.#takeWriter();
    return retryWhileBusy(() => writer.executeQuery<R>(query));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const writer = await this.#takeWriter();
    yield* writer.streamQuery<R>(query, chunkSize);
  }

  /** Forgets the writing connection; whether this session held it (and its turn must end). */
  release(): boolean {
    const held = this.#writer !== undefined;
    this.#writer = undefined;
    this.inTransaction = false;
    return held;
  }

  async #takeWriter(): Promise<DatabaseConnection> {
    this.#writer ??= await this.driver.takeWriter();
    return this.#writer;
  }

  /** Runs at once on the reading connection: better-sqlite3 is synchronous, nothing interleaves. */
  #read<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.holds.acquired(this);
    try {
      return Promise.resolve({ rows: this.reader.prepare(query.sql).all(query.parameters) as R[] });
    } finally {
      this.holds.released(this);
    }
  }
}

/**
 * Runs `attempt` again while SQLite answers SQLITE_BUSY (another process holds the lock), pausing
 * between attempts, until SQLITE_BUSY_TIMEOUT_MS have passed. A statement that failed BUSY did
 * nothing, so trying it again is safe, inside a transaction too (COMMIT included).
 */
async function retryWhileBusy<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + SQLITE_BUSY_TIMEOUT_MS;
  let pauseMs = 1;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error) || performance.now() + pauseMs > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    pauseMs = Math.min(pauseMs * 2, 50);
  }
}

function isBusy(error: unknown): boolean {
  return error instanceof SQLite.SqliteError && error.code.startsWith('SQLITE_BUSY');
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #turns: LimitFunction;
  readonly #holds: ConnectionHolds;
  readonly #reader: StatementCachingSqlite;

  constructor(config: SqliteDialectConfig, turns: LimitFunction, holds: ConnectionHolds, reader: StatementCachingSqlite) {
    super(config);
    this.#config = config;
    this.#turns = turns;
    this.#holds = holds;
    this.#reader = reader;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#turns, this.#holds, this.#reader);
  }
}
