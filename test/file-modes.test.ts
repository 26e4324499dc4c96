import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { STRONG_PASSWORD } from './helpers.js';
import { freePort, type RunningServer, startServer, stopServer } from './processes.js';

// Runs once, on SQLite: the files whose modes it checks are SQLite's own.

/**
 * The modes of the files Siteward writes, as the real server process and CLI leave them on a SQLite
 * DATA_DIR. They hold
 * password hashes and encrypted secrets: owner-only (0600), under a umask of 022 that would
 * otherwise leave them readable by every account on the host.
 */
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
let dir: string;
let dataDir: string;
let env: Record<string, string>;
let server: RunningServer | undefined;

before(() => {
  // The usual umask, inherited by the processes started here: files are 0644 unless Siteward says otherwise.
  process.umask(0o022);
  dir = mkdtempSync(path.join(tmpdir(), 'siteward-modes-'));
  dataDir = path.join(dir, 'data');
  env = { DATA_DIR: dataDir };
});

after(async () => {
  if (server !== undefined) await stopServer(server);
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return stdout;
}

async function start(): Promise<RunningServer> {
  const port = await freePort();
  return startServer(port, { ...env, PUBLIC_URL: `http://localhost:${port}` });
}

function modeOf(file: string): string {
  return (statSync(file).mode & 0o777).toString(8);
}

/** What in DATA_DIR is not owner-only (files 0600, folders such as the outbox 0700), with its mode. */
function notOwnerOnly(): Array<[string, string]> {
  return readdirSync(dataDir, { withFileTypes: true })
    .map((entry): [string, string] => [entry.name, modeOf(path.join(dataDir, entry.name))])
    .filter(([name, mode]) => mode !== (statSync(path.join(dataDir, name)).isDirectory() ? '700' : '600'));
}

test('the database, its WAL and shared-memory files, the lock files, backups and exports are readable by their owner only', { timeout: 120_000 }, async () => {
  server = await start();
  // A write, so that the WAL holds something while the server runs.
  const signedUp = await fetch(`${server.base}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'modes@example.com', password: STRONG_PASSWORD }) });
  assert.equal(signedUp.status, 201, await signedUp.text());

  const database = path.join(dataDir, 'siteward.db');
  for (const file of [database, `${database}-wal`, `${database}-shm`]) assert.ok(existsSync(file), `${file} exists while the server runs`);
  assert.deepEqual(notOwnerOnly(), []);

  const backup = path.join(dir, 'backup.db');
  await cli(['backup', '--to', backup]);
  assert.equal(modeOf(backup), '600', 'a backup');
  const workspaces = JSON.parse(await cli(['workspaces:list', '--json'])) as { workspaces: Array<{ id: string }> };
  const exported = path.join(dir, 'export.json');
  await cli(['export', '--workspace', workspaces.workspaces[0]?.id ?? '', '--to', exported]);
  assert.equal(modeOf(exported), '600', 'an export');

  // Files an earlier version left readable are made owner-only when a server starts.
  await stopServer(server);
  server = undefined;
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) if (entry.isFile()) chmodSync(path.join(dataDir, entry.name), 0o644);
  server = await start();
  assert.deepEqual(notOwnerOnly(), []);

  // A restore writes the database anew.
  await stopServer(server);
  server = undefined;
  const restored = JSON.parse(await cli(['restore', '--from', backup, '--json'])) as { previous: string };
  assert.equal(modeOf(database), '600', 'the restored database');
  assert.equal(modeOf(restored.previous), '600', 'the database the restore replaced');
});
