import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createAccessToken, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { WorkspaceService } from '../workspaces/service.js';
import { SITE_ERRORS } from './errors.js';
import type { SiteJson, SiteVersionJson } from './schema.js';
import { DEFAULT_COLOR } from './defaults.js';
import { applyChanges, type PathChange, type SiteFields } from './site-merge.js';

// The site history on SQLite and (with TEST_DATABASE_URL) PostgreSQL: a version per change with
// who and how, none for a refused change, concurrent changes that compose, restores, and no secret.

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, authorization: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await t.app.inject({ method, url, headers: { authorization, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: response.statusCode, headers: response.headers, body: response.body };
}

async function history(user: SignedUpUser | { bearer: string }, siteId: string, query = '?limit=100'): Promise<SiteVersionJson[]> {
  const answer = await call('GET', `/api/v1/sites/${siteId}/versions${query}`, user.bearer);
  assert.equal(answer.status, 200, answer.body);
  return (JSON.parse(answer.body) as { versions: SiteVersionJson[] }).versions;
}

async function put(authorization: string, siteId: string, payload: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call('PUT', `/api/v1/sites/${siteId}`, authorization, payload, headers);
}

/** Applies a version's changes to a site's fields, as a reader replaying the history would. */
/** A version's changes laid over the fields they were made from, as the merge lays a change request's. */
function apply(fields: SiteFields, version: SiteVersionJson): SiteFields {
  return applyChanges(fields, version.changes.filter((change): change is PathChange => !('change' in change)));
}

test('each create and update leaves a version with who, which credential, and what changed', async () => {
  const owner = await signUp(t.app);
  const token = await createAccessToken(t.app, owner);
  const site = await createSite(t.app, owner.bearer, { name: 'Help desk', ai_settings: '{"model":"small"}' });
  assert.equal((await put(token.header, site.id, { name: 'Help desk 2', color: '#ABCDEF', partner_settings: { base_url: 'https://partner.example' } })).status, 200);

  const [second, first] = await history(owner, site.id);
  assert.equal(first?.version, 1);
  assert.deepEqual(first?.via, { type: 'jwt' });
  assert.deepEqual(first?.actor, { id: owner.id, email: owner.email, name: '' });
  assert.deepEqual(first?.changes, [
    { path: '/name', before: '', after: 'Help desk' },
    { path: '/ai_settings', before: '', after: '{"model":"small"}' },
  ]);
  assert.equal(second?.version, 2);
  assert.deepEqual(second?.via, { type: 'access_token', access_token: { id: token.id, name: 'test token' } });
  assert.deepEqual(second?.changes, [
    { path: '/name', before: 'Help desk', after: 'Help desk 2' },
    { path: '/color', before: DEFAULT_COLOR, after: '#abcdef' },
    { path: '/partner_settings/base_url', before: '', after: 'https://partner.example' },
  ]);
  assert.equal(second?.restored_from, null);
  assert.equal(second?.site, undefined, 'the list leaves the snapshots out');

  const one = await call('GET', `/api/v1/sites/${site.id}/versions/1`, owner.bearer);
  assert.equal(one.status, 200, one.body);
  const { version } = JSON.parse(one.body) as { version: SiteVersionJson };
  assert.equal(version.site?.name, 'Help desk');
  assert.equal(version.site?.ai_settings, '{"model":"small"}');
});

test('restoring a version whose partner URLs point elsewhere clears the token, and says so', async () => {
  const owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Moved' });
  assert.equal((await put(owner.bearer, site.id, { partner_settings: { base_url: 'https://partner.example', access_token: 'bound-to-partner-example' } })).status, 200);

  const restored = await call('POST', `/api/v1/sites/${site.id}/versions/1/restore`, owner.bearer);
  assert.equal(restored.status, 200, restored.body);
  const answer = JSON.parse(restored.body) as { site: SiteJson; partner_access_token: string };
  assert.equal(answer.partner_access_token, 'cleared');
  assert.equal(answer.site.partner_settings.base_url, '');
  assert.equal(answer.site.partner_settings.access_token_configured, false);
  const [latest] = await history(owner, site.id);
  assert.deepEqual(latest?.changes.at(-1), { path: '/partner_settings/access_token', change: 'cleared' });
});

test('a refused or failed change writes no version', async () => {
  const owner = await signUp(t.app);
  const viewer = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Help desk' });
  const workspaceId = String(site.workspace_id);
  await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspaceId, viewer.id, 'viewer');

  assert.equal((await put(owner.bearer, site.id, { color: 'blue' })).status, 400);
  assert.equal((await put(owner.bearer, site.id, { name: 'Late' }, { 'if-match': '"7"' })).status, 412);
  assert.equal((await put(viewer.bearer, site.id, { name: 'Mine' })).status, 403);
  assert.equal((await call('POST', `/api/v1/sites/${site.id}/versions/1/restore`, viewer.bearer)).status, 403);
  assert.equal((await call('POST', `/api/v1/sites/${site.id}/versions/9/restore`, owner.bearer)).status, 404);
  assert.deepEqual((await history(owner, site.id)).map((version) => version.version), [1]);
});

