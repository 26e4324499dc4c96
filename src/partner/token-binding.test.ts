import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import type { Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely';
import { buildTestApp, createAccessToken, createPostgresDatabase, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { startRedirectServer, startServer, startStatelessMcpServer, startStatusServer, type TestServer } from '../../test/partner-servers.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connect.js';
import * as initial from '../db/migrations/001-initial.js';
import * as webSignIn from '../db/migrations/002-web-sign-in.js';
import * as twoFactor from '../db/migrations/003-two-factor.js';
import * as passkeys from '../db/migrations/004-passkeys.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { SecretBox } from '../lib/crypto.js';
import { siteChangeTags } from '../sites/writes.js';

// The partner access token is bound to the origins of base_url and mcp_url it was saved with: a
// change of either origin clears it, and no check sends it anywhere else. Real partner servers on
// loopback record the Authorization headers they receive.

const TOKEN = 'partner-secret-7c41d09e22ab';

let t: TestApp | undefined;
const servers: TestServer[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await t?.close();
  t = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(): Promise<{ app: TestApp; owner: SignedUpUser }> {
  t = await buildTestApp({ env: { PARTNER_ALLOW_PRIVATE_NETWORKS: 'true' } });
  return { app: t, owner: await signUp(t.app) };
}

async function serve(server: Promise<TestServer>): Promise<TestServer> {
  const started = await server;
  servers.push(started);
  return started;
}

interface PartnerJson {
  access_token_configured: boolean;
  last_status: string;
  last_error: string | null;
  [field: string]: unknown;
}

async function put(app: TestApp, authorization: string, siteId: string, payload: unknown, headers: Record<string, string> = {}) {
  const response = await app.app.inject({ method: 'PUT', url: `/api/v1/sites/${siteId}`, headers: { authorization, ...headers }, payload: payload as object });
  return { response, partner: response.statusCode === 200 ? response.json<{ site: { partner_settings: PartnerJson } }>().site.partner_settings : undefined };
}

async function read(app: TestApp, authorization: string, siteId: string) {
  const response = await app.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization } });
  return { etag: String(response.headers.etag), partner: response.json<{ site: { partner_settings: PartnerJson } }>().site.partner_settings };
}

