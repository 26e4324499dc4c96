import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestAppWithOwner, createAccessToken, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { SecretBox } from '../lib/crypto.js';
import type { SiteJson } from './schema.js';
import { SETTINGS_FIELDS } from './schema.js';
import { DEFAULT_COLOR } from './defaults.js';

// Route tests for /api/v1/sites: real Fastify routing through app.inject, a real SQLite file
// (or PostgreSQL when TEST_DATABASE_URL is set), a fresh app per test.

let t: TestApp;
let owner: SignedUpUser;
beforeEach(async () => ({ t, owner } = await buildTestAppWithOwner()));
afterEach(() => t.close());

const SITE_KEYS = [
  'ai_settings',
  'branding',
  'color',
  'created_at',
  'email_settings',
  'id',
  'knowledge_sources',
  'name',
  'partner_settings',
  'portal',
  'public_key',
  'public_theme',
  'updated_at',
  'widget',
  'workspace_id',
];

const PARTNER_KEYS = [
  'access_token_configured',
  'auth_type',
  'base_url',
  'collections',
  'enabled',
  'last_checked_at',
  'last_error',
  'last_status',
  'mcp_url',
  'project_id',
  'read_enabled',
  'widget_project_id',
  'widget_search_sources',
  'write_enabled',
];

interface RequestOptions {
  authorization?: string;
  payload?: unknown;
  headers?: Record<string, string>;
}

function request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options: RequestOptions = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  return t.app.inject({
    method,
    url,
    headers,
    ...(options.payload === undefined ? {} : { payload: options.payload as string | object }),
  });
}

function siteUrl(id: string): string {
  return `/api/v1/sites/${id}`;
}

function putSite(id: string, payload: unknown, options: { authorization?: string; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
  return request('PUT', siteUrl(id), { authorization: options.authorization ?? owner.bearer, payload, headers: options.headers ?? {} });
}

/** PUT with a body sent as raw text under the given content type. */
function putRaw(id: string, body: string, contentType: string, authorization = owner.bearer): Promise<LightMyRequestResponse> {
  return request('PUT', siteUrl(id), { authorization, payload: body, headers: { 'content-type': contentType } });
}

async function readSite(id: string, authorization = owner.bearer): Promise<{ site: SiteJson; etag: string }> {
  const response = await request('GET', siteUrl(id), { authorization });
  assert.equal(response.statusCode, 200, response.body);
  const etag = response.headers.etag;
  assert.equal(typeof etag, 'string');
  return { site: response.json<{ site: SiteJson }>().site, etag: String(etag) };
}

async function listAll(authorization: string): Promise<SiteJson[]> {
  const response = await request('GET', '/api/v1/sites?limit=100', { authorization });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ sites: SiteJson[] }>().sites;
}

function siteOf(response: LightMyRequestResponse): SiteJson {
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ site: SiteJson }>().site;
}

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: Array<{ path: string; message: string }>;
}

/** Asserts an RFC 9457 problem document with this status and code (and, if given, an error at this path). */
function assertProblem(response: LightMyRequestResponse, status: number, code: string, path?: string): ProblemBody {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const body = response.json<ProblemBody>();
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
  assert.ok(body.title.length > 0);
  assert.equal(body.status, status);
  assert.equal(typeof body.detail, 'string');
  assert.ok(body.detail.length > 0);
  assert.equal(body.code, code);
  if (path !== undefined) {
    const paths = (body.errors ?? []).map((error) => error.path);
    assert.ok(paths.includes(path), `expected an error at ${path}, got ${JSON.stringify(body.errors)}`);
  }
  return body;
}

/** True when the JSON value has a key named exactly `key` anywhere in it. */
function hasKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => hasKey(item, key));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([name, item]) => name === key || hasKey(item, key));
  }
  return false;
}

function assertNoAccessToken(response: LightMyRequestResponse, secret: string): void {
  assert.ok(!response.body.includes(secret), 'the plaintext access token is in a response body');
  assert.ok(!hasKey(response.json(), 'access_token'), 'a response body has an access_token key');
}

function uniqueSecret(): string {
  return `partner-secret-${randomBytes(12).toString('hex')}`;
}

function decryptStoredToken(stored: string, siteId: string): string {
  return new SecretBox(t.config.encryptionKey).decrypt(stored, `site:${siteId}:partner_access_token`);
}

async function storedRow(siteId: string) {
  return t.database.db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirstOrThrow();
}

