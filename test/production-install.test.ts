import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { until } from './wait.js';

// The production install README describes: build, `npm prune --omit=dev`, serve. A copy of the
// built tree is pruned, so no compiler, bundler or test tool is left, and `npm start` must serve
// without them.
const repository = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const copy = mkdtempSync(path.join(tmpdir(), 'siteward-production-'));
let server: ChildProcess | undefined;

after(async () => {
  const running = server;
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    // npm, its shell and the server are one process group (detached below): stop them all.
    const exited = once(running, 'exit');
    process.kill(-running.pid, 'SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(resolve, 15_000, false))]);
    if (!stopped) process.kill(-running.pid, 'SIGKILL');
  }
  rmSync(copy, { recursive: true, force: true });
});

async function portFreeNow(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

test('a production install (run-time packages only, no compiler) starts with npm start and serves', async () => {
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'dist', 'scripts', 'src', 'test', 'bench', 'e2e', 'web']) {
    cpSync(path.join(repository, entry), path.join(copy, entry), { recursive: true, filter: (source) => !source.includes(`${path.sep}node_modules`) });
  }
  // The installed packages, hard-linked (prune only removes), less npm's own record of them, which
  // prune rewrites: it must not write through a link into this tree's.
  spawnSync('cp', ['-al', path.join(repository, 'node_modules'), path.join(copy, 'node_modules')]);
  rmSync(path.join(copy, 'node_modules', '.package-lock.json'));
  const prune = spawnSync('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: copy, encoding: 'utf8' });
  assert.equal(prune.status, 0, prune.stderr);
  for (const buildTool of ['typescript', 'vite', 'vitest', 'playwright-core', 'react']) {
    assert.ok(!existsSync(path.join(copy, 'node_modules', buildTool)), `${buildTool} is a build or test tool, not a run-time package`);
  }
  // better-sqlite3 runs from the module its package ships: nothing was compiled.
  assert.ok(!existsSync(path.join(copy, 'node_modules', 'better-sqlite3', 'build')));

  const dataDir = path.join(copy, 'data');
  const port = await portFreeNow();
  server = spawn('npm', ['start', '--silent'], {
    cwd: copy,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const address = await until(
    () => {
      if (server?.exitCode !== null) throw new Error(`npm start exited with ${server?.exitCode}:\n${output}`);
      return output.includes('Siteward is serving') ? `http://127.0.0.1:${port}` : undefined;
    },
    'the server to serve',
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  // No build ran: the tree was built, and the build's tools are not installed.
  assert.doesNotMatch(output, /tsc|vite/);
  const ready = await fetch(new URL('/readyz', address));
  assert.equal(ready.status, 200);
  const page = await fetch(new URL('/sign-in', address));
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<script/);
});
