import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildTestAppWithOwner, createSite, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { AppError } from '../errors.js';
import { SecretBox } from '../lib/crypto.js';
import { SiteService } from '../sites/service.js';
import { SITE_FILE_FORMAT, SITE_FILE_FORMAT_VERSION, type SiteFileJson } from './format.js';
import { SiteFiles } from './service.js';

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));
const TOKEN = 'partner-secret-token-value-1234567890';

let t: TestApp;
let owner: SignedUpUser;
beforeEach(async () => ({ t, owner } = await buildTestAppWithOwner()));
afterEach(() => t.close());

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: cliEnvironment(), encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function cliEnvironment(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATA_DIR: t.dataDir };
  if (t.config.database.kind === 'postgres') env.DATABASE_URL = t.config.database.url;
  return env;
}

/**
 * Runs the CLI with its standard output read as a slow pipe reader does: each chunk is taken, then
 * reading pauses until the next turn of the event loop, so the pipe stays full and the CLI's
 * writes queue. With `closeAfterFirstChunk`, the reader goes away after the first chunk, as
 * `| head -1` does.
 */
function cliThroughSlowPipe(args: string[], options: { closeAfterFirstChunk?: boolean } = {}): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (options.closeAfterFirstChunk === true) {
      child.stdout.destroy();
      return;
    }
    child.stdout.pause();
    setImmediate(() => child.stdout.resume());
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks), stderr }));
  });
}

async function newWorkspace(name: string): Promise<string> {
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name } });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<{ workspace: { id: string } }>().workspace.id;
}

async function sitesOf(workspaceId: string): Promise<Array<Record<string, unknown>>> {
  const listed = await t.app.inject({ method: 'GET', url: `/api/v1/sites?workspace_id=${workspaceId}&limit=100`, headers: { authorization: owner.bearer } });
  assert.equal(listed.statusCode, 200, listed.body);
  const ids = listed.json<{ sites: Array<{ id: string }> }>().sites.map((site) => site.id);
  return Promise.all(ids.map(async (id) => (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: owner.bearer } })).json<{ site: Record<string, unknown> }>().site));
}

/** What an import reproduces: every field but the ids, times, public key and the partner token. */
function comparable(site: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, workspace_id: _workspace, public_key: _key, created_at: _created, updated_at: _updated, partner_settings: partner, ...rest } = site;
  const { access_token_configured: _configured, last_status: _status, last_error: _error, last_checked_at: _checked, ...settings } = partner as Record<string, unknown>;
  return { ...rest, partner_settings: settings };
}

