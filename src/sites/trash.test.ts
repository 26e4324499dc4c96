import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import type { AuditEventJson } from '../audit/schema.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';
import { pruneStaleRows } from '../maintenance/prune.js';
import { WorkspaceService } from '../workspaces/service.js';
import { SITE_ERRORS } from './errors.js';
import type { SiteJson, SiteVersionJson, TrashEntryJson } from './schema.js';

// The trash on SQLite and (with TEST_DATABASE_URL) PostgreSQL: deleting keeps a site restorable,
// with its history and partner token, for TRASH_RETENTION_DAYS; then the clean-up purges it.

const DAY_MS = 24 * 60 * 60 * 1000;
const PARTNER_TOKEN = 'trash-partner-token-value';

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
  json: Record<string, unknown>;
}

async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, authorization: string, payload?: unknown): Promise<Answer> {
  const response = await t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });
  const json = response.body === '' ? {} : (JSON.parse(response.body) as Record<string, unknown>);
  return { status: response.statusCode, headers: response.headers, body: response.body, json };
}

async function trash(user: SignedUpUser | { bearer: string }, query = ''): Promise<{ sites: TrashEntryJson[]; next_cursor: string | null }> {
  const answer = await call('GET', `/api/v1/trash${query}`, user.bearer);
  assert.equal(answer.status, 200, answer.body);
  return answer.json as unknown as { sites: TrashEntryJson[]; next_cursor: string | null };
}

async function teamWorkspace(owner: SignedUpUser, name = 'Team'): Promise<string> {
  const created = await call('POST', '/api/v1/workspaces', owner.bearer, { name });
  assert.equal(created.status, 201, created.body);
  return (created.json.workspace as { id: string }).id;
}

test('deleting moves a site to the trash: gone from every read, listed with who and when, and restored as it was with its history and token', async () => {
  const owner = await signUp(t.app);
  const workspace = await teamWorkspace(owner);
  const site = await createSite(t.app, owner.bearer, { name: 'Help desk', workspace_id: workspace, partner_settings: { base_url: 'https://partner.example', access_token: PARTNER_TOKEN } });
  assert.equal((await call('PUT', `/api/v1/sites/${site.id}`, owner.bearer, { widget: '{"position":"left"}' })).status, 200);

  const deletedAt = t.clock.now().toISOString();
  assert.equal((await call('DELETE', `/api/v1/sites/${site.id}`, owner.bearer)).status, 204);

  assert.equal((await call('GET', `/api/v1/sites/${site.id}`, owner.bearer)).status, 404);
  assert.equal((await call('PUT', `/api/v1/sites/${site.id}`, owner.bearer, { name: 'Edited in the trash' })).status, 404);
  assert.equal((await call('GET', `/api/v1/sites/${site.id}/versions`, owner.bearer)).status, 404);
  assert.equal((await call('DELETE', `/api/v1/sites/${site.id}`, owner.bearer)).status, 404, 'a trashed site is not deleted twice');
  const listed = await call('GET', `/api/v1/sites?workspace_id=${workspace}`, owner.bearer);
  assert.deepEqual(listed.json.sites, []);

  const { sites: entries, next_cursor } = await trash(owner);
  assert.equal(next_cursor, null);
  assert.equal(entries.length, 1);
  const entry = entries[0];
  assert.ok(entry !== undefined);
  assert.equal(entry.site.id, site.id);
  assert.equal(entry.site.widget, '{"position":"left"}');
  assert.equal(entry.site.partner_settings.access_token_configured, true);
  assert.equal(entry.deleted_at, deletedAt);
  assert.deepEqual(entry.deleted_by, { id: owner.id, email: owner.email, name: '' });
  assert.equal(entry.purge_at, new Date(Date.parse(deletedAt) + 30 * DAY_MS).toISOString());

  const restored = await call('POST', `/api/v1/trash/${site.id}/restore`, owner.bearer);
  assert.equal(restored.status, 200, restored.body);
  const back = (restored.json as { site: SiteJson }).site;
  assert.equal(back.name, 'Help desk');
  assert.equal(back.widget, '{"position":"left"}');
  assert.equal(back.partner_settings.access_token_configured, true);
  assert.equal(restored.headers.etag, '"2"', 'the same version as before: nothing in it changed');
  assert.deepEqual((await trash(owner)).sites, []);
  assert.equal((await call('GET', `/api/v1/sites/${site.id}`, owner.bearer)).status, 200);
  const versions = (await call('GET', `/api/v1/sites/${site.id}/versions`, owner.bearer)).json.versions as SiteVersionJson[];
  assert.deepEqual(versions.map((version) => version.version), [2, 1], 'the history came back with the site');
  assert.equal((await call('POST', `/api/v1/trash/${site.id}/restore`, owner.bearer)).status, 404, 'a live site is not in the trash');

  const log = await call('GET', `/api/v1/workspaces/${workspace}/audit-log?limit=10`, owner.bearer);
  const events = (log.json.events as AuditEventJson[]).map((event) => [event.action, event.details]);
  assert.deepEqual(events.slice(0, 2), [
    ['site.restored', { version: 2, from: 'trash' }],
    ['site.deleted', {}],
  ]);
  for (const body of [JSON.stringify(entries), restored.body, log.body]) assert.ok(!body.includes(PARTNER_TOKEN));
});

