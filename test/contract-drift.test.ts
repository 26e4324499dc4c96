import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The dashboard describes the API by the server's own definitions. These tests change a definition
// on the server in a copy of the sources and compile the dashboard against it: a server change the
// dashboard does not handle must fail `npm run typecheck`, not reach a browser.
const repository = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const tsc = path.join(repository, 'node_modules', 'typescript', 'bin', 'tsc');

let copy: string;

before(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'siteward-contract-'));
  for (const folder of ['src', 'web']) cpSync(path.join(repository, folder), path.join(copy, folder), { recursive: true });
  symlinkSync(path.join(repository, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

after(() => {
  rmSync(copy, { recursive: true, force: true });
});

function edit(file: string, from: string, to: string): void {
  const full = path.join(copy, file);
  const text = readFileSync(full, 'utf8');
  assert.ok(text.includes(from), `${file} no longer contains ${from}`);
  writeFileSync(full, text.replace(from, to));
}

function compileDashboard(): { ok: boolean; output: string } {
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(copy, 'web', 'tsconfig.json')], { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

test('the dashboard compiles against the server contract as it is', () => {
  const { ok, output } = compileDashboard();
  assert.ok(ok, output);
});

test('a partner auth type or an error code added on the server fails the dashboard until it handles it', () => {
  edit('src/sites/contract.ts', "export const AUTH_TYPES = ['none', 'bearer', 'token'] as const;", "export const AUTH_TYPES = ['none', 'bearer', 'token', 'basic'] as const;");
  edit('src/sites/errors.ts', "  SITE_NOT_FOUND: 'site_not_found',", "  SITE_NOT_FOUND: 'site_not_found',\n  SITE_ARCHIVED: 'site_archived',");
  const { ok, output } = compileDashboard();
  assert.equal(ok, false, 'the dashboard compiled against a contract it does not know');
  // Each change is caught where the dashboard would otherwise show nothing for it.
  assert.match(output, /web\/src\/components\/PartnerSettingsForm\.tsx.*basic/);
  assert.match(output, /web\/src\/errorMessages\.ts.*site_archived/);
});
