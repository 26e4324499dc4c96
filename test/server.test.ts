import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, test } from 'node:test';
import Database from 'better-sqlite3';
import { SecretBox } from '../src/lib/crypto.js';
import { STRONG_PASSWORD } from './helpers.js';
import { freePort, MAIN, type RunningServer, startServer as startProcess, stopServer } from './processes.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-server-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function startServer(port: number): Promise<RunningServer> {
  return startProcess(port, { DATA_DIR: dataDir });
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('a restart keeps JWTs, access tokens and encrypted secrets valid; SIGTERM closes cleanly', async () => {
  const port = await freePort();
  const first = await startServer(port);
  const headers = { 'content-type': 'application/json' };
  const signup = await json(`${first.base}/auth/signup`, { method: 'POST', headers, body: JSON.stringify({ email: 'restart@example.com', password: STRONG_PASSWORD }) });
  assert.equal(signup.status, 201);
  const bearer = `Bearer ${String(signup.body.token)}`;
  const pat = await json(`${first.base}/api/v1/access-tokens`, { method: 'POST', headers: { ...headers, authorization: bearer }, body: JSON.stringify({ name: 'kept' }) });
  const token = (pat.body.access_token as { token: string }).token;
  const created = await json(`${first.base}/api/v1/sites`, {
    method: 'POST',
    headers: { ...headers, authorization: bearer },
    body: JSON.stringify({ name: 'Kept', partner_settings: { access_token: 'partner-secret-survives' } }),
  });
  const siteId = (created.body.site as { id: string }).id;
  assert.equal(await stopServer(first), 0);
  assert.match(first.output(), /shutting down/);
  // Request lines are written in batches; a clean stop writes the last of them.
  assert.match(first.output(), /"method":"POST","url":"\/api\/v1\/sites","ip":"127\.0\.0\.1","status":201/);
  assert.ok(!first.output().includes('partner-secret-survives'));
  assert.ok(!first.output().includes(token));

  const second = await startServer(port);
  try {
    const withJwt = await json(`${second.base}/api/v1/sites/${siteId}`, { headers: { authorization: bearer } });
    assert.equal(withJwt.status, 200);
    assert.equal((withJwt.body.site as { partner_settings: { access_token_configured: boolean } }).partner_settings.access_token_configured, true);
    const withToken = await json(`${second.base}/api/v1/sites`, { headers: { authorization: `Token ${token}` } });
    assert.equal(withToken.status, 200);
  } finally {
    assert.equal(await stopServer(second), 0);
  }

  // The key kept in DATA_DIR still opens the stored partner token.
  const key = Buffer.from(readFileSync(path.join(dataDir, 'encryption-key'), 'utf8').trim(), 'base64');
  const db = new Database(path.join(dataDir, 'siteward.db'), { readonly: true });
  const row = db.prepare('select partner_access_token from sites where id = ?').get(siteId) as { partner_access_token: string };
  db.close();
  assert.equal(new SecretBox(key).decrypt(row.partner_access_token, `site:${siteId}:partner_access_token`), 'partner-secret-survives');
});

test('a bad configuration value stops start-up with one line naming the variable', () => {
  const result = spawnSync(process.execPath, [MAIN], { env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: 'eighty' }, encoding: 'utf8' });
  assert.equal(result.status, 1);
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.match(result.stderr, /PORT must be a whole number/);
});

test('the CLI creates and lists users, and refuses a duplicate', () => {
  const env = { PATH: process.env.PATH, DATA_DIR: dataDir };
  const created = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'Admin@Example.com', '--password', STRONG_PASSWORD, '--name', 'Admin', '--json'], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  assert.equal(JSON.parse(created.stdout).user.email, 'admin@example.com');
  const duplicate = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'admin@example.com', '--password', STRONG_PASSWORD], { env, encoding: 'utf8' });
  assert.equal(duplicate.status, 1);
  assert.match(duplicate.stderr, /already exists/);
  const listed = spawnSync(process.execPath, [CLI, 'users:list', '--json'], { env, encoding: 'utf8' });
  assert.equal(listed.status, 0);
  assert.deepEqual(JSON.parse(listed.stdout).users.map((user: { email: string }) => user.email), ['admin@example.com']);
  const usage = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'x@example.com'], { env, encoding: 'utf8' });
  assert.equal(usage.status, 2);
  const help = spawnSync(process.execPath, [CLI, '--help'], { env, encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: npm run cli -- <command>/);
  assert.equal(help.stderr, '');
  // The same password policy as sign-up, the account's own address and name included.
  const weak = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'ops@example.com', '--password', 'ops@example.com', '--name', 'Ops'], { env, encoding: 'utf8' });
  assert.equal(weak.status, 1);
  assert.match(weak.stderr, /\/password: must not be built from your e-mail address/);
  const named = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'ops@example.com', '--password', 'Operator-2026', '--name', 'Operator'], { env, encoding: 'utf8' });
  assert.equal(named.status, 1);
  assert.match(named.stderr, /must not be built from your name/);
});