describe('creating, reading, listing and deleting sites', () => {
  test('creating a site answers 201 with Location, ETag and the documented defaults', async () => {
    const response = await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: { name: 'Help centre' } });
    assert.equal(response.statusCode, 201, response.body);
    const site = response.json<{ site: SiteJson }>().site;
    assert.equal(response.headers.location, `/api/v1/sites/${site.id}`);
    assert.match(String(response.headers.etag), /^"[^"]+"$/);

    assert.deepEqual(Object.keys(site).sort(), SITE_KEYS);
    assert.deepEqual(Object.keys(site.partner_settings).sort(), PARTNER_KEYS);
    assert.match(site.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(site.name, 'Help centre');
    assert.equal(site.color, DEFAULT_COLOR);
    assert.match(site.color, /^#[0-9a-f]{6}$/);
    for (const field of SETTINGS_FIELDS) assert.equal(site[field], '', field);
    assert.deepEqual(site.partner_settings, {
      enabled: false,
      base_url: '',
      mcp_url: '',
      project_id: '',
      auth_type: 'bearer',
      access_token_configured: false,
      read_enabled: true,
      write_enabled: false,
      collections: [],
      widget_project_id: '',
      widget_search_sources: [],
      last_status: 'unchecked',
      last_error: null,
      last_checked_at: null,
    });
    const now = t.clock.now().toISOString();
    assert.equal(site.created_at, now);
    assert.equal(site.updated_at, now);
  });

  test('the Location of a created site reads back the same site with the same ETag', async () => {
    const created = await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: { name: 'Docs' } });
    assert.equal(created.statusCode, 201, created.body);
    const location = String(created.headers.location);
    const response = await request('GET', location, { authorization: owner.bearer });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers.etag, created.headers.etag);
    assert.deepEqual(response.json(), created.json());
  });

  test('creating a site applies the update rules to every field sent', async () => {
    const secret = uniqueSecret();
    const response = await request('POST', '/api/v1/sites', {
      authorization: owner.bearer,
      payload: { name: 'Shop', color: '#ABC', ai_settings: '{"model":"small"}', partner_settings: { enabled: true, access_token: secret } },
    });
    assert.equal(response.statusCode, 201, response.body);
    assertNoAccessToken(response, secret);
    const site = response.json<{ site: SiteJson }>().site;
    assert.equal(site.color, '#abc');
    assert.equal(site.ai_settings, '{"model":"small"}');
    assert.equal(site.partner_settings.enabled, true);
    assert.equal(site.partner_settings.access_token_configured, true);
    const row = await storedRow(site.id);
    assert.equal(decryptStoredToken(String(row.partner_access_token), site.id), secret);
  });

  test('creating a site without a name, or with an unknown field, is 400 and creates nothing', async () => {
    assertProblem(await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: {} }), 400, 'validation_failed', '/name');
    assertProblem(
      await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: { name: 'x', nickname: 'y' } }),
      400,
      'validation_failed',
      '/nickname',
    );
    assert.deepEqual(await listAll(owner.bearer), []);
  });

  test('a site can be read by id and appears in the owner’s list', async () => {
    const first = await createSite(t.app, owner.bearer, { name: 'First' });
    const second = await createSite(t.app, owner.bearer, { name: 'Second' });
    const { site } = await readSite(first.id);
    assert.deepEqual(site, first);
    const listed = await listAll(owner.bearer);
    assert.deepEqual(listed.map((entry) => entry.id).sort(), [first.id, second.id].sort());
    assert.deepEqual(
      listed.find((entry) => entry.id === second.id),
      second,
    );
  });

  test('deleting a site answers 204, then the site is 404 everywhere and gone from the list', async () => {
    const site = await createSite(t.app, owner.bearer);
    const kept = await createSite(t.app, owner.bearer, { name: 'Kept' });
    const deleted = await request('DELETE', siteUrl(site.id), { authorization: owner.bearer });
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    assertProblem(await request('GET', siteUrl(site.id), { authorization: owner.bearer }), 404, 'site_not_found');
    assertProblem(await putSite(site.id, { name: 'Back' }), 404, 'site_not_found');
    assertProblem(await request('DELETE', siteUrl(site.id), { authorization: owner.bearer }), 404, 'site_not_found');
    assert.deepEqual(
      (await listAll(owner.bearer)).map((entry) => entry.id),
      [kept.id],
    );
  });

  test('an id that names no site is 404 site_not_found', async () => {
    const missing = '01900000-0000-7000-8000-000000000000';
    assertProblem(await request('GET', siteUrl(missing), { authorization: owner.bearer }), 404, 'site_not_found');
    assertProblem(await putSite(missing, { name: 'x' }), 404, 'site_not_found');
    assertProblem(await request('DELETE', siteUrl(missing), { authorization: owner.bearer }), 404, 'site_not_found');
  });
});

