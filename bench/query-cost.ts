// What one authenticated sites-list request costs in the database layer, in-process and without
// HTTP: Kysely as it was before session 2 (every query built, compiled and prepared anew), Kysely
// over a statement cache, the app's path now (prepared queries over the statement cache, see
// src/db/prepared-query.ts), and hand-prepared better-sqlite3 statements as the floor. Evidence
// for docs/performance.md. Usage: node dist/bench/query-cost.js [--iterations N]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { openDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema.js';
import { listSites } from '../src/sites/queries.js';
import { findUserById } from '../src/users/queries.js';
import { seedDatabase } from './seed.js';

/** better-sqlite3 behind Kysely, with each distinct SQL text prepared once and reused. */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql) as unknown as SqliteStatement;
        statements.set(sql, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  };
}

async function timeEach(label: string, iterations: number, once: (index: number) => Promise<unknown> | unknown): Promise<void> {
  for (let i = 0; i < Math.min(2000, iterations); i++) await once(i);
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await once(i);
  const micros = ((performance.now() - started) * 1000) / iterations;
  process.stdout.write(`| ${label} | ${micros.toFixed(1)} | ${Math.round(1e6 / micros)} |\n`);
}

async function main(): Promise<void> {
  const iterationsIndex = process.argv.indexOf('--iterations');
  const iterations = iterationsIndex === -1 ? 50_000 : Number(process.argv[iterationsIndex + 1]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siteward-query-cost-'));
  try {
    const file = path.join(dir, 'siteward.db');
    const handle = openDatabase({ kind: 'sqlite', file });
    await migrateToLatest(handle.db);
    const seed = await seedDatabase(handle.db, { users: 10_000, sitesPerUser: 3, tokens: 0 });
    const userIds = seed.users.map((user) => user.id);
    const userAt = (index: number) => userIds[index % userIds.length] ?? '';
    const listRequest = (db: Kysely<Database>) => async (index: number) => {
      const user = await findUserById(db, userAt(index));
      return listSites(db, { userId: user?.id ?? '', workspaceId: null, twoFactorMissingIn: new Set() }, undefined, 51, undefined);
    };

    process.stdout.write(`The database work of one GET /api/v1/sites (user by id, then the page), ${iterations} times over 10,000 users:\n\n`);
    process.stdout.write('| path | µs per request | requests/s, one core |\n|---|---:|---:|\n');
    const plainSqlite = new SQLite(file);
    plainSqlite.pragma('journal_mode = WAL');
    const plain = new Kysely<Database>({ dialect: new SqliteDialect({ database: plainSqlite }) });
    const pageOfSites = (db: Kysely<Database>, userId: string) => db.selectFrom('sites').selectAll().where('user_id', '=', userId).orderBy('id').limit(51).execute();
    const byId = (db: Kysely<Database>, id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    const builtEachTime = (db: Kysely<Database>) => async (index: number) => {
      const user = await byId(db, userAt(index));
      return pageOfSites(db, user?.id ?? '');
    };
    await timeEach('Kysely, built and prepared per query (before)', iterations, builtEachTime(plain));

    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    const cached = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    await timeEach('Kysely built per query, over a statement cache', iterations, builtEachTime(cached));
    await timeEach("the app's: prepared queries over the statement cache", iterations, listRequest(handle.db));

    const userById = sqlite.prepare('select * from "users" where "id" = ?');
    // "? + 0", as the app binds it: a bare "limit ?" makes SQLite re-prepare at every run (db/connect.ts).
    const page = sqlite.prepare('select * from "sites" where "user_id" = ? order by "id" limit ? + 0');
    await timeEach('better-sqlite3, statements prepared once', iterations, (index) => {
      userById.get(userAt(index));
      return page.all(userAt(index), 51);
    });
    await cached.destroy();
    await plain.destroy();
    await handle.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
