import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type LogEvent,
  type OperationNode,
  PostgresDialect,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase,
  SqliteDriver,
  type SqliteStatement,
  type SelectQueryBuilder,
  type RawBuilder,
  sql,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pLimit, { type LimitFunction } from 'p-limit';
import { type ChangeFeed, SqliteChangeFeed } from '../cache/change-feed.js';
import { type ChangeFeedLog, PostgresChangeFeed } from '../cache/postgres-change-feed.js';
import type { DatabaseConfig } from '../config.js';
import { namedStatementClient } from './named-statements.js';
import { ownerOnlySqliteFile } from './owner-only-files.js';
import type { Database } from './schema.js';
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

/** Connections to the database at one moment. */
export interface ConnectionUse {
  /** The most the process opens (PostgreSQL: POOL_SIZE; SQLite: 2, one that writes and one that reads). */
  max: number;
  /** Open and running a caller's queries or transaction. */
  inUse: number;
  /** Open and free. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /**
   * Seconds connections have been held by callers since the process started, summed over
   * connections (when timed; else 0): its rate over `max` is how busy the connections are, which
   * a sampled count of those in use misses on SQLite, whose queries finish between two samples.
   */
  heldSeconds: number;
}

export interface DatabaseUsage {
  connections(): ConnectionUse;
  /** Whether queries are timed (the database was opened with `timeQueries`). */
  readonly timed: boolean;
  /** Told each query's statement family and time in seconds, when timed; set by whoever reports it. */
  onQueryTime: ((family: StatementFamily, seconds: number) => void) | undefined;
}

/**
 * What a query is, in words of bounded number: its operation, and the table it reads from or
 * writes to as written in the code (never its SQL text or values). Raw SQL (sql`…`) is `raw`.
 */
export interface StatementFamily {
  operation: 'select' | 'insert' | 'update' | 'delete' | 'merge' | 'raw' | 'other';
  table: string;
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
 * file; the query code above it is the same for both.
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
    // throughput, and the process's memory stays flat (docs/performance.md, "Memory").
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
  // it (docs/decisions.md, "Rarely used libraries load on first use").
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
 * waiting, so each hand-over cost more the more requests were queued (docs/decisions.md, "Stack
 * details"). Queued here, only the next caller wakes, and Kysely's wait is never contended. The
 * turn is taken at a caller's first statement that needs the writer, so a plain read takes none.
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

class ImmediateSqliteDialect extends SqliteDialect {
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

/** The time connections are held by callers, summed; kept only when queries are timed. */
class ConnectionHolds {
  readonly #since = new WeakMap<object, number>();
  #total = 0;

  constructor(private readonly enabled: boolean) {}

  acquired(connection: object): void {
    if (this.enabled) this.#since.set(connection, performance.now());
  }

  released(connection: object): void {
    if (!this.enabled) return;
    const since = this.#since.get(connection);
    if (since === undefined) return;
    this.#since.delete(connection);
    this.#total += performance.now() - since;
  }

  /** Seconds held by callers so far, over the holds that have ended. */
  get seconds(): number {
    return this.#total / 1000;
  }
}

/** Families by query tree: a prepared query's tree is one object for every run, so it is read once. */
const families = new WeakMap<OperationNode, StatementFamily>();

/** The statement family of a query Kysely compiled (its operation node tree). */
export function statementFamily(node: OperationNode): StatementFamily {
  let family = families.get(node);
  if (family === undefined) {
    family = familyOf(node);
    families.set(node, family);
  }
  return family;
}

function familyOf(node: OperationNode): StatementFamily {
  const fields = node as unknown as Record<string, unknown>;
  switch (node.kind) {
    case 'SelectQueryNode':
      return { operation: 'select', table: tableName((fields.from as { froms?: unknown[] } | undefined)?.froms?.[0]) };
    case 'InsertQueryNode':
      return { operation: 'insert', table: tableName(fields.into) };
    case 'UpdateQueryNode':
      return { operation: 'update', table: tableName(fields.table) };
    case 'DeleteQueryNode':
      return { operation: 'delete', table: tableName((fields.from as { froms?: unknown[] } | undefined)?.froms?.[0]) };
    case 'MergeQueryNode':
      return { operation: 'merge', table: tableName(fields.into) };
    case 'RawNode':
      return { operation: 'raw', table: 'none' };
    default:
      return { operation: 'other', table: 'none' };
  }
}

/** A table's name as the code writes it (under an alias too); anything else (a subquery) is `none`. */
function tableName(node: unknown): string {
  const unaliased = (node as { kind?: string; node?: unknown } | undefined)?.kind === 'AliasNode' ? (node as { node?: unknown }).node : node;
  const table = unaliased as { kind?: string; table?: { identifier?: { name?: unknown } } } | undefined;
  const name = table?.kind === 'TableNode' ? table.table?.identifier?.name : undefined;
  // Names come from the code, never from input; the pattern keeps a label's values plain regardless.
  return typeof name === 'string' && /^[a-z_][a-z0-9_]{0,62}$/.test(name) ? name : 'none';
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
