import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { STRONG_PASSWORD } from './helpers.js';
import { freePort, startServer, stopServer } from './processes.js';
import { until } from './wait.js';

// A restart of PostgreSQL takes seconds: the waits for it are long, and look less often.
const RESTART_WAIT = { timeoutMs: 30_000, intervalMs: 100 };

const POSTGRES_SCRIPT = fileURLToPath(new URL('../../scripts/ci/postgres.sh', import.meta.url));

function postgres(action: 'start' | 'stop', dir: string, port?: number): string {
  return execFileSync('bash', [POSTGRES_SCRIPT, action, dir, ...(port === undefined ? [] : [String(port)])], { encoding: 'utf8' }).trim();
}

async function readyStatus(base: string): Promise<number> {
  return (await fetch(`${base}/readyz`)).status;
}

test('a PostgreSQL restart under load: readiness reports it, the service recovers by itself, no acknowledged write is lost', async () => {
  // A server of the test's own, so that it can be stopped and started again.
  const pgDir = mkdtempSync(path.join(tmpdir(), 'siteward-pg-restart-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-restart-'));
  const pgPort = await freePort();
  const databaseUrl = postgres('start', pgDir, pgPort);
  const port = await freePort();
  const server = await startServer(port, { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PUBLIC_URL: `http://localhost:${port}` });
  try {
    const signup = await fetch(`${server.base}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'restart@example.com', password: STRONG_PASSWORD }),
    });
    const authorization = `Bearer ${((await signup.json()) as { token: string }).token}`;

    const acknowledged: string[] = [];
    const failures = new Map<number, number>();
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const name = `write-${i}`;
        try {
          const response = await fetch(`${server.base}/api/v1/sites`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization },
            body: JSON.stringify({ name }),
          });
          if (response.status === 201) acknowledged.push(name);
          else failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
          await response.arrayBuffer();
        } catch {
          failures.set(0, (failures.get(0) ?? 0) + 1);
        }
      }
    })();

    await until(async () => acknowledged.length >= 20, 'writes before the restart', RESTART_WAIT);
    postgres('stop', pgDir);
    await until(async () => (await readyStatus(server.base)) === 503, 'readiness to report the lost database', RESTART_WAIT);
    const duringOutage = acknowledged.length;
    postgres('start', pgDir, pgPort);
    await until(async () => (await readyStatus(server.base)) === 200, 'readiness to recover', RESTART_WAIT);
    await until(async () => acknowledged.length >= duringOutage + 20, 'writes after the restart', RESTART_WAIT);
    writing = false;
    await writer;

    // While the database was away, requests failed cleanly: 503, never another error or a dropped connection.
    assert.deepEqual([...failures.keys()].filter((status) => status !== 503), [], JSON.stringify([...failures]));
    const stored = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: Response = await fetch(`${server.base}/api/v1/sites?limit=100${cursor === null ? '' : `&cursor=${cursor}`}`, { headers: { authorization } });
      const body = (await page.json()) as { sites: Array<{ name: string }>; next_cursor: string | null };
      for (const site of body.sites) stored.add(site.name);
      cursor = body.next_cursor;
    } while (cursor !== null);
    const lost = acknowledged.filter((name) => !stored.has(name));
    assert.deepEqual(lost, [], 'every acknowledged write is stored');
    assert.ok(server.process.exitCode === null, 'the server never exited');
  } finally {
    await stopServer(server);
    postgres('stop', pgDir);
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});