test('the CLI lists workspaces and adds a member; it refuses an unknown user, workspace or role', () => {
  const env = { PATH: process.env.PATH, DATA_DIR: dataDir };
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
  for (const email of ['owner@example.com', 'helper@example.com']) assert.equal(cli('users:create', '--email', email, '--password', STRONG_PASSWORD).status, 0);
  const listed = cli('workspaces:list', '--json');
  assert.equal(listed.status, 0, listed.stderr);
  const workspaces = JSON.parse(listed.stdout).workspaces as Array<{ id: string; name: string; personal_of: string | null; members: number }>;
  assert.deepEqual(workspaces.map((workspace) => [workspace.name, workspace.personal_of, workspace.members]).sort(), [
    ['Personal', 'helper@example.com', 1],
    ['Personal', 'owner@example.com', 1],
  ]);
  const target = workspaces.find((workspace) => workspace.personal_of === 'owner@example.com')?.id ?? '';

  const added = cli('workspaces:add-member', '--workspace', target, '--email', 'Helper@Example.com', '--role', 'editor', '--json');
  assert.equal(added.status, 0, added.stderr);
  assert.equal(JSON.parse(added.stdout).added, true);
  const again = cli('workspaces:add-member', '--workspace', target, '--email', 'helper@example.com', '--role', 'owner');
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /already a member .*role unchanged/);
  const members = new Database(path.join(dataDir, 'siteward.db'), { readonly: true });
  try {
    const rows = members.prepare('select role from workspace_members where workspace_id = ? order by role').all(target);
    assert.deepEqual(rows, [{ role: 'editor' }, { role: 'owner' }]);
  } finally {
    members.close();
  }
  assert.match(cli('workspaces:list').stdout, /Personal {2}personal: owner@example.com {2}2 member\(s\)/);

  const unknownUser = cli('workspaces:add-member', '--workspace', target, '--email', 'nobody@example.com', '--role', 'viewer');
  assert.equal(unknownUser.status, 1);
  assert.match(unknownUser.stderr, /no user with the e-mail address nobody@example.com/);
  const unknownWorkspace = cli('workspaces:add-member', '--workspace', 'no-such-workspace', '--email', 'helper@example.com', '--role', 'viewer');
  assert.equal(unknownWorkspace.status, 1);
  assert.match(unknownWorkspace.stderr, /No workspace with this id/);
  assert.equal(cli('workspaces:add-member', '--workspace', target, '--email', 'helper@example.com', '--role', 'superuser').status, 2);
  assert.equal(cli('workspaces:add-member', '--workspace', target, '--role', 'viewer').status, 2);
});

test("the README's curl walkthrough runs as written against a real server", async () => {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('## Walkthrough with curl'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(script !== undefined, 'the walkthrough has a sh block');
  const port = await freePort();
  const running = await startServer(port);
  try {
    const result = spawnSync('bash', ['-e', '-c', `${script.replace('BASE=http://localhost:3000', `BASE=http://localhost:${port}`).replaceAll('cookies.txt', path.join(dataDir, 'cookies.txt'))}\necho "SITE=$SITE"`], {
      encoding: 'utf8',
      cwd: path.dirname(README),
      env: { ...process.env, DATA_DIR: dataDir },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /"access_token_configured":true/);
    assert.match(result.stdout, /"name":"Help centre \(EU\)"/);
    assert.ok(!result.stdout.includes('<ACCESS_TOKEN>'), 'the partner token is never echoed');
    assert.match(result.stdout, /SITE=[0-9a-f-]{36}/);
    assert.match(result.stdout, /\{"sites":\[\{"id":"[0-9a-f-]{36}","workspace_id":"[0-9a-f-]{36}","name":"Team portal"/, "the team workspace's list shows its site first");
    assert.match(result.stdout, /\}true\n/, 'the mailed link confirms the address');
    assert.match(result.stdout, /200\n303 http:\/\/localhost:\d+\/\n/, 'the link page answers; the POST signs in and redirects to the app');
    assert.match(result.stdout, /"email":"ada@example.com"/);
    assert.match(result.stdout, /204\n401\n/, 'sign out everywhere revokes the JWT');
    assert.match(result.stdout, /otp_required\n200\n/, 'with 2FA on, login needs a code; a recovery code serves');
  } finally {
    await stopServer(running);
  }
});