describe('listing sites a page at a time', () => {
  test('limit=2 walks five sites through next_cursor with no duplicates or gaps, ending with next_cursor null', async () => {
    const created = new Set<string>();
    for (let index = 0; index < 5; index++) {
      created.add((await createSite(t.app, owner.bearer, { name: `Site ${index}` })).id);
      t.clock.advance(1000);
    }
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const url: string = cursor === null ? '/api/v1/sites?limit=2' : `/api/v1/sites?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const response = await request('GET', url, { authorization: owner.bearer });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json<{ sites: SiteJson[]; next_cursor: string | null }>();
      pageSizes.push(body.sites.length);
      seen.push(...body.sites.map((site) => site.id));
      cursor = body.next_cursor;
      if (cursor === null) break;
      assert.equal(typeof cursor, 'string');
    }
    assert.equal(cursor, null);
    assert.deepEqual(pageSizes, [2, 2, 1]);
    assert.equal(new Set(seen).size, seen.length, 'a site appeared on two pages');
    assert.deepEqual(new Set(seen), created);
    // Oldest first: ids are time-ordered and the clock moved between creations.
    assert.deepEqual(seen, [...seen].sort());
  });

  test('a list exactly one page long has next_cursor null', async () => {
    await createSite(t.app, owner.bearer, { name: 'A' });
    await createSite(t.app, owner.bearer, { name: 'B' });
    const response = await request('GET', '/api/v1/sites?limit=2', { authorization: owner.bearer });
    const body = response.json<{ sites: SiteJson[]; next_cursor: string | null }>();
    assert.equal(body.sites.length, 2);
    assert.equal(body.next_cursor, null);
  });

  test('a cursor the service did not issue is 400 invalid_cursor', async () => {
    await createSite(t.app, owner.bearer);
    for (const cursor of ['zzz', 'not-a-cursor', Buffer.from('1 or 1=1', 'utf8').toString('base64url')]) {
      assertProblem(
        await request('GET', `/api/v1/sites?cursor=${encodeURIComponent(cursor)}`, { authorization: owner.bearer }),
        400,
        'invalid_cursor',
        '/querystring/cursor',
      );
    }
  });

  test('limit=0 and limit=101 are 400 validation_failed, limit=1 and limit=100 are accepted', async () => {
    await createSite(t.app, owner.bearer);
    for (const limit of ['0', '101', '-1', 'abc']) {
      assertProblem(await request('GET', `/api/v1/sites?limit=${limit}`, { authorization: owner.bearer }), 400, 'validation_failed');
    }
    for (const limit of ['1', '100']) {
      const response = await request('GET', `/api/v1/sites?limit=${limit}`, { authorization: owner.bearer });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json<{ sites: unknown[] }>().sites.length, 1);
    }
  });
});

describe('ownership', () => {
  test("another user's site is 404 site_not_found on every route and never in their list", async () => {
    const secret = uniqueSecret();
    const site = await createSite(t.app, owner.bearer, { name: 'Private', partner_settings: { access_token: secret, project_id: 'p-1' } });
    const before = await readSite(site.id);
    const intruder = await signUp(t.app);
    await createSite(t.app, intruder.bearer, { name: 'Theirs' });

    const get = await request('GET', siteUrl(site.id), { authorization: intruder.bearer });
    assertProblem(get, 404, 'site_not_found');
    assert.ok(!get.body.includes('Private'));
    assertProblem(await putSite(site.id, { name: 'Taken over', partner_settings: { access_token: '' } }, { authorization: intruder.bearer }), 404, 'site_not_found');
    assertProblem(await putSite(site.id, { name: 'Taken over' }, { authorization: intruder.bearer, headers: { 'if-match': '*' } }), 404, 'site_not_found');
    assertProblem(await request('DELETE', siteUrl(site.id), { authorization: intruder.bearer }), 404, 'site_not_found');

    const theirs = await listAll(intruder.bearer);
    assert.deepEqual(
      theirs.map((entry) => entry.name),
      ['Theirs'],
    );

    const after = await readSite(site.id);
    assert.deepEqual(after, before);
    const row = await storedRow(site.id);
    assert.equal(decryptStoredToken(String(row.partner_access_token), site.id), secret);
  });

  test("a personal access token of one user cannot see another user's site", async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Owner site' });
    const before = await readSite(site.id);
    const other = await signUp(t.app);
    const token = await createAccessToken(t.app, other);
    assertProblem(await request('GET', siteUrl(site.id), { authorization: token.header }), 404, 'site_not_found');
    assertProblem(await putSite(site.id, { name: 'x' }, { authorization: token.header }), 404, 'site_not_found');
    assertProblem(await request('DELETE', siteUrl(site.id), { authorization: token.header }), 404, 'site_not_found');
    assert.deepEqual(await listAll(token.header), []);
    assert.deepEqual(await readSite(site.id), before);
  });
});

describe('PUT merges into the stored site', () => {
  test('a field left out of a PUT keeps its value', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Original', color: '#123456', ai_settings: 'ai', branding: 'brand' });
    const updated = siteOf(await putSite(site.id, { ai_settings: 'new ai' }));
    assert.equal(updated.ai_settings, 'new ai');
    assert.equal(updated.name, 'Original');
    assert.equal(updated.color, '#123456');
    assert.equal(updated.branding, 'brand');
    assert.deepEqual(updated.partner_settings, site.partner_settings);
    assert.deepEqual((await readSite(site.id)).site, updated);
  });

  test('partner_settings merges field by field: setting base_url alone keeps enabled true', async () => {
    const site = await createSite(t.app, owner.bearer);
    assert.equal(siteOf(await putSite(site.id, { partner_settings: { enabled: true, project_id: 'proj' } })).partner_settings.enabled, true);
    const updated = siteOf(await putSite(site.id, { partner_settings: { base_url: 'https://partner.example' } }));
    assert.equal(updated.partner_settings.enabled, true);
    assert.equal(updated.partner_settings.project_id, 'proj');
    assert.equal(updated.partner_settings.base_url, 'https://partner.example');
    assert.deepEqual((await readSite(site.id)).site.partner_settings, updated.partner_settings);
  });

  test('an empty partner_settings object or an empty body changes no field', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Same', partner_settings: { enabled: true, access_token: uniqueSecret() } });
    const afterEmptyPartner = siteOf(await putSite(site.id, { partner_settings: {} }));
    const afterEmptyBody = siteOf(await putSite(site.id, {}));
    for (const updated of [afterEmptyPartner, afterEmptyBody]) {
      assert.deepEqual({ ...updated, updated_at: site.updated_at }, site);
    }
  });

  test('every field of the Site and of partner_settings can be set and read back', async () => {
    const { site } = await readSite((await createSite(t.app, owner.bearer)).id);
    const body = {
      name: 'Every field',
      color: '#0a0b0c',
      ai_settings: '{"model":"m","temperature":0.2}',
      email_settings: '{"from":"help@example.com"}',
      widget: '{"position":"right"}',
      portal: '{"title":"Help"}',
      branding: '{"logo":"/logo.svg"}',
      public_theme: '{"font":"serif"}',
      knowledge_sources: '["https://docs.example"]',
      partner_settings: {
        enabled: true,
        base_url: 'https://partner.example/api',
        mcp_url: 'http://partner.example:8080/mcp',
        project_id: 'project-42',
        auth_type: 'token',
        access_token: uniqueSecret(),
        read_enabled: false,
        write_enabled: true,
        collections: ['faq', 'manuals', 'déjà vu'],
        widget_project_id: 'widget-7',
        widget_search_sources: ['docs', 'forum'],
      },
    };
    t.clock.advance(60_000);
    const response = await putSite(site.id, body);
    const updated = siteOf(response);
    const { access_token: _secret, ...partnerWithoutToken } = body.partner_settings;
    const expected: SiteJson = {
      ...site,
      ...body,
      partner_settings: {
        ...site.partner_settings,
        ...partnerWithoutToken,
        auth_type: 'token',
        access_token_configured: true,
      },
      updated_at: t.clock.now().toISOString(),
    };
    assert.deepEqual(updated, expected);
    assert.deepEqual((await readSite(site.id)).site, expected);
    assert.deepEqual(
      (await listAll(owner.bearer)).find((entry) => entry.id === site.id),
      expected,
    );
  });

  test('auth_type accepts none, bearer and token, and refuses anything else naming the field', async () => {
    const site = await createSite(t.app, owner.bearer);
    for (const authType of ['none', 'bearer', 'token'] as const) {
      assert.equal(siteOf(await putSite(site.id, { partner_settings: { auth_type: authType } })).partner_settings.auth_type, authType);
      assert.equal((await readSite(site.id)).site.partner_settings.auth_type, authType);
    }
    const before = await readSite(site.id);
    for (const authType of ['basic', 'Bearer', '', null]) {
      assertProblem(await putSite(site.id, { partner_settings: { auth_type: authType } }), 400, 'validation_failed', '/partner_settings/auth_type');
    }
    assert.deepEqual(await readSite(site.id), before);
  });

  test('arrays replace the stored array as a whole, and [] empties it', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Arrays', partner_settings: { collections: ['a', 'b'], widget_search_sources: ['x'] } });
    assert.deepEqual(site.partner_settings.collections, ['a', 'b']);
    const updated = siteOf(await putSite(site.id, { partner_settings: { collections: ['c'], widget_search_sources: [] } }));
    assert.deepEqual(updated.partner_settings.collections, ['c']);
    assert.deepEqual(updated.partner_settings.widget_search_sources, []);
  });
});

describe('the partner access_token', () => {
  test('access_token is never in a response body of create, get, list or put, as a key or as its value', async () => {
    const secret = uniqueSecret();
    const created = await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: { name: 'Secretive', partner_settings: { access_token: secret } } });
    assert.equal(created.statusCode, 201, created.body);
    assertNoAccessToken(created, secret);
    const id = created.json<{ site: SiteJson }>().site.id;

    const got = await request('GET', siteUrl(id), { authorization: owner.bearer });
    assert.equal(got.statusCode, 200);
    assertNoAccessToken(got, secret);
    const listed = await request('GET', '/api/v1/sites', { authorization: owner.bearer });
    assert.equal(listed.statusCode, 200);
    assertNoAccessToken(listed, secret);

    const secondSecret = uniqueSecret();
    const put = await putSite(id, { partner_settings: { access_token: secondSecret } });
    assert.equal(put.statusCode, 200, put.body);
    assertNoAccessToken(put, secondSecret);
    assertNoAccessToken(put, secret);
    // A rejected update does not echo the token either.
    const rejected = await putSite(id, { color: 'red', partner_settings: { access_token: secret } });
    assertProblem(rejected, 400, 'validation_failed', '/color');
    assert.ok(!rejected.body.includes(secret));
  });

  test('access_token left out keeps it, a non-empty string replaces it, "" clears it and null clears it', async () => {
    const first = uniqueSecret();
    const site = await createSite(t.app, owner.bearer, { name: 'Token', partner_settings: { access_token: first } });
    assert.equal(site.partner_settings.access_token_configured, true);

    // Left out, at the top level and inside partner_settings: kept.
    assert.equal(siteOf(await putSite(site.id, { name: 'Renamed' })).partner_settings.access_token_configured, true);
    assert.equal(siteOf(await putSite(site.id, { partner_settings: { enabled: true } })).partner_settings.access_token_configured, true);
    assert.equal(decryptStoredToken(String((await storedRow(site.id)).partner_access_token), site.id), first);

    // A new string: replaced.
    const second = uniqueSecret();
    assert.equal(siteOf(await putSite(site.id, { partner_settings: { access_token: second } })).partner_settings.access_token_configured, true);
    assert.equal(decryptStoredToken(String((await storedRow(site.id)).partner_access_token), site.id), second);

    // "": cleared.
    assert.equal(siteOf(await putSite(site.id, { partner_settings: { access_token: '' } })).partner_settings.access_token_configured, false);
    assert.equal((await storedRow(site.id)).partner_access_token, null);
    assert.equal((await readSite(site.id)).site.partner_settings.access_token_configured, false);

    // Set again, then null: cleared.
    assert.equal(siteOf(await putSite(site.id, { partner_settings: { access_token: first } })).partner_settings.access_token_configured, true);
    assert.equal(siteOf(await putSite(site.id, { partner_settings: { access_token: null } })).partner_settings.access_token_configured, false);
    assert.equal((await storedRow(site.id)).partner_access_token, null);
    assert.equal((await readSite(site.id)).site.partner_settings.access_token_configured, false);
  });

  test('the stored access_token is v1: ciphertext, and the SQLite files never hold the plaintext', async () => {
    const secret = uniqueSecret();
    // A non-secret marker proves that the file scan below does see what was written.
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const site = await createSite(t.app, owner.bearer, { name: 'Encrypted', partner_settings: { project_id: marker, access_token: secret } });
    const replacement = uniqueSecret();
    assert.equal((await putSite(site.id, { partner_settings: { access_token: replacement } })).statusCode, 200);

    const row = await storedRow(site.id);
    const stored = String(row.partner_access_token);
    assert.ok(stored.startsWith('v1:'), stored);
    assert.ok(!stored.includes(replacement));
    assert.ok(!stored.includes(secret));
    assert.ok(!row.partner_settings.includes(replacement), 'the token leaked into the partner_settings column');
    assert.equal(decryptStoredToken(stored, site.id), replacement);
    // Bound to its site: the same ciphertext does not decrypt as another site's token.
    assert.throws(() => decryptStoredToken(stored, '01900000-0000-7000-8000-000000000000'));

    if (t.config.database.kind === 'sqlite') {
      const files = [t.config.database.file, `${t.config.database.file}-wal`].filter((file) => existsSync(file));
      const contents = Buffer.concat(files.map((file) => readFileSync(file)));
      assert.ok(contents.includes(Buffer.from(marker, 'utf8')), 'the scan did not find the marker written beside the token');
      for (const plaintext of [secret, replacement]) {
        assert.ok(!contents.includes(Buffer.from(plaintext, 'utf8')), 'a plaintext access token is in the SQLite files');
      }
    }
  });

  test('the logs never hold the partner access token, the JWT or the personal access token', async () => {
    const secret = uniqueSecret();
    const pat = await createAccessToken(t.app, owner);
    const site = await createSite(t.app, owner.bearer, { name: 'Logged', partner_settings: { access_token: secret } });
    await putSite(site.id, { partner_settings: { access_token: secret } }, { authorization: pat.header });
    await request('GET', siteUrl(site.id), { authorization: pat.header });
    await request('GET', `/api/v1/sites?access_token=${secret}`, { authorization: owner.bearer });
    // Failures too: wrong type elsewhere, an oversized field, a stale If-Match, bad JSON.
    await putSite(site.id, { name: 5, partner_settings: { access_token: secret } });
    await putSite(site.id, { ai_settings: 'x'.repeat(70_000), partner_settings: { access_token: secret } });
    await putSite(site.id, { partner_settings: { access_token: secret } }, { headers: { 'if-match': '"999"' } });
    await putRaw(site.id, `{"partner_settings":{"access_token":"${secret}"`, 'application/json');
    await putSite(site.id, { partner_settings: { access_token: secret } }, { authorization: 'Bearer not-a-jwt' });

    const logs = t.logs();
    assert.match(logs, /"method":"PUT"/);
    assert.ok(!logs.includes(secret), 'the partner access token is in the logs');
    assert.ok(!logs.includes(owner.jwt), 'the JWT is in the logs');
    assert.ok(!logs.includes(pat.token), 'the personal access token is in the logs');
  });
});

describe('server-owned fields', () => {
  test('a GET body PUT back answers 200 and changes nothing but updated_at and the ETag', async () => {
    const site = await createSite(t.app, owner.bearer, {
      name: 'Round trip',
      color: '#abcdef',
      portal: 'portal',
      partner_settings: { enabled: true, collections: ['a'], access_token: uniqueSecret() },
    });
    const before = await readSite(site.id);
    t.clock.advance(5_000);
    const response = await putSite(site.id, before.site);
    const after = siteOf(response);
    assert.notEqual(response.headers.etag, before.etag);
    assert.equal(after.updated_at, t.clock.now().toISOString());
    assert.notEqual(after.updated_at, before.site.updated_at);
    assert.deepEqual({ ...after, updated_at: before.site.updated_at }, before.site);
    const reread = await readSite(site.id);
    assert.deepEqual(reread.site, after);
    assert.equal(reread.etag, response.headers.etag);
  });

  test('made-up values for server-owned fields are accepted and ignored', async () => {
    const site = await createSite(t.app, owner.bearer);
    const response = await putSite(site.id, {
      id: '0190d6a0-0000-7000-8000-0000000000ee',
      created_at: '1999-01-01T00:00:00.000Z',
      updated_at: 'yesterday',
      partner_settings: {
        access_token_configured: true,
        last_status: 'ok',
        last_error: { anything: ['at all'] },
        last_checked_at: 12345,
      },
    });
    const updated = siteOf(response);
    assert.equal(updated.id, site.id);
    assert.equal(updated.created_at, site.created_at);
    assert.equal(updated.updated_at, t.clock.now().toISOString());
    assert.equal(updated.partner_settings.access_token_configured, false);
    assert.equal(updated.partner_settings.last_status, 'unchecked');
    assert.equal(updated.partner_settings.last_error, null);
    assert.equal(updated.partner_settings.last_checked_at, null);
    assert.deepEqual((await readSite(site.id)).site, updated);
    assertProblem(await request('GET', siteUrl('0190d6a0-0000-7000-8000-0000000000ee'), { authorization: owner.bearer }), 404, 'site_not_found');
  });
});

describe('validation of the update body', () => {
  test('an unknown field at the top level or inside partner_settings is 400 naming its path', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    assertProblem(await putSite(site.id, { name: 'x', nickname: 'y' }), 400, 'validation_failed', '/nickname');
    assertProblem(await putSite(site.id, { partner_settings: { colour: '#fff' } }), 400, 'validation_failed', '/partner_settings/colour');
    assertProblem(await putSite(site.id, { user_id: owner.id }), 400, 'validation_failed', '/user_id');
    assertProblem(await putSite(site.id, { version: 1 }), 400, 'validation_failed', '/version');
    assertProblem(await putSite(site.id, { partner_settings: { secret: 'x' } }), 400, 'validation_failed', '/partner_settings/secret');
    assert.deepEqual(await readSite(site.id), before);
  });

  test('a wrong type is 400 naming the field, with no coercion', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 5 }, '/name'],
      [{ name: null }, '/name'],
      [{ color: true }, '/color'],
      [{ ai_settings: 5 }, '/ai_settings'],
      [{ knowledge_sources: ['a'] }, '/knowledge_sources'],
      [{ widget: { position: 'left' } }, '/widget'],
      [{ partner_settings: 'enabled' }, '/partner_settings'],
      [{ partner_settings: null }, '/partner_settings'],
      [{ partner_settings: { enabled: 'yes' } }, '/partner_settings/enabled'],
      [{ partner_settings: { enabled: 'true' } }, '/partner_settings/enabled'],
      [{ partner_settings: { read_enabled: 1 } }, '/partner_settings/read_enabled'],
      [{ partner_settings: { write_enabled: 0 } }, '/partner_settings/write_enabled'],
      [{ partner_settings: { collections: 'a' } }, '/partner_settings/collections'],
      [{ partner_settings: { collections: [1] } }, '/partner_settings/collections/0'],
      [{ partner_settings: { widget_search_sources: ['ok', null] } }, '/partner_settings/widget_search_sources/1'],
      [{ partner_settings: { access_token: 5 } }, '/partner_settings/access_token'],
      [{ partner_settings: { project_id: 42 } }, '/partner_settings/project_id'],
      [{ partner_settings: { base_url: null } }, '/partner_settings/base_url'],
    ];
    for (const [body, path] of cases) {
      assertProblem(await putSite(site.id, body), 400, 'validation_failed', path);
    }
    assert.deepEqual(await readSite(site.id), before);
  });

  test('a body that is not a JSON object is 400', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    for (const body of ['null', '[]', '"name"', '42', 'true']) {
      const response = await putRaw(site.id, body, 'application/json');
      assert.equal(response.statusCode, 400, `${body}: ${response.body}`);
      assertProblem(response, 400, response.json<ProblemBody>().code);
    }
    assertProblem(await putRaw(site.id, '', 'application/json'), 400, 'empty_body');
    assert.deepEqual(await readSite(site.id), before);
  });

  test('a colour is stored lower-case as sent: #ABC as #abc and #A1B2C3 as #a1b2c3', async () => {
    const site = await createSite(t.app, owner.bearer);
    assert.equal(siteOf(await putSite(site.id, { color: '#ABC' })).color, '#abc');
    assert.equal((await readSite(site.id)).site.color, '#abc');
    assert.equal(siteOf(await putSite(site.id, { color: '#A1B2C3' })).color, '#a1b2c3');
    assert.equal((await readSite(site.id)).site.color, '#a1b2c3');
  });

  test('a colour that is not #rgb or #rrggbb is 400 naming /color', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    for (const color of ['red', '#abcd', 'abc', '#ggg', '#12345', '#1234567', '', ' #abc', '#abc ']) {
      assertProblem(await putSite(site.id, { color }), 400, 'validation_failed', '/color');
    }
    assert.deepEqual(await readSite(site.id), before);
  });

  test('a name must have 1 to 200 characters and not be blank', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    for (const name of ['', '   ', '\t\n', 'n'.repeat(201)]) {
      assertProblem(await putSite(site.id, { name }), 400, 'validation_failed', '/name');
    }
    assertProblem(await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: { name: '   ' } }), 400, 'validation_failed', '/name');
    assert.deepEqual(await readSite(site.id), before);
    const longest = 'n'.repeat(200);
    assert.equal(siteOf(await putSite(site.id, { name: longest })).name, longest);
    assert.equal((await readSite(site.id)).site.name, longest);
    const single = siteOf(await putSite(site.id, { name: 'x' }));
    assert.equal(single.name, 'x');
  });

  test('base_url and mcp_url accept "" or an absolute http(s) URL', async () => {
    const site = await createSite(t.app, owner.bearer);
    for (const field of ['base_url', 'mcp_url'] as const) {
      for (const value of ['https://x.example/mcp', 'http://partner.example:8080/path?q=1', '']) {
        const updated = siteOf(await putSite(site.id, { partner_settings: { [field]: value } }));
        assert.equal(updated.partner_settings[field], value);
        assert.equal((await readSite(site.id)).site.partner_settings[field], value);
      }
    }
  });

  test('base_url and mcp_url refuse ftp, plain text and javascript: URLs naming the field', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'URLs', partner_settings: { base_url: 'https://kept.example', mcp_url: 'https://kept.example/mcp' } });
    const before = await readSite(site.id);
    for (const field of ['base_url', 'mcp_url'] as const) {
      for (const value of ['ftp://x', 'not a url', 'javascript:alert(1)', 'https://', ' https://x.example', '/relative/path', 'file:///etc/passwd']) {
        assertProblem(await putSite(site.id, { partner_settings: { [field]: value } }), 400, 'validation_failed', `/partner_settings/${field}`);
      }
    }
    assert.deepEqual(await readSite(site.id), before);
  });

  test('text no database can keep as sent (NUL, an unpaired surrogate) is 400 naming the field', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    const cases: Array<[string, string]> = [
      ['{"name":"a\\u0000b"}', '/name'],
      ['{"name":"a\\ud800b"}', '/name'],
      ['{"ai_settings":"\\udfff"}', '/ai_settings'],
      ['{"partner_settings":{"access_token":"tok\\ud83d"}}', '/partner_settings/access_token'],
      ['{"partner_settings":{"collections":["ok","\\u0000"]}}', '/partner_settings/collections/1'],
    ];
    for (const [body, path] of cases) {
      assertProblem(await putRaw(site.id, body, 'application/json'), 400, 'validation_failed', path);
    }
    assert.deepEqual(await readSite(site.id), before);
    // A surrogate pair (an emoji) is ordinary text and is kept exactly.
    const emoji = siteOf(await putRaw(site.id, '{"name":"Help \\ud83d\\ude00"}', 'application/json'));
    assert.equal(emoji.name, 'Help 😀');
    assert.equal((await readSite(site.id)).site.name, 'Help 😀');
  });
});

describe('size limits', () => {
  test('a settings string of exactly 65,536 bytes is accepted, counted in UTF-8 bytes', async () => {
    const site = await createSite(t.app, owner.bearer);
    const ascii = 'a'.repeat(65_536);
    assert.equal(siteOf(await putSite(site.id, { ai_settings: ascii })).ai_settings, ascii);
    assert.equal((await readSite(site.id)).site.ai_settings, ascii);
    const twoByte = 'é'.repeat(32_768);
    assert.equal(Buffer.byteLength(twoByte, 'utf8'), 65_536);
    assert.equal(siteOf(await putSite(site.id, { knowledge_sources: twoByte })).knowledge_sources, twoByte);
  });

  test('a settings string of 65,537 bytes is 413 field_too_large naming the field and changes nothing', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Sized', ai_settings: 'kept' });
    const before = await readSite(site.id);
    for (const field of SETTINGS_FIELDS) {
      assertProblem(await putSite(site.id, { [field]: 'a'.repeat(65_537), name: 'Changed' }), 413, 'field_too_large', `/${field}`);
    }
    // 32,768 two-byte characters and one more byte: few characters, too many bytes.
    assertProblem(await putSite(site.id, { email_settings: `${'é'.repeat(32_768)}a` }), 413, 'field_too_large', '/email_settings');
    const both = assertProblem(await putSite(site.id, { widget: 'w'.repeat(65_537), portal: 'p'.repeat(65_537) }), 413, 'field_too_large');
    assert.deepEqual(both.errors?.map((error) => error.path).sort(), ['/portal', '/widget']);
    assert.deepEqual(await readSite(site.id), before);
  });

  test('a 2 MiB body is 413 body_too_large and changes nothing', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    const body = JSON.stringify({ ai_settings: 'x'.repeat(2 * 1024 * 1024) });
    assertProblem(await putRaw(site.id, body, 'application/json'), 413, 'body_too_large');
    assertProblem(await request('POST', '/api/v1/sites', { authorization: owner.bearer, payload: body, headers: { 'content-type': 'application/json' } }), 413, 'body_too_large');
    assert.deepEqual(await readSite(site.id), before);
    assert.equal((await listAll(owner.bearer)).length, 1);
  });
});

describe('content types and problem documents', () => {
  test('a text/plain body on PUT is 415 unsupported_media_type and changes nothing', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    assertProblem(await putRaw(site.id, JSON.stringify({ name: 'Sneaky' }), 'text/plain'), 415, 'unsupported_media_type');
    assertProblem(await putRaw(site.id, 'name=Sneaky', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
    assertProblem(await putRaw(site.id, '<name>Sneaky</name>', 'application/xml'), 415, 'unsupported_media_type');
    assert.deepEqual(await readSite(site.id), before);
  });

  test('invalid JSON is 400 invalid_json and changes nothing', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    for (const body of ['{"name":', "{'name':'x'}", '{"name":"x",}', 'name']) {
      assertProblem(await putRaw(site.id, body, 'application/json'), 400, 'invalid_json');
    }
    assert.deepEqual(await readSite(site.id), before);
  });

  test('every error response is application/problem+json with type, title, status, detail and code', async () => {
    const site = await createSite(t.app, owner.bearer);
    const readOnly = await createAccessToken(t.app, owner, ['sites:read']);
    const cases: Array<[LightMyRequestResponse, number, string]> = [
      [await request('GET', '/api/v1/sites'), 401, 'unauthenticated'],
      [await request('GET', '/api/v1/sites', { authorization: 'Bearer not-a-jwt' }), 401, 'invalid_token'],
      [await putSite(site.id, { name: 'x' }, { authorization: readOnly.header }), 403, 'insufficient_scope'],
      [await request('GET', siteUrl('01900000-0000-7000-8000-000000000000'), { authorization: owner.bearer }), 404, 'site_not_found'],
      [await putSite(site.id, { nickname: 'x' }), 400, 'validation_failed'],
      [await putRaw(site.id, '{', 'application/json'), 400, 'invalid_json'],
      [await putSite(site.id, { name: 'x' }, { headers: { 'if-match': '"999"' } }), 412, 'precondition_failed'],
      [await putSite(site.id, { branding: 'b'.repeat(65_537) }), 413, 'field_too_large'],
      [await putRaw(site.id, 'x', 'text/plain'), 415, 'unsupported_media_type'],
    ];
    for (const [response, status, code] of cases) {
      const body = assertProblem(response, status, code);
      assert.ok(!JSON.stringify(body).includes('    at '), 'a stack trace reached the client');
    }
  });
});

describe('ETag and If-Match', () => {
  test('GET answers with an ETag; a PUT with it in If-Match succeeds with a new ETag that GET then returns', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    assert.match(before.etag, /^"[^"]+"$/);
    const response = await putSite(site.id, { name: 'Matched' }, { headers: { 'if-match': before.etag } });
    assert.equal(siteOf(response).name, 'Matched');
    const etag = String(response.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    assert.notEqual(etag, before.etag);
    assert.equal((await readSite(site.id)).etag, etag);
  });

  test('a PUT with a stale If-Match is 412 precondition_failed and changes nothing', async () => {
    const site = await createSite(t.app, owner.bearer);
    const stale = (await readSite(site.id)).etag;
    assert.equal((await putSite(site.id, { name: 'Someone else' }, { headers: { 'if-match': stale } })).statusCode, 200);
    const current = await readSite(site.id);
    assertProblem(await putSite(site.id, { name: 'Lost update', partner_settings: { enabled: true } }, { headers: { 'if-match': stale } }), 412, 'precondition_failed');
    // A weak tag never matches under If-Match's strong comparison.
    assertProblem(await putSite(site.id, { name: 'Weak' }, { headers: { 'if-match': `W/${current.etag}` } }), 412, 'precondition_failed');
    assert.deepEqual(await readSite(site.id), current);
  });

  test('If-Match: * matches the current site, and a list containing the current ETag matches', async () => {
    const site = await createSite(t.app, owner.bearer);
    assert.equal(siteOf(await putSite(site.id, { name: 'Star' }, { headers: { 'if-match': '*' } })).name, 'Star');
    const { etag } = await readSite(site.id);
    assert.equal(siteOf(await putSite(site.id, { name: 'Listed' }, { headers: { 'if-match': `"999", ${etag}` } })).name, 'Listed');
  });

  test('GET with If-None-Match equal to the ETag is 304 with no body; a stale one is 200', async () => {
    const site = await createSite(t.app, owner.bearer);
    const { etag } = await readSite(site.id);
    const notModified = await request('GET', siteUrl(site.id), { authorization: owner.bearer, headers: { 'if-none-match': etag } });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers.etag, etag);
    await putSite(site.id, { name: 'Changed' });
    const modified = await request('GET', siteUrl(site.id), { authorization: owner.bearer, headers: { 'if-none-match': etag } });
    assert.equal(modified.statusCode, 200);
    assert.equal(modified.json<{ site: SiteJson }>().site.name, 'Changed');
  });
});

describe('concurrent updates', () => {
  // On SQLite in one process each request's read-merge-write runs without yielding to another, so
  // this guards the result; on PostgreSQL (TEST_DATABASE_URL) the requests do interleave, and
  // there it fails if the row lock or the transaction around the merge is removed.
  test('20 concurrent PUTs of different fields all land', async () => {
    // The URLs start on the origins the changes keep, so the token sent among them stays bound
    // whichever order they land in (moving an origin would clear it: partner-settings.ts).
    const site = await createSite(t.app, owner.bearer, {
      name: 'Before',
      partner_settings: { base_url: 'https://partner.example/old', mcp_url: 'https://partner.example/old-mcp' },
    });
    const secret = uniqueSecret();
    const changes: Array<Record<string, unknown>> = [
      { name: 'Concurrent' },
      { color: '#00ff00' },
      ...SETTINGS_FIELDS.map((field) => ({ [field]: `${field} value` })),
      { partner_settings: { enabled: true } },
      { partner_settings: { base_url: 'https://partner.example' } },
      { partner_settings: { mcp_url: 'https://partner.example/mcp' } },
      { partner_settings: { project_id: 'project' } },
      { partner_settings: { auth_type: 'none' } },
      { partner_settings: { read_enabled: false } },
      { partner_settings: { write_enabled: true } },
      { partner_settings: { collections: ['c1', 'c2'] } },
      { partner_settings: { widget_project_id: 'widget' } },
      { partner_settings: { widget_search_sources: ['s1'] } },
      { partner_settings: { access_token: secret } },
    ];
    assert.equal(changes.length, 20);
    const responses = await Promise.all(changes.map((change) => putSite(site.id, change)));
    for (const response of responses) assert.equal(response.statusCode, 200, response.body);
    // Each update was applied on top of the one before: 20 distinct versions.
    assert.equal(new Set(responses.map((response) => response.headers.etag)).size, 20);

    const { site: after } = await readSite(site.id);
    assert.equal(after.name, 'Concurrent');
    assert.equal(after.color, '#00ff00');
    for (const field of SETTINGS_FIELDS) assert.equal(after[field], `${field} value`, field);
    assert.deepEqual(after.partner_settings, {
      enabled: true,
      base_url: 'https://partner.example',
      mcp_url: 'https://partner.example/mcp',
      project_id: 'project',
      auth_type: 'none',
      access_token_configured: true,
      read_enabled: false,
      write_enabled: true,
      collections: ['c1', 'c2'],
      widget_project_id: 'widget',
      widget_search_sources: ['s1'],
      last_status: 'unchecked',
      last_error: null,
      last_checked_at: null,
    });
    assert.equal(decryptStoredToken(String((await storedRow(site.id)).partner_access_token), site.id), secret);
  });
});

describe('authentication and scopes', () => {
  test('a request without Authorization is 401 with WWW-Authenticate on every sites route', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    const responses = [
      await request('GET', '/api/v1/sites'),
      await request('POST', '/api/v1/sites', { payload: { name: 'Anonymous' } }),
      await request('GET', siteUrl(site.id)),
      await request('PUT', siteUrl(site.id), { payload: { name: 'Anonymous' } }),
      await request('DELETE', siteUrl(site.id)),
    ];
    for (const response of responses) {
      assertProblem(response, 401, 'unauthenticated');
      assert.match(String(response.headers['www-authenticate']), /Bearer/);
    }
    assert.deepEqual(await readSite(site.id), before);
    assert.equal((await listAll(owner.bearer)).length, 1);
  });

  test('a PAT with only sites:read can read but not create, update or delete (403 insufficient_scope)', async () => {
    const site = await createSite(t.app, owner.bearer);
    const before = await readSite(site.id);
    const readOnly = await createAccessToken(t.app, owner, ['sites:read']);
    assert.equal((await request('GET', '/api/v1/sites', { authorization: readOnly.header })).statusCode, 200);
    assert.deepEqual((await readSite(site.id, readOnly.header)).site, before.site);
    assertProblem(await request('POST', '/api/v1/sites', { authorization: readOnly.header, payload: { name: 'No' } }), 403, 'insufficient_scope');
    assertProblem(await putSite(site.id, { name: 'No' }, { authorization: readOnly.header }), 403, 'insufficient_scope');
    assertProblem(await request('DELETE', siteUrl(site.id), { authorization: readOnly.header }), 403, 'insufficient_scope');
    assert.deepEqual(await readSite(site.id), before);
    assert.equal((await listAll(owner.bearer)).length, 1);
  });

  test('a PAT with only sites:write cannot read (403 insufficient_scope)', async () => {
    const site = await createSite(t.app, owner.bearer);
    const writeOnly = await createAccessToken(t.app, owner, ['sites:write']);
    assertProblem(await request('GET', '/api/v1/sites', { authorization: writeOnly.header }), 403, 'insufficient_scope');
    assertProblem(await request('GET', siteUrl(site.id), { authorization: writeOnly.header }), 403, 'insufficient_scope');
  });

  test('a default PAT can list, create, read, update and delete sites', async () => {
    const pat = await createAccessToken(t.app, owner);
    const created = await request('POST', '/api/v1/sites', { authorization: pat.header, payload: { name: 'By token' } });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ site: SiteJson }>().site.id;
    assert.deepEqual(
      (await listAll(pat.header)).map((site) => site.id),
      [id],
    );
    assert.equal((await readSite(id, pat.header)).site.name, 'By token');
    assert.equal(siteOf(await putSite(id, { name: 'Renamed by token' }, { authorization: pat.header })).name, 'Renamed by token');
    // The owner's JWT sees what the token wrote: same user.
    assert.equal((await readSite(id)).site.name, 'Renamed by token');
    assert.equal((await request('DELETE', siteUrl(id), { authorization: pat.header })).statusCode, 204);
    assertProblem(await request('GET', siteUrl(id), { authorization: pat.header }), 404, 'site_not_found');
  });
});