async function check(app: TestApp, authorization: string, siteId: string): Promise<PartnerJson> {
  const response = await app.app.inject({ method: 'POST', url: `/api/v1/sites/${siteId}/partner/check`, headers: { authorization } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ site: { partner_settings: PartnerJson } }>().site.partner_settings;
}

function authorizations(server: TestServer): Array<string | undefined> {
  return server.requests.map((request) => request.headers.authorization);
}

test('a PUT that moves mcp_url to another origin clears the stored token, and the answer says so', async () => {
  const { app, owner } = await setup();
  const site = await createSite(app.app, owner.bearer, { name: 'Bound', partner_settings: { mcp_url: 'https://partner.example/mcp', access_token: TOKEN } });
  assert.equal(site.partner_settings.access_token_configured, true);
  const writer = await createAccessToken(app.app, owner, ['sites:write']);

  const { response, partner } = await put(app, writer.header, site.id, { partner_settings: { mcp_url: 'https://attacker.example/mcp' } });

  assert.equal(response.statusCode, 200, response.body);
  assert.equal(partner?.access_token_configured, false);
  assert.equal(partner?.mcp_url, 'https://attacker.example/mcp');
  assert.equal((await read(app, owner.bearer, site.id)).partner.access_token_configured, false);
  const row = await app.database.db.selectFrom('sites').selectAll().where('id', '=', site.id).executeTakeFirstOrThrow();
  assert.equal(row.partner_access_token, null);
});

test('a change of path, case or default port keeps the token; a change of base_url origin clears it', async () => {
  const { app, owner } = await setup();
  const site = await createSite(app.app, owner.bearer, {
    name: 'Paths',
    partner_settings: { base_url: 'https://api.partner.example/', mcp_url: 'https://partner.example/mcp', access_token: TOKEN },
  });

  for (const change of [
    { mcp_url: 'https://partner.example/v2/mcp?tenant=4' },
    { mcp_url: 'HTTPS://Partner.EXAMPLE:443/mcp' },
    { base_url: 'https://api.partner.example/health' },
    { enabled: true, collections: ['faq'] },
  ]) {
    assert.equal((await put(app, owner.bearer, site.id, { partner_settings: change })).partner?.access_token_configured, true, JSON.stringify(change));
  }

  // base_url never receives the token, but the pair was what the token was saved for.
  const moved = await put(app, owner.bearer, site.id, { partner_settings: { base_url: 'http://api.partner.example/' } });
  assert.equal(moved.partner?.access_token_configured, false);
});

test('a new token sent with the origin change is kept and bound to the new origin', async () => {
  const { app, owner } = await setup();
  const before = await serve(startStatelessMcpServer());
  const after = await serve(startStatelessMcpServer());
  const site = await createSite(app.app, owner.bearer, { name: 'Moved', partner_settings: { mcp_url: before.url, auth_type: 'bearer', access_token: TOKEN } });

  const replaced = await put(app, owner.bearer, site.id, { partner_settings: { mcp_url: `${after.url}/mcp`, access_token: 'the-new-partner-token' } });
  assert.equal(replaced.partner?.access_token_configured, true);
  assert.equal((await check(app, owner.bearer, site.id)).last_status, 'ok');
  assert.deepEqual(authorizations(after), ['Bearer the-new-partner-token', 'Bearer the-new-partner-token']);
  assert.equal(before.requests.length, 0);

  // The new token is bound to where it was sent with: moving back to the old origin clears it.
  const back = await put(app, owner.bearer, site.id, { partner_settings: { mcp_url: before.url } });
  assert.equal(back.partner?.access_token_configured, false);
});

test('a check after mcp_url moved to another host sends that host no token', async () => {
  const { app, owner } = await setup();
  const partner = await serve(startStatelessMcpServer());
  const attacker = await serve(startStatusServer(200, { jsonrpc: '2.0', id: 1, result: {} }));
  const site = await createSite(app.app, owner.bearer, { name: 'Stolen?', partner_settings: { mcp_url: partner.url, auth_type: 'bearer', access_token: TOKEN } });
  const writer = await createAccessToken(app.app, owner, ['sites:write']);

  assert.equal((await put(app, writer.header, site.id, { partner_settings: { mcp_url: `${attacker.url}/collect` } })).response.statusCode, 200);
  const result = await check(app, writer.header, site.id);

  assert.deepEqual(authorizations(attacker), []);
  assert.ok(!attacker.requests.some((request) => JSON.stringify(request).includes(TOKEN)));
  assert.equal(result.last_status, 'error');
  assert.match(result.last_error ?? '', /no access_token is stored/);
  assert.equal(partner.requests.length, 0);
});

test('a stored token whose binding names another origin is not sent, even if the row was changed behind the service', async () => {
  const { app, owner } = await setup();
  const elsewhere = await serve(startStatelessMcpServer());
  const site = await createSite(app.app, owner.bearer, { name: 'Edited', partner_settings: { mcp_url: elsewhere.url, auth_type: 'token', access_token: TOKEN } });
  await app.database.db
    .updateTable('sites')
    .set({ partner_token_origins: JSON.stringify({ base_url: '', mcp_url: 'https://partner.example' }) })
    .where('id', '=', site.id)
    .execute();
  app.cache.invalidate(siteChangeTags(owner.id, site.id));

  const result = await check(app, owner.bearer, site.id);

  assert.equal(elsewhere.requests.length, 0);
  assert.equal(result.last_status, 'error');
  assert.match(result.last_error ?? '', /saved for another mcp_url origin/);
});

test('a redirect to another origin does not carry the token there, on either MCP protocol path', async () => {
  const { app, owner } = await setup();
  const elsewhere = await serve(startStatelessMcpServer());
  // The newer protocol's first request is redirected straight away.
  const redirecting = await serve(startRedirectServer(`${elsewhere.url}/mcp`, 307));
  // Here server/discover is refused as by an older server, and the SDK's handshake is redirected.
  const legacyRedirecting = await serve(
    startServer((request, response, body) => {
      if (body.includes('"server/discover"')) return void response.writeHead(400, { 'content-type': 'application/json' }).end('{}');
      response.writeHead(308, { location: `${elsewhere.url}/mcp` }).end();
    }),
  );

  for (const server of [redirecting, legacyRedirecting]) {
    const site = await createSite(app.app, owner.bearer, { name: 'Redirected', partner_settings: { mcp_url: server.url, auth_type: 'bearer', access_token: TOKEN } });
    const result = await check(app, owner.bearer, site.id);
    assert.equal(result.last_status, 'error');
    assert.match(result.last_error ?? '', /redirect to another origin was not followed/);
    assert.ok(authorizations(server).every((header) => header === `Bearer ${TOKEN}`));
  }
  assert.equal(elsewhere.requests.length, 0);
});

test('clearing the token moves the version once; a PUT refused by If-Match clears nothing', async () => {
  const { app, owner } = await setup();
  const site = await createSite(app.app, owner.bearer, { name: 'Versions', partner_settings: { mcp_url: 'https://partner.example/mcp', access_token: TOKEN } });
  const first = await read(app, owner.bearer, site.id);

  const stale = await put(app, owner.bearer, site.id, { partner_settings: { mcp_url: 'https://other.example/mcp' } }, { 'if-match': '"999"' });
  assert.equal(stale.response.statusCode, 412);
  assert.equal((await read(app, owner.bearer, site.id)).partner.access_token_configured, true);

  const moved = await put(app, owner.bearer, site.id, { partner_settings: { mcp_url: 'https://other.example/mcp' } }, { 'if-match': first.etag });
  assert.equal(moved.response.statusCode, 200);
  assert.equal(moved.partner?.access_token_configured, false);
  const after = await read(app, owner.bearer, site.id);
  assert.equal(moved.response.headers.etag, after.etag);
  assert.equal(after.etag, `"${Number(JSON.parse(first.etag)) + 1}"`);
  assert.equal((await put(app, owner.bearer, site.id, { name: 'Again' }, { 'if-match': first.etag })).response.statusCode, 412);
});

const MIGRATIONS_BEFORE_BINDING: Record<string, Migration> = {
  '001-initial': initial,
  '002-web-sign-in': webSignIn,
  '003-two-factor': twoFactor,
  '004-passkeys': passkeys,
};

/** A site made before the binding existed; ids have always had the UUID shape the routes check. */
const LEGACY_SITE_ID = '00000000-0000-7000-8000-00000000051e';

test('a token saved before the binding existed is bound to the origins the site has, and keeps working there', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-binding-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  let databaseUrl: string | undefined;
  if (adminUrl !== '') {
    const created = await createPostgresDatabase(adminUrl);
    cleanups.push(created.drop);
    databaseUrl = created.url;
  }
  const partner = await serve(startStatelessMcpServer());
  const config = loadConfig({ DATA_DIR: dataDir, ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) });

  // The schema as it was before this change, and a site with a token saved then.
  const old = openDatabase(config.database);
  const db = old.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const migrated = await new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS_BEFORE_BINDING } }).migrateToLatest();
  assert.equal(migrated.error, undefined);
  const at = '2026-01-01T00:00:00.000Z';
  await db.insertInto('users').values({ id: 'legacy-user', email: 'legacy@example.com', name: '', password_hash: 'x', created_at: at, updated_at: at }).execute();
  const settings = { enabled: true, base_url: '', mcp_url: `${partner.url}/mcp`, auth_type: 'bearer' };
  const encrypted = new SecretBox(config.encryptionKey).encrypt(TOKEN, `site:${LEGACY_SITE_ID}:partner_access_token`);
  const site = { id: LEGACY_SITE_ID, user_id: 'legacy-user', name: 'Legacy', color: '#abcdef', partner_settings: JSON.stringify(settings), partner_access_token: encrypted };
  const empty = { ai_settings: '', email_settings: '', widget: '', portal: '', branding: '', public_theme: '', knowledge_sources: '' };
  await db.insertInto('sites').values({ ...site, ...empty, version: 1, created_at: at, updated_at: at }).execute();
  await migrateToLatest(old.db as Kysely<Database>);
  await old.close();

  t = await buildTestApp({ dataDir, ...(databaseUrl === undefined ? {} : { databaseUrl }), env: { PARTNER_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const owner = await signUp(t.app);
  // The site moves into the new owner's personal workspace, where they reach it.
  const personal = await t.database.db.selectFrom('workspaces').select('id').where('personal_user_id', '=', owner.id).executeTakeFirstOrThrow();
  await t.database.db.updateTable('sites').set({ user_id: owner.id, workspace_id: personal.id }).where('id', '=', LEGACY_SITE_ID).execute();

  assert.equal((await check(t, owner.bearer, LEGACY_SITE_ID)).last_status, 'ok');
  assert.deepEqual(authorizations(partner), [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  const moved = await put(t, owner.bearer, LEGACY_SITE_ID, { partner_settings: { mcp_url: 'https://elsewhere.example/mcp' } });
  assert.equal(moved.partner?.access_token_configured, false);
});
