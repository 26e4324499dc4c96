// The PUT ceiling: a bare node:http server that takes the put-site scenario's own requests, parses
// the body with JSON.parse and runs one prepared UPDATE … RETURNING in a transaction (and, with
// BENCH_SITE_HISTORY=1, the site's history row in the app's own history table), then answers the
// updated row as JSON. No framework, no authentication, no validation, no merge: what any PUT on
// this database must cost at least.
// Run as its own process by bench/run.ts:
//   BENCH_SQLITE_FILE=copy.db PORT=… node dist/bench/put-ceiling.js        (SQLite)
//   BENCH_POSTGRES_URL=postgres://… BENCH_POOL_SIZE=… PORT=… node dist/bench/put-ceiling.js
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/connect.js';

/** The columns a PUT may carry, each kept when the body leaves it out: one statement shape. */
const COLUMNS = ['name', 'color', 'ai_settings', 'email_settings', 'widget', 'portal', 'branding', 'public_theme', 'knowledge_sources', 'partner_settings'] as const;

/** The connection-level settings the app's own SQLite connection runs with (read from it, not restated). */
const SQLITE_PRAGMAS = ['journal_mode', 'synchronous', 'foreign_keys', 'busy_timeout', 'cache_size'] as const;

/**
 * The history row goes where the app keeps its own, with that table's key and foreign key: a PUT
 * that keeps history must write at least this (a table without the key could not list a site's
 * versions). The migrated schema is the app's; nothing is created here.
 */
const HISTORY_TABLE = 'site_versions';
/** What the row records of the change: nothing (the ceiling computes no diff), in the app's shape. */
const NO_CHANGES = JSON.stringify({ changes: [], restored_from: null });

type Row = Record<string, unknown>;

/** One PUT's work on the database: the updated row, or undefined when no site has that id. */
type UpdateSite = (id: string, values: Array<string | null>, updatedAt: string) => Promise<Row | undefined>;

function updateStatement(placeholder: (index: number) => string, returning: string): string {
  const set = COLUMNS.map((column, index) => `"${column}" = coalesce(${placeholder(index + 1)}, "${column}")`);
  const updatedAt = placeholder(COLUMNS.length + 1);
  const id = placeholder(COLUMNS.length + 2);
  return `update "sites" set ${set.join(', ')}, "version" = "version" + 1, "updated_at" = ${updatedAt} where "id" = ${id} returning ${returning}`;
}

function historyStatement(placeholder: (index: number) => string): string {
  return `insert into "${HISTORY_TABLE}" ("site_id", "version", "site", "created_at", "via_type", "changes") values (${placeholder(1)}, ${placeholder(2)}, ${placeholder(3)}, ${placeholder(4)}, 'system', '${NO_CHANGES}')`;
}

/** Opens the app's way first to learn its connection settings, then a bare connection with the same. */
async function sqliteUpdater(file: string, history: boolean): Promise<UpdateSite> {
  const app = openDatabase({ kind: 'sqlite', file });
  const settings: string[] = [];
  try {
    for (const pragma of SQLITE_PRAGMAS) {
      const result = await sql.raw<Row>(`pragma ${pragma}`).execute(app.db);
      const value = Object.values(result.rows[0] ?? {})[0];
      if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`pragma ${pragma} gave no value`);
      settings.push(`${pragma} = ${value}`);
    }
  } finally {
    await app.close();
  }
  const database = new SQLite(file);
  for (const setting of settings) database.pragma(setting);
  const update = database.prepare<unknown[], Row>(updateStatement(() => '?', '*'));
  const insertHistory = history ? database.prepare(historyStatement(() => '?')) : undefined;
  // IMMEDIATE, as the app begins its write transactions.
  const write = database.transaction((id: string, values: Array<string | null>, updatedAt: string) => {
    const row = update.get(...values, updatedAt, id);
    if (row !== undefined) insertHistory?.run(id, row.version, JSON.stringify(row), updatedAt);
    return row;
  });
  return (id, values, updatedAt) => Promise.resolve(write.immediate(id, values, updatedAt));
}

async function postgresUpdater(url: string, poolSize: number, history: boolean): Promise<UpdateSite> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // Named statements: each pool connection prepares them once, then only binds and executes.
  const update = { name: 'ceiling-site-update', text: updateStatement((index) => `$${index}`, '*') };
  const insertHistory = { name: 'ceiling-site-history', text: historyStatement((index) => `$${index}`) };
  return async (id, values, updatedAt) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await client.query<Row>({ ...update, values: [...values, updatedAt, id] });
      const row = result.rows[0];
      if (row !== undefined && history) await client.query({ ...insertHistory, values: [id, row.version, JSON.stringify(row), updatedAt] });
      await client.query('commit');
      return row;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
}

function columnValue(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function answer(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

async function handle(updateSite: UpdateSite, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const id = request.method === 'PUT' ? /^\/api\/v1\/sites\/([^/?]+)$/.exec(request.url ?? '')?.[1] : undefined;
  if (id === undefined) {
    request.resume();
    answer(response, 404, '{"code":"not_found"}');
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    answer(response, 400, '{"code":"invalid_json"}');
    return;
  }
  const fields = typeof body === 'object' && body !== null ? (body as Row) : {};
  const row = await updateSite(
    id,
    COLUMNS.map((column) => columnValue(fields[column])),
    new Date().toISOString(),
  );
  if (row === undefined) {
    answer(response, 404, '{"code":"site_not_found"}');
    return;
  }
  // The encrypted partner token never leaves the app either.
  const { partner_access_token: _token, ...site } = row;
  answer(response, 200, JSON.stringify(site));
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT);
  const sqliteFile = process.env.BENCH_SQLITE_FILE;
  const postgresUrl = process.env.BENCH_POSTGRES_URL;
  const history = process.env.BENCH_SITE_HISTORY === '1';
  const poolSize = Number(process.env.BENCH_POOL_SIZE);
  if (!Number.isInteger(port) || port <= 0 || (sqliteFile === undefined) === (postgresUrl === undefined) || (postgresUrl !== undefined && !(poolSize > 0))) {
    process.stderr.write('put-ceiling: set PORT and one of BENCH_SQLITE_FILE, BENCH_POSTGRES_URL (with BENCH_POOL_SIZE)\n');
    process.exit(2);
  }
  const updateSite =
    sqliteFile !== undefined ? await sqliteUpdater(sqliteFile, history) : await postgresUpdater(postgresUrl ?? '', poolSize, history);

  const server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.end('ok');
      return;
    }
    handle(updateSite, request, response).catch((error: unknown) => {
      process.stderr.write(`put-ceiling: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!response.headersSent) answer(response, 500, '{"code":"internal"}');
    });
  });
  const close = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
  // The benchmark holds our stdin open; when it goes away, so do we, even if it died without cleaning up.
  process.stdin.on('end', close).resume();
  server.listen(port, '127.0.0.1');
}

await main();
