import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { STRONG_PASSWORD } from './helpers.js';
import { freePort, startServer, stopServer } from './processes.js';

// Runs once, on SQLite: it reads what a SQLite server loads at start-up.

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const RECORDER = new URL('./import-recorder.js', import.meta.url).href;

/** Libraries that load on first use (docs/decisions/lazy-libraries.md). */
const LOADED_ON_FIRST_USE = [
  ['the MCP SDK', '/node_modules/@modelcontextprotocol/sdk/'],
  ['the WebAuthn library', '/node_modules/@simplewebauthn/server/'],
  ['nodemailer', '/node_modules/nodemailer/'],
  ['the QR code encoder', '/node_modules/qrcode/'],
  ['the PostgreSQL driver', '/node_modules/pg/'],
  ['openid-client', '/node_modules/openid-client/'],
] as const;

function importedUrls(log: string): string[] {
  return readFileSync(log, 'utf8').split('\n').filter((line) => line !== '');
}

test('a SQLite server signing people in and serving sites never loads the libraries kept for rare features; the first use loads one', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-imports-'));
  const log = path.join(dataDir, 'imports.log');
  // Made by the CLI, as an operator would: a sign-up mails a confirmation link, which needs the mailer.
  const created = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'imports@example.com', '--password', STRONG_PASSWORD], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  assert.equal(created.status, 0, created.stderr);
  const port = await freePort();
  const server = await startServer(port, { DATA_DIR: dataDir, IMPORT_LOG: log }, ['--import', RECORDER]);
  try {
    const headers = { 'content-type': 'application/json' };
    const login = await fetch(`${server.base}/auth/login`, { method: 'POST', headers, body: JSON.stringify({ email: 'imports@example.com', password: STRONG_PASSWORD }) });
    assert.equal(login.status, 200);
    const { token } = (await login.json()) as { token: string };
    const bearer = { ...headers, authorization: `Bearer ${token}` };
    const site = await fetch(`${server.base}/api/v1/sites`, { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'Help centre' }) });
    assert.equal(site.status, 201);
    assert.equal((await fetch(`${server.base}/api/v1/sites`, { headers: bearer })).status, 200);
    assert.equal((await fetch(`${server.base}/sign-in`)).status, 200);

    const everyday = importedUrls(log);
    // The recorder sees packages at all: Fastify is imported at start-up.
    assert.ok(everyday.some((url) => url.includes('/node_modules/fastify/')), 'the recorder saw no Fastify import');
    for (const [name, marker] of LOADED_ON_FIRST_USE) {
      assert.deepEqual(everyday.filter((url) => url.includes(marker)), [], `${name} was loaded without being needed`);
    }

    // Starting TOTP setup draws a QR code: the encoder loads then, and the answer carries the code.
    const setup = await fetch(`${server.base}/api/v1/me/totp/setup`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal(setup.status, 200);
    assert.match(((await setup.json()) as { qr_svg: string }).qr_svg, /^<svg/);
    assert.ok(importedUrls(log).some((url) => url.includes('/node_modules/qrcode/')), 'TOTP setup did not load the QR code encoder');
  } finally {
    assert.equal(await stopServer(server), 0);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