test('ten concurrent updates leave ten consecutive versions whose changes compose into the site', async () => {
  const owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Busy' });
  const fields = ['ai_settings', 'email_settings', 'widget', 'portal', 'branding', 'public_theme', 'knowledge_sources'];
  const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => put(owner.bearer, site.id, { [fields[index % fields.length] ?? 'widget']: `{"writer":${index}}`, name: `Writer ${index}` })));
  assert.deepEqual(answers.map((answer) => answer.status), Array<number>(10).fill(200));

  const versions = (await history(owner, site.id)).reverse();
  assert.deepEqual(versions.map((version) => version.version), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  let replayed: SiteFields = { name: '', color: DEFAULT_COLOR, ai_settings: '', email_settings: '', widget: '', portal: '', branding: '', public_theme: '', knowledge_sources: '', partner_settings: {} };
  for (const version of versions) replayed = apply(replayed, version);
  // The groups rewritten after their first version changed setting by setting: /widget/writer.
  assert.ok(versions.some((version) => version.changes.some((change) => /^\/[a-z_]+\/writer$/.test(change.path))));
  const current = JSON.parse((await call('GET', `/api/v1/sites/${site.id}`, owner.bearer)).body) as { site: SiteJson };
  for (const field of ['name', ...fields] as const) assert.equal(replayed[field as keyof SiteFields], current.site[field as keyof SiteJson], field);
});

test('restoring a version brings its fields back as a new version, keeps the partner token, and honours If-Match', async () => {
  const owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Original', widget: '{"position":"left"}', partner_settings: { base_url: 'https://partner.example', access_token: 'first-secret-value' } });
  assert.equal((await put(owner.bearer, site.id, { name: 'Broken', widget: '{"position":"right"}', partner_settings: { access_token: 'second-secret-value' } })).status, 200);
  // Two editors at once after that: the restore sees the latest of them.
  await Promise.all([put(owner.bearer, site.id, { portal: '{"a":1}' }), put(owner.bearer, site.id, { branding: '{"b":2}' })]);

  const stale = await call('POST', `/api/v1/sites/${site.id}/versions/1/restore`, owner.bearer, undefined, { 'if-match': '"2"' });
  assert.equal(stale.status, 412, stale.body);
  const restored = await call('POST', `/api/v1/sites/${site.id}/versions/1/restore`, owner.bearer, undefined, { 'if-match': '"4"' });
  assert.equal(restored.status, 200, restored.body);
  assert.equal(restored.headers.etag, '"5"');
  const answer = JSON.parse(restored.body) as { site: SiteJson; restored_from: number; partner_access_token: string };
  assert.equal(answer.site.name, 'Original');
  assert.equal(answer.site.widget, '{"position":"left"}');
  assert.equal(answer.site.portal, '', 'a field set after the restored version goes back to its value then');
  assert.equal(answer.restored_from, 1);
  assert.equal(answer.partner_access_token, 'kept');
  assert.equal(answer.site.partner_settings.access_token_configured, true);

  const [latest] = await history(owner, site.id);
  assert.equal(latest?.version, 5);
  assert.equal(latest?.restored_from, 1);
  assert.ok(latest?.changes.some((change) => change.path === '/name'));
  assert.ok(!latest?.changes.some((change) => change.path === '/partner_settings/access_token'), 'the token is not restored');
});

