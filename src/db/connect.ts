import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SelectQueryBuilder } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

/**
 * Opens the configured database. Every difference between SQLite and PostgreSQL lives in this
 * file; the query code above it is the same for both.
 */
export function openDatabase(config: DatabaseConfig): DatabaseHandle {
  if (config.kind === 'sqlite') {
    const sqlite = new SQLite(config.file);
    // WAL lets readers proceed during a write; NORMAL sync is durable across process crashes.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }

  // BIGINT columns hold epoch milliseconds, well inside a double's exact range: read them as numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const pool = new pg.Pool({ connectionString: config.url, max: config.poolSize });
  // An idle client losing its connection (a database restart) must not crash the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
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