test('export then import into an empty workspace reproduces every site, each as its first version via the command line; the token never leaves', async () => {
  const source = await newWorkspace('Source');
  await createSite(t.app, owner.bearer, {
    name: 'Help centre',
    workspace_id: source,
    color: '#0EA5E9',
    ai_settings: '{"model":"small"}',
    widget: '{"position":"left"}',
    partner_settings: { enabled: true, base_url: 'https://partner.example.com', project_id: 'p-1', collections: ['faq', 'docs'], access_token: TOKEN },
  });
  await createSite(t.app, owner.bearer, { name: 'Sales assistant', workspace_id: source, knowledge_sources: '{"urls":["https://example.com"]}' });
  await createSite(t.app, owner.bearer, { name: 'Ünïcode “quotes”', workspace_id: source });

  const file = path.join(t.dataDir, 'sites.json');
  const exported = await cli('export', '--workspace', source, '--to', file);
  assert.equal(exported.code, 0, exported.stderr);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes(TOKEN), 'the partner token is never exported');
  const parsed = JSON.parse(text) as { sites: Array<{ version: number }> };
  assert.equal(parsed.sites.length, 3);
  assert.ok(parsed.sites.every((site) => site.version === 1));
  assert.equal((await cli('export', '--workspace', source, '--to', file)).code, 1, 'an existing file is not overwritten');

  const target = await newWorkspace('Target');
  const dryRun = await cli('import', '--workspace', target, file, '--dry-run');
  assert.equal(dryRun.code, 0, dryRun.stderr);
  assert.equal(dryRun.stdout.split('\n').filter((line) => line.startsWith('create')).length, 3);
  assert.match(dryRun.stdout, /Dry run: nothing was changed/);
  assert.deepEqual(await sitesOf(target), []);

  const imported = await cli('import', '--workspace', target, file, '--json');
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(JSON.parse(imported.stdout).created.length, 3);
  const before = (await sitesOf(source)).map(comparable);
  const after = (await sitesOf(target)).map(comparable);
  assert.deepEqual(after.sort((a, b) => String(a.name).localeCompare(String(b.name))), before.sort((a, b) => String(a.name).localeCompare(String(b.name))));
  for (const site of await sitesOf(target)) {
    assert.equal((site.partner_settings as { access_token_configured: boolean }).access_token_configured, false);
    const versions = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${String(site.id)}/versions`, headers: { authorization: owner.bearer } })).json<{ versions: Array<{ version: number; via: { type: string } }> }>().versions;
    assert.deepEqual(versions.map((version) => [version.version, version.via.type]), [[1, 'cli']]);
  }

  // Imported again as exported: nothing differs, nothing is written.
  const again = await cli('import', '--workspace', source, file);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout.split('\n').filter((line) => line.startsWith('unchanged')).length, 3);
});

test('an import whose site changed since the export is refused whole, unless --force; a change is the next version', async () => {
  const workspace = await newWorkspace('Team');
  const site = await createSite(t.app, owner.bearer, { name: 'Help centre', workspace_id: workspace });
  const other = await createSite(t.app, owner.bearer, { name: 'Other', workspace_id: workspace });
  const file = path.join(t.dataDir, 'team.json');
  assert.equal((await cli('export', '--workspace', workspace, '--to', file)).code, 0);
  const edited = JSON.parse(readFileSync(file, 'utf8')) as { sites: Array<{ id: string; name: string; color: string }> };
  for (const entry of edited.sites) {
    if (entry.id === site.id) entry.name = 'Help centre (from the file)';
    if (entry.id === other.id) entry.color = '#123456';
  }
  writeFileSync(file, JSON.stringify(edited));
  // Someone changes the site meanwhile.
  const put = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer }, payload: { name: 'Help centre (edited in the dashboard)' } });
  assert.equal(put.statusCode, 200, put.body);

  const refused = await cli('import', '--workspace', workspace, file);
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, new RegExp(`conflict  ${site.id} .*version 2, the file has 1`));
  assert.match(refused.stderr, /changed since the export; nothing was changed/);
  const kept = await sitesOf(workspace);
  assert.equal(kept.find((each) => each.id === site.id)?.name, 'Help centre (edited in the dashboard)');
  assert.equal(kept.find((each) => each.id === other.id)?.color, '#4f46e5', 'nothing of the file was applied');

  const forced = await cli('import', '--workspace', workspace, file, '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /update    .*name/);
  const applied = await sitesOf(workspace);
  assert.equal(applied.find((each) => each.id === site.id)?.name, 'Help centre (from the file)');
  assert.equal(applied.find((each) => each.id === other.id)?.color, '#123456');
  const etag = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer } })).headers.etag;
  assert.equal(etag, '"3"');
});

test('a bad file is refused with the line or the field named, never a stack trace', async () => {
  const workspace = await newWorkspace('Team');
  const cases: Array<[string, RegExp]> = [
    ['{\n  "format": "siteward-sites",\n  "sites": [\n    {"name": "x",}\n  ]\n}', /is not JSON at line 4, column \d+/],
    [JSON.stringify({ format: 'siteward-sites', format_version: 1, workspace_id: workspace, exported_at: '', sites: [{ name: 42 }] }), /\/sites\/0\/name must be string/],
    [JSON.stringify({ format: 'siteward-sites', format_version: 1, workspace_id: workspace, exported_at: '', sites: [{ name: 'x', colour: 'red' }] }), /\/sites\/0\/colour is not a field of this file/],
    [JSON.stringify({ format: 'siteward-sites', format_version: 1, workspace_id: workspace, exported_at: '', sites: [{ color: '#ffffff' }] }), /\/sites\/0\/name: a site to create needs a name/],
    [JSON.stringify({ format: 'something-else', format_version: 1, workspace_id: workspace, exported_at: '', sites: [] }), /\/format must be equal to constant/],
    [JSON.stringify({ format: 'siteward-sites', format_version: 1, workspace_id: workspace, exported_at: '', sites: [{ name: 'x', color: 'not a colour' }] }), /color/],
  ];
  for (const [index, [text, expected]] of cases.entries()) {
    const file = path.join(t.dataDir, `bad-${index}.json`);
    writeFileSync(file, text);
    const answer = await cli('import', '--workspace', workspace, file);
    assert.equal(answer.code, 1, `${index}: ${answer.stdout}`);
    assert.match(answer.stderr, expected, `${index}`);
    assert.doesNotMatch(answer.stderr, /\n\s+at /, `${index}: no stack trace`);
  }
  assert.deepEqual(await sitesOf(workspace), [], 'nothing was created');
  assert.match((await cli('import', '--workspace', workspace, path.join(t.dataDir, 'missing.json'))).stderr, /cannot read .*ENOENT/);
  assert.match((await cli('export', '--workspace', '01900000-0000-7000-8000-000000000000')).stderr, /No workspace with the id/);
  assert.equal((await cli('import', '--workspace', workspace)).code, 2);
});

test('an import lands whole or not at all: a site that moved on between the plan and the writes undoes the sites already written', async () => {
  const workspace = await newWorkspace('Team');
  const site = await createSite(t.app, owner.bearer, { name: 'Help centre', workspace_id: workspace });
  const sites = new SiteService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, secrets: new SecretBox(t.config.encryptionKey), cache: t.cache });
  const files = new SiteFiles({ db: t.database.db, sites, clock: t.clock });
  const file: SiteFileJson = {
    format: SITE_FILE_FORMAT,
    format_version: SITE_FILE_FORMAT_VERSION,
    workspace_id: workspace,
    exported_at: t.clock.now().toISOString(),
    // Created first, then the update the moved site refuses.
    sites: [{ name: 'New from the file' }, { id: site.id, version: 1, name: 'Help centre (from the file)' }],
  };
  const steps = await files.plan(workspace, file, false);
  assert.deepEqual(steps.map((step) => step.kind), ['create', 'update']);
  const moved = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer }, payload: { color: '#123456' } });
  assert.equal(moved.statusCode, 200, moved.body);

  await assert.rejects(files.apply(workspace, steps, { bypassReview: false }), (error) => error instanceof AppError && error.status === 412);
  const after = await sitesOf(workspace);
  assert.deepEqual(after.map((each) => each.name), ['Help centre'], 'the site created first was rolled back with the refused update');
  const versions = await t.database.db.selectFrom('site_versions').select('site_id').execute();
  assert.deepEqual([...new Set(versions.map((row) => row.site_id))], [site.id], 'no version of the rolled-back site is left');
});

test('a file whose site breaks a rule of the API is refused before anything is written, the site and field named', async () => {
  const workspace = await newWorkspace('Team');
  const file = path.join(t.dataDir, 'blank.json');
  writeFileSync(file, JSON.stringify({ format: 'siteward-sites', format_version: 1, workspace_id: workspace, exported_at: '', sites: [{ name: 'Fine' }, { name: '   ' }] }));
  const refused = await cli('import', '--workspace', workspace, file, '--dry-run');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /\/sites\/1\/name: must not be blank/);
  assert.equal((await cli('import', '--workspace', workspace, file)).code, 1);
  assert.deepEqual(await sitesOf(workspace), []);
});

test('while the workspace requires review, an import is refused unless it bypasses review, and its versions say so', async () => {
  const workspace = await newWorkspace('Reviewed');
  const site = await createSite(t.app, owner.bearer, { name: 'Help centre', workspace_id: workspace });
  const policy = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspace}`, headers: { authorization: owner.bearer }, payload: { review: { required: true, approvals: 1 } } });
  assert.equal(policy.statusCode, 200, policy.body);
  const file = path.join(t.dataDir, 'reviewed.json');
  assert.equal((await cli('export', '--workspace', workspace, '--to', file)).code, 0);
  const edited = JSON.parse(readFileSync(file, 'utf8')) as { sites: Array<{ name: string }> };
  edited.sites.push({ name: 'Added by the file' });
  for (const entry of edited.sites) if (entry.name === 'Help centre') entry.name = 'Help centre (from the file)';
  writeFileSync(file, JSON.stringify(edited));

  const refused = await cli('import', '--workspace', workspace, file);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /requires review of changes.*--bypass-review/);
  assert.deepEqual((await sitesOf(workspace)).map((each) => each.name), ['Help centre'], 'nothing was changed');

  const bypassed = await cli('import', '--workspace', workspace, file, '--bypass-review', '--json');
  assert.equal(bypassed.code, 0, bypassed.stderr);
  const names = (await sitesOf(workspace)).map((each) => String(each.name)).sort();
  assert.deepEqual(names, ['Added by the file', 'Help centre (from the file)']);
  const versions = (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}/versions`, headers: { authorization: owner.bearer } })).json<{ versions: Array<{ version: number; via: { type: string; review_bypassed?: boolean } }> }>().versions;
  assert.equal(versions[0]?.version, 2);
  assert.equal(versions[0]?.via.type, 'cli');
  assert.equal(versions[0]?.via.review_bypassed, true);
});

/** A site file of `count` new sites, each with `settingsBytes` of text in each of its three settings. */
function siteFile(workspaceId: string, count: number, settingsBytes: number): string {
  const settings = JSON.stringify({ note: 'x'.repeat(Math.max(0, settingsBytes - 12)) });
  const sites = Array.from({ length: count }, (_, index) => ({ name: `Site ${index}`, ...(settingsBytes > 0 ? { ai_settings: settings, widget: settings, knowledge_sources: settings } : {}) }));
  return JSON.stringify({ format: SITE_FILE_FORMAT, format_version: SITE_FILE_FORMAT_VERSION, workspace_id: workspaceId, exported_at: new Date().toISOString(), sites });
}

test('an export of about 10 MB reaches a slow pipe reader in full, and the CLI exits 0 only then; a reader that goes away makes it fail', async () => {
  const workspace = await newWorkspace('Large');
  const file = path.join(t.dataDir, 'large.json');
  // 60 sites with three settings of 58 KB each: about 10 MB of export.
  writeFileSync(file, siteFile(workspace, 60, 58 * 1024));
  const imported = await cli('import', '--workspace', workspace, file);
  assert.equal(imported.code, 0, imported.stderr);

  const exported = await cliThroughSlowPipe(['export', '--workspace', workspace]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.ok(exported.stdout.length > 10_000_000, `${exported.stdout.length} bytes`);
  const parsed = JSON.parse(exported.stdout.toString('utf8')) as { sites: Array<{ ai_settings: string }> };
  assert.equal(parsed.sites.length, 60);
  assert.ok(parsed.sites.every((site) => site.ai_settings.length > 58_000));
  // What the same export writes to a file, but for its time: nothing cut short, nothing doubled.
  const copy = path.join(t.dataDir, 'copy.json');
  assert.equal((await cli('export', '--workspace', workspace, '--to', copy)).code, 0);
  const written = readFileSync(copy);
  assert.equal(exported.stdout.length, written.length);
  const withoutTime = (text: string) => text.replace(/"exported_at": "[^"]*"/, '');
  assert.ok(withoutTime(exported.stdout.toString('utf8')) === withoutTime(written.toString('utf8')), 'the same export');

  const closed = await cliThroughSlowPipe(['export', '--workspace', workspace], { closeAfterFirstChunk: true });
  assert.equal(closed.code, 1, closed.stderr);
  assert.match(closed.stderr, /^error: standard output closed before the output was written in full \(EPIPE\)\n$/);
});

test('a dry run of 10,000 sites prints every line through a slow pipe reader before it exits 0', async () => {
  const workspace = await newWorkspace('Many');
  const file = path.join(t.dataDir, 'many.json');
  writeFileSync(file, siteFile(workspace, 10_000, 0));
  const dryRun = await cliThroughSlowPipe(['import', '--workspace', workspace, file, '--dry-run']);
  assert.equal(dryRun.code, 0, dryRun.stderr);
  const lines = dryRun.stdout.toString('utf8').split('\n');
  assert.equal(lines.pop(), '', 'the output ends with a whole line');
  assert.equal(lines.length, 10_001);
  assert.equal(lines.filter((line) => line.startsWith('create    ')).length, 10_000);
  assert.equal(lines.at(-1), 'Dry run: nothing was changed.');
  assert.deepEqual(await sitesOf(workspace), []);
});
