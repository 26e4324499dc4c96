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

test('a route whose answer changes fails the dashboard once the build regenerates its client', () => {
  // A copy of its own: the server is compiled and the client generated from it, as `npm run build` does.
  const build = mkdtempSync(path.join(tmpdir(), 'siteward-contract-build-'));
  try {
    for (const folder of ['src', 'web', 'scripts']) cpSync(path.join(repository, folder), path.join(build, folder), { recursive: true, filter: (source) => !source.includes(`${path.sep}node_modules`) });
    symlinkSync(path.join(repository, 'node_modules'), path.join(build, 'node_modules'), 'dir');
    cpSync(path.join(repository, 'package.json'), path.join(build, 'package.json'));
    const config = JSON.parse(readFileSync(path.join(repository, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { include: string[] };
    writeFileSync(path.join(build, 'tsconfig.json'), JSON.stringify({ ...config, include: ['src'] }));
    const file = path.join(build, 'src', 'access-tokens', 'schema.ts');
    const text = readFileSync(file, 'utf8');
    const listed = 'Type.Object({ access_tokens: Type.Array(AccessTokenSchema) })';
    assert.ok(text.includes(listed), `src/access-tokens/schema.ts no longer contains ${listed}`);
    writeFileSync(file, text.replace(listed, 'Type.Object({ tokens: Type.Array(AccessTokenSchema) })'));
    // The server's own handler now disagrees with its schema; tsc still writes the JavaScript, and only the schema matters here.
    spawnSync(process.execPath, [tsc, '-p', path.join(build, 'tsconfig.json')], { encoding: 'utf8' });
    const generated = spawnSync(process.execPath, [path.join(build, 'scripts', 'generate-api-client.mjs')], { encoding: 'utf8' });
    assert.equal(generated.status, 0, `${generated.stdout}${generated.stderr}`);
    assert.match(readFileSync(path.join(build, 'web', 'src', 'api', 'schema.d.ts'), 'utf8'), /tokens: components|tokens: \{/);
    const dashboard = spawnSync(process.execPath, [tsc, '-p', path.join(build, 'web', 'tsconfig.json')], { encoding: 'utf8' });
    assert.notEqual(dashboard.status, 0, 'the dashboard compiled against an answer it does not read');
    assert.match(`${dashboard.stdout}${dashboard.stderr}`, /web\/src\/api\/accessTokens\.ts.*access_tokens/);
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
});