test('the trash shows only the caller’s workspaces, and only admins and owners restore; others get 404 as for a site they cannot see', async () => {
  const owner = await signUp(t.app);
  const editor = await signUp(t.app);
  const stranger = await signUp(t.app);
  const workspace = await teamWorkspace(owner);
  await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspace, editor.id, 'editor');
  const site = await createSite(t.app, owner.bearer, { name: 'Shared', workspace_id: workspace });
  const strangers = await createSite(t.app, stranger.bearer, { name: 'Theirs' });
  assert.equal((await call('DELETE', `/api/v1/sites/${site.id}`, owner.bearer)).status, 204);
  assert.equal((await call('DELETE', `/api/v1/sites/${strangers.id}`, stranger.bearer)).status, 204);

  assert.deepEqual((await trash(editor)).sites.map((entry) => entry.site.id), [site.id], 'members see their workspace’s trash');
  assert.deepEqual((await trash(stranger)).sites.map((entry) => entry.site.id), [strangers.id]);
  assert.equal((await call('GET', `/api/v1/trash?workspace_id=${workspace}`, stranger.bearer)).status, 404);

  const byEditor = await call('POST', `/api/v1/trash/${site.id}/restore`, editor.bearer);
  assert.equal(byEditor.status, 403, byEditor.body);
  const byStranger = await call('POST', `/api/v1/trash/${site.id}/restore`, stranger.bearer);
  assert.equal(byStranger.status, 404, byStranger.body);
  assert.equal(byStranger.json.code, SITE_ERRORS.SITE_NOT_FOUND);

  // A token limited to the personal workspace neither sees nor restores the team's trash.
  const limited = await call('POST', '/api/v1/access-tokens', owner.bearer, { name: 'personal only', workspace_id: await personalWorkspace(owner) });
  assert.equal(limited.status, 201, limited.body);
  const header = `Token ${(limited.json.access_token as { token: string }).token}`;
  assert.deepEqual((await trash({ bearer: header })).sites, []);
  assert.equal((await call('POST', `/api/v1/trash/${site.id}/restore`, header)).status, 404);
  assert.equal((await trash(owner)).sites.length, 1, 'nothing refused was restored');
});

async function personalWorkspace(user: SignedUpUser): Promise<string> {
  const answer = await call('GET', '/api/v1/workspaces', user.bearer);
  const workspaces = answer.json.workspaces as Array<{ id: string; personal: boolean }>;
  const personal = workspaces.find((workspace) => workspace.personal);
  assert.ok(personal !== undefined, answer.body);
  return personal.id;
}

