import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { STRONG_PASSWORD } from './helpers.js';
import { freePort, type RunningServer, startServer, stopServer } from './processes.js';

// Runs once, on SQLite: backups are SQLite's (PostgreSQL uses pg_dump), and the refusal of a PostgreSQL URL needs no server.

/**
 * `backup` and `restore` against a real server process on SQLite. Backups are SQLite's own (a
 * PostgreSQL deployment uses pg_dump), and the commands refuse a PostgreSQL DATABASE_URL.
 */
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
let dir: string;
let dataDir: string;
let env: Record<string, string>;
let server: RunningServer | undefined;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'siteward-backup-'));
  dataDir = path.join(dir, 'data');
  env = { DATA_DIR: dataDir, JWT_SECRET: randomBytes(32).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('base64') };
});

after(async () => {
  if (server !== undefined) await stopServer(server);
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env, ...extraEnv }, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function start(): Promise<RunningServer> {
  const port = await freePort();
  return startServer(port, { ...env, PUBLIC_URL: `http://localhost:${port}` });
}

/** Every table's rows as JSON text, sorted (some tables have no rowid to order by). */
function dump(file: string): Map<string, string[]> {
  const db = new SQLite(file, { readonly: true });
  try {
    const tables = (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as Array<{ name: string }>).map((row) => row.name);
    return new Map(tables.map((table) => [table, (db.prepare(`select * from "${table}"`).all() as unknown[]).map((row) => JSON.stringify(row)).sort()]));
  } finally {
    db.close();
  }
}

test('a backup taken while 200 writes run is consistent, restores only into a stopped DATA_DIR, and the restored database matches it row by row', { timeout: 120_000 }, async () => {
  server = await start();
  const base = server.base;
  const signedUp = await fetch(`${base}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'backup@example.com', password: STRONG_PASSWORD }) });
  const authorization = `Bearer ${((await signedUp.json()) as { token: string }).token}`;

  const backupFile = path.join(dir, 'during.db');
  const writes = Array.from({ length: 200 }, (_, index) =>
    fetch(`${base}/api/v1/sites`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Site ${index}` }) }).then((response) => response.status),
  );
  const backup = await cli(['backup', '--to', backupFile, '--json']);
  const statuses = await Promise.all(writes);
  assert.equal(backup.code, 0, backup.stderr);
  assert.deepEqual(new Set(statuses), new Set([201]));
  assert.equal(JSON.parse(backup.stdout).file, backupFile);
  assert.deepEqual(readdirSync(dir).filter((name) => name.includes('.partial-')), [], 'no partial file is left');

  const copied = dump(backupFile);
  const sites = copied.get('sites') ?? [];
  const versions = copied.get('site_versions') ?? [];
  // One moment's database: every site it holds has its first version and audit event, none half-written.
  assert.equal(versions.length, sites.length);
  assert.equal((copied.get('audit_events') ?? []).filter((row) => row.includes('"site.created"')).length, sites.length);
  const live = dump(path.join(dataDir, 'siteward.db'));
  const liveSites = new Set(live.get('sites'));
  assert.equal(liveSites.size, 200);
  for (const row of sites) assert.ok(liveSites.has(row), 'each site in the backup is the row the server wrote');

  assert.equal((await cli(['backup', '--to', backupFile])).code, 1, 'an existing file is not overwritten');

  const whileRunning = await cli(['restore', '--from', backupFile]);
  assert.equal(whileRunning.code, 1);
  assert.match(whileRunning.stderr, /a Siteward server is using .*stop every server first/);
  assert.doesNotMatch(whileRunning.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(dump(path.join(dataDir, 'siteward.db')).get('sites')?.length, 200, 'the refused restore changed nothing');

  await stopServer(server);
  server = undefined;
  const restored = await cli(['restore', '--from', backupFile, '--json']);
  assert.equal(restored.code, 0, restored.stderr);
  const previous = JSON.parse(restored.stdout).previous as string;
  assert.ok(existsSync(previous), 'the replaced database is kept');
  assert.deepEqual(dump(path.join(dataDir, 'siteward.db')), copied);

  // The restored database serves.
  server = await start();
  // A JWT names the server's origin, which moved with the port: sign in anew, with the restored account.
  const login = await fetch(`${server.base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'backup@example.com', password: STRONG_PASSWORD }) });
  assert.equal(login.status, 200);
  const listed = await fetch(`${server.base}/api/v1/sites?limit=100`, { headers: { authorization: `Bearer ${((await login.json()) as { token: string }).token}` } });
  assert.equal(listed.status, 200);
  assert.equal(((await listed.json()) as { sites: unknown[] }).sites.length, Math.min(sites.length, 100));
});

test('bad input: a file that is no database, a missing one, a missing option, and a PostgreSQL DATABASE_URL are each refused with a sentence', async () => {
  const junk = path.join(dir, 'junk.db');
  writeFileSync(junk, 'not a database at all, only text that is long enough to be read as a header');
  const notSqlite = await cli(['restore', '--from', junk]);
  assert.equal(notSqlite.code, 1);
  assert.match(notSqlite.stderr, /^error: .*junk\.db is not a SQLite database/);
  const missing = await cli(['restore', '--from', path.join(dir, 'nothing-here.db')]);
  assert.match(missing.stderr, /^error: there is no file at/);
  assert.equal((await cli(['backup'])).code, 2);
  const postgres = await cli(['backup', '--to', path.join(dir, 'pg.db')], { DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' });
  assert.equal(postgres.code, 1);
  assert.match(postgres.stderr, /pg_dump/);
  for (const answer of [notSqlite, missing, postgres]) assert.doesNotMatch(answer.stderr, /\n\s+at /);
});