test('a non-member sees no history, an access token for another workspace neither, and bad numbers are refused', async () => {
  const owner = await signUp(t.app);
  const stranger = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Private' });
  for (const url of [`/api/v1/sites/${site.id}/versions`, `/api/v1/sites/${site.id}/versions/1`]) {
    const answer = await call('GET', url, stranger.bearer);
    assert.equal(answer.status, 404, answer.body);
    assert.equal((JSON.parse(answer.body) as { code: string }).code, SITE_ERRORS.SITE_NOT_FOUND);
  }
  const restore = await call('POST', `/api/v1/sites/${site.id}/versions/1/restore`, stranger.bearer);
  assert.equal(restore.status, 404);
  const team = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Other' } });
  const limited = await t.app.inject({ method: 'POST', url: '/api/v1/access-tokens', headers: { authorization: owner.bearer }, payload: { name: 'other only', workspace_id: team.json<{ workspace: { id: string } }>().workspace.id } });
  assert.equal(limited.statusCode, 201, limited.body);
  assert.equal((await call('GET', `/api/v1/sites/${site.id}/versions`, `Token ${limited.json<{ access_token: { token: string } }>().access_token.token}`)).status, 404);

  const missing = await call('GET', `/api/v1/sites/${site.id}/versions/2`, owner.bearer);
  assert.equal(missing.status, 404);
  assert.equal((JSON.parse(missing.body) as { code: string }).code, SITE_ERRORS.VERSION_NOT_FOUND);
  for (const url of [`/api/v1/sites/${site.id}/versions/0`, `/api/v1/sites/${site.id}/versions/one`, `/api/v1/sites/${site.id}/versions?cursor=abc`, `/api/v1/sites/${site.id}/versions?limit=0`]) {
    assert.equal((await call('GET', url, owner.bearer)).status, 400, url);
  }
});

test('pages of the history follow each other by cursor', async () => {
  const owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Paged' });
  for (let index = 0; index < 4; index++) assert.equal((await put(owner.bearer, site.id, { name: `Paged ${index}` })).status, 200);
  const first = JSON.parse((await call('GET', `/api/v1/sites/${site.id}/versions?limit=2`, owner.bearer)).body) as { versions: SiteVersionJson[]; next_cursor: string | null };
  assert.deepEqual(first.versions.map((version) => version.version), [5, 4]);
  assert.equal(first.next_cursor, '4');
  const rest = await history(owner, site.id, `?limit=10&cursor=${first.next_cursor ?? ''}`);
  assert.deepEqual(rest.map((version) => version.version), [3, 2, 1]);
});

test('no version, answer or database page holds the partner token or its ciphertext', async () => {
  const owner = await signUp(t.app);
  const secret = 'partner-secret-that-must-not-leak';
  const site = await createSite(t.app, owner.bearer, { name: 'Secretive', partner_settings: { access_token: secret } });
  assert.equal((await put(owner.bearer, site.id, { partner_settings: { access_token: `${secret}-2` } })).status, 200);
  assert.equal((await put(owner.bearer, site.id, { partner_settings: { access_token: null } })).status, 200);
  assert.equal((await put(owner.bearer, site.id, { partner_settings: { access_token: secret } })).status, 200);
  const versions = await history(owner, site.id);
  assert.deepEqual(
    versions.map((version) => version.changes.filter((change) => change.path === '/partner_settings/access_token')),
    [[{ path: '/partner_settings/access_token', change: 'set' }], [{ path: '/partner_settings/access_token', change: 'cleared' }], [{ path: '/partner_settings/access_token', change: 'replaced' }], [{ path: '/partner_settings/access_token', change: 'set' }]],
  );
  const answers = [JSON.stringify(versions)];
  for (const version of versions) answers.push((await call('GET', `/api/v1/sites/${site.id}/versions/${version.version}`, owner.bearer)).body);
  const rows = JSON.stringify(await t.database.db.selectFrom('site_versions').selectAll().execute());
  const { partner_access_token: ciphertext } = await t.database.db.selectFrom('sites').select('partner_access_token').where('id', '=', site.id).executeTakeFirstOrThrow();
  assert.ok(ciphertext !== null);
  for (const text of [...answers, rows]) {
    assert.ok(!text.includes(secret), 'no token value');
    assert.ok(!text.includes(ciphertext), 'no ciphertext');
  }
  if (t.config.database.kind === 'sqlite') {
    // Written through to the file, so the file is what is searched.
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(t.database.db);
    const file = readFileSync(path.join(t.dataDir, 'siteward.db'));
    assert.equal(file.includes(secret), false, 'the database file holds no token value');
  }
});