test('five restores of one site at once: one brings it back, the others find nothing to restore', async () => {
  const owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Raced' });
  assert.equal((await call('DELETE', `/api/v1/sites/${site.id}`, owner.bearer)).status, 204);

  const answers = await Promise.all(Array.from({ length: 5 }, () => call('POST', `/api/v1/trash/${site.id}/restore`, owner.bearer)));
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 404, 404, 404, 404]);
  const restoredEvents = await t.database.db.selectFrom('audit_events').select('id').where('action', '=', 'site.restored').execute();
  assert.equal(restoredEvents.length, 1);
});

test('the trash pages most recently deleted first, without gaps or repeats, and refuses a bad cursor or limit', async () => {
  const owner = await signUp(t.app);
  const ids: string[] = [];
  for (let index = 0; index < 5; index++) {
    const site = await createSite(t.app, owner.bearer, { name: `Site ${index}` });
    assert.equal((await call('DELETE', `/api/v1/sites/${site.id}`, owner.bearer)).status, 204);
    ids.push(site.id);
    // Two deletions share a moment: the id orders them.
    if (index !== 2) t.clock.advance(1000);
  }
  const seen: string[] = [];
  let query = '?limit=2';
  for (let page = 0; page < 5; page++) {
    const answer = await trash(owner, query);
    seen.push(...answer.sites.map((entry) => entry.site.id));
    if (answer.next_cursor === null) break;
    query = `?limit=2&cursor=${answer.next_cursor}`;
  }
  assert.equal(seen.length, 5);
  assert.deepEqual(new Set(seen), new Set(ids));
  assert.deepEqual(seen.slice(0, 2), [ids[4], ids[3]]);

  for (const bad of ['?cursor=not-a-cursor', `?cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`, '?limit=0', '?limit=101', '?limit=two', '?colour=red']) {
    const answer = await call('GET', `/api/v1/trash${bad}`, owner.bearer);
    assert.equal(answer.status, 400, `${bad}: ${answer.body}`);
    assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8');
  }
});

test('the clean-up purges sites trashed longer than TRASH_RETENTION_DAYS with their history, and keeps the rest', async () => {
  const owner = await signUp(t.app);
  const old = await createSite(t.app, owner.bearer, { name: 'Old' });
  const recent = await createSite(t.app, owner.bearer, { name: 'Recent' });
  const live = await createSite(t.app, owner.bearer, { name: 'Live' });
  assert.equal((await call('DELETE', `/api/v1/sites/${old.id}`, owner.bearer)).status, 204);
  t.clock.advance(5 * DAY_MS);
  // Less than the JWT's 7 days since sign-in.
  assert.equal((await call('DELETE', `/api/v1/sites/${recent.id}`, owner.bearer)).status, 204);
  const limiter = new RateLimiter(t.database.db, t.clock);

  t.clock.advance(26 * DAY_MS);
  await pruneStaleRows(t.database.db, limiter, t.clock, { auditDays: 365, trashDays: 30 });

  const rows = await t.database.db.selectFrom('sites').select('id').where('id', 'in', [old.id, recent.id, live.id]).execute();
  assert.deepEqual(new Set(rows.map((row) => row.id)), new Set([recent.id, live.id]));
  const versions = await t.database.db.selectFrom('site_versions').select('site_id').distinct().where('site_id', 'in', [old.id, recent.id, live.id]).execute();
  assert.deepEqual(new Set(versions.map((row) => row.site_id)), new Set([recent.id, live.id]), 'the purged site’s history went with it');
  // The audit log outlives the site: its deletion is still on record.
  const deleted = await t.database.db.selectFrom('audit_events').select('target_id').where('action', '=', 'site.deleted').execute();
  assert.deepEqual(new Set(deleted.map((row) => row.target_id)), new Set([old.id, recent.id]));
});
