import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestAppWithOwner, createSite, type SignedUpUser, signUp, type TestApp, usingPostgres } from '../../test/helpers.js';
import { SETTINGS_FIELDS, SITE_LIST_SORTS, type SiteListSort } from './contract.js';
import type { SiteJson, SiteSummaryJson } from './schema.js';

// GET /api/v1/sites with q, sort and fields=summary: real routing through app.inject, a real
// SQLite file (or PostgreSQL with TEST_DATABASE_URL), a fresh app per test.

let t: TestApp;
let owner: SignedUpUser;
beforeEach(async () => ({ t, owner } = await buildTestAppWithOwner()));
afterEach(() => t.close());

interface ListBody {
  sites: Array<SiteJson | SiteSummaryJson>;
  next_cursor: string | null;
  total?: number;
}

function get(url: string, authorization = owner.bearer): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers: { authorization } });
}

async function list(url: string, authorization = owner.bearer): Promise<ListBody> {
  const response = await get(url, authorization);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  return response.json<ListBody>();
}

function listUrl(parameters: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) query.set(name, value);
  return `/api/v1/sites?${query.toString()}`;
}

/** Follows next_cursor to the end; fails on a page that repeats a site or a walk that does not end. */
async function walk(parameters: Record<string, string | undefined>, authorization = owner.bearer): Promise<{ ids: string[]; pages: ListBody[] }> {
  const ids: string[] = [];
  const pages: ListBody[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const body = await list(listUrl({ ...parameters, cursor }), authorization);
    pages.push(body);
    ids.push(...body.sites.map((site) => site.id));
    if (body.next_cursor === null) return { ids, pages };
    cursor = body.next_cursor;
  }
  throw new Error('the walk did not end');
}

function assertProblem(response: LightMyRequestResponse, code: string, path: string): void {
  assert.equal(response.statusCode, 400, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const body = response.json<{ status: number; code: string; errors?: Array<{ path: string }> }>();
  assert.equal(body.status, 400);
  assert.equal(body.code, code, response.body);
  const paths = (body.errors ?? []).map((error) => error.path);
  assert.ok(paths.includes(path), `expected an error at ${path}, got ${response.body}`);
}

function putSite(id: string, payload: Record<string, unknown>, authorization = owner.bearer): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'PUT', url: `/api/v1/sites/${id}`, headers: { authorization }, payload });
}

/** The order the API documents, computed here from the full sites: the column (names in lower case), then the id. */
function expectedOrder(sites: readonly SiteJson[], sort: SiteListSort): string[] {
  const column = sort.replace(/^-/, '');
  const value = (site: SiteJson): string => (column === 'name' ? site.name.toLowerCase() : column === 'updated_at' ? site.updated_at : '');
  const ascending = [...sites].sort((a, b) => {
    const byValue = value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0;
    return byValue !== 0 ? byValue : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  const ids = ascending.map((site) => site.id);
  return sort.startsWith('-') ? ids.reverse() : ids;
}

describe('sorting and paging', () => {
  test('every sort pages through 130 sites with equal names and timestamps without a repeat or a gap, ties in id order', async () => {
    // Five names in two cases, several sites created in the same millisecond, updates at shared times.
    const names = ['Alpha', 'alpha', 'Beta', 'beta', 'Gamma'];
    const ids: string[] = [];
    for (let index = 0; index < 130; index++) {
      ids.push((await createSite(t.app, owner.bearer, { name: names[index % names.length] })).id);
      if (index % 4 === 0) t.clock.advance(1000);
    }
    for (const [index, id] of ids.entries()) {
      if (index % 3 !== 0) continue;
      if (index % 9 === 0) t.clock.advance(500);
      assert.equal((await putSite(id, { color: '#123' })).statusCode, 200);
    }
    const all = (await walk({ limit: '100' })).pages.flatMap((page) => page.sites) as SiteJson[];
    assert.equal(all.length, 130);

    for (const sort of SITE_LIST_SORTS) {
      const expected = expectedOrder(all, sort);
      for (const fields of [undefined, 'summary']) {
        const { ids: seen, pages } = await walk({ sort, fields, limit: '7' });
        assert.equal(new Set(seen).size, seen.length, `${sort} ${fields}: a site appeared twice`);
        assert.deepEqual(seen, expected, `${sort} ${fields}`);
        assert.equal(pages.length, Math.ceil(130 / 7));
        if (fields === 'summary') for (const page of pages) assert.equal(page.total, 130);
        else for (const page of pages) assert.equal(page.total, undefined);
      }
    }
  });

  test('sort=created_at is the default order, with the same bytes and cursors', async () => {
    for (let index = 0; index < 5; index++) {
      await createSite(t.app, owner.bearer, { name: `Site ${index}` });
      t.clock.advance(1000);
    }
    const plain = await get('/api/v1/sites?limit=2');
    const explicit = await get('/api/v1/sites?limit=2&sort=created_at');
    assert.equal(explicit.body, plain.body);
    const cursor = plain.json<ListBody>().next_cursor;
    assert.equal(typeof cursor, 'string');
    // The default list's cursor is the last id, as it has always been.
    assert.equal(Buffer.from(String(cursor), 'base64url').toString('utf8'), plain.json<ListBody>().sites[1]?.id);
    const second = await get(`/api/v1/sites?limit=2&cursor=${encodeURIComponent(String(cursor))}&sort=created_at`);
    assert.equal(second.body, (await get(`/api/v1/sites?limit=2&cursor=${encodeURIComponent(String(cursor))}`)).body);
  });

  test('a page walk stays whole while sites are created in parallel', async () => {
    for (let index = 0; index < 30; index++) await createSite(t.app, owner.bearer, { name: `Site ${String(index).padStart(2, '0')}` });
    const before = new Set((await walk({ limit: '100' })).ids);
    const writes = Promise.all(Array.from({ length: 10 }, (_, index) => createSite(t.app, owner.bearer, { name: `Zeta ${index}` })));
    const walks = await Promise.all(SITE_LIST_SORTS.map((sort) => walk({ sort, limit: '4', fields: 'summary' })));
    await writes;
    for (const { ids } of walks) {
      assert.equal(new Set(ids).size, ids.length, 'a site appeared twice');
      for (const id of before) assert.ok(ids.includes(id), 'a site that existed throughout went missing');
    }
  });
});

describe('searching by name', () => {
  test('q matches a part of the name in any case, and %, _ and \\ are plain characters', async () => {
    const names = ['Help Centre', 'help desk', 'HELPLINE', '100% uptime', '100 percent', 'snake_case', 'snakeXcase', 'back\\slash', 'backslash', 'Other'];
    const idByName = new Map<string, string>();
    for (const name of names) idByName.set(name, (await createSite(t.app, owner.bearer, { name })).id);
    const found = async (q: string): Promise<string[]> => {
      const body = await list(listUrl({ q, fields: 'summary', sort: 'name' }));
      assert.equal(body.total, body.sites.length);
      return body.sites.map((site) => site.name);
    };
    assert.deepEqual(await found('HeLp'), ['Help Centre', 'help desk', 'HELPLINE']);
    assert.deepEqual(await found('%'), ['100% uptime']);
    assert.deepEqual(await found('0%'), ['100% uptime']);
    assert.deepEqual(await found('_'), ['snake_case']);
    assert.deepEqual(await found('e_c'), ['snake_case']);
    assert.deepEqual(await found('\\'), ['back\\slash']);
    assert.deepEqual(await found('%%'), []);
    assert.deepEqual(await found('nothing like it'), []);
    assert.equal((await found('')).length, names.length);
    // The full representation searches the same way.
    const full = await list(listUrl({ q: 'desk' }));
    assert.deepEqual(
      full.sites.map((site) => site.id),
      [idByName.get('help desk')],
    );
    assert.equal((full.sites[0] as SiteJson).ai_settings, '');
  });

  test('non-ASCII names are found as typed; case is folded as far as the database can', async () => {
    await createSite(t.app, owner.bearer, { name: 'Ünïcode Straße' });
    await createSite(t.app, owner.bearer, { name: '日本語サイト' });
    const names = async (q: string) => (await list(listUrl({ q }))).sites.map((site) => site.name);
    assert.deepEqual(await names('Straße'), ['Ünïcode Straße']);
    assert.deepEqual(await names('straße'), ['Ünïcode Straße']);
    assert.deepEqual(await names('Ünï'), ['Ünïcode Straße']);
    assert.deepEqual(await names('語サ'), ['日本語サイト']);
    // PostgreSQL (UTF-8 locale) folds every letter; SQLite's lower() folds A to Z only.
    assert.deepEqual(await names('ünï'), usingPostgres() ? ['Ünïcode Straße'] : []);
  });

  test('paging through a search keeps to the search', async () => {
    for (let index = 0; index < 25; index++) await createSite(t.app, owner.bearer, { name: index % 2 === 0 ? `Even ${index}` : `Odd ${index}` });
    for (const sort of SITE_LIST_SORTS) {
      const { ids, pages } = await walk({ q: 'even', sort, limit: '4', fields: 'summary' });
      assert.equal(ids.length, 13, sort);
      assert.equal(new Set(ids).size, 13, sort);
      for (const page of pages) for (const site of page.sites) assert.match(site.name, /^Even/);
      for (const page of pages) assert.equal(page.total, 13);
    }
  });
});

describe('the summary representation', () => {
  test('names the settings groups that hold something and the partner health, and nothing else', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Summary', color: '#ABC' });
    const updated = await putSite(site.id, {
      ai_settings: '{"model":"small"}',
      email_settings: '   ',
      widget: '{ }',
      portal: '[]',
      branding: 'plain text counts',
      public_theme: '',
      knowledge_sources: '[{"type":"url"}]',
      partner_settings: { enabled: true, base_url: 'https://partner.example.com', access_token: 'secret-token-value' },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    const full = updated.json<{ site: SiteJson }>().site;
    const body = await list('/api/v1/sites?fields=summary');
    assert.deepEqual(Object.keys(body).sort(), ['next_cursor', 'sites', 'total']);
    assert.equal(body.total, 1);
    assert.deepEqual(body.sites[0], {
      id: site.id,
      workspace_id: site.workspace_id,
      name: 'Summary',
      color: '#abc',
      created_at: full.created_at,
      updated_at: full.updated_at,
      configured: ['ai_settings', 'branding', 'knowledge_sources'],
      partner: { enabled: true, access_token_configured: true, last_status: 'unchecked', last_checked_at: null },
    });
    const raw = (await get('/api/v1/sites?fields=summary')).body;
    assert.doesNotMatch(raw, /secret-token-value|partner\.example\.com|model/);
  });

  test('an empty list has total 0 and no cursor', async () => {
    assert.deepEqual(await list('/api/v1/sites?fields=summary'), { sites: [], next_cursor: null, total: 0 });
    assert.deepEqual(await list('/api/v1/sites?q=x&sort=-name'), { sites: [], next_cursor: null });
  });

  test('every settings group can be reported as configured', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'All' });
    const all = Object.fromEntries(SETTINGS_FIELDS.map((field) => [field, 'x']));
    assert.equal((await putSite(site.id, all)).statusCode, 200);
    const summary = (await list('/api/v1/sites?fields=summary')).sites[0] as SiteSummaryJson;
    assert.deepEqual(summary.configured, [...SETTINGS_FIELDS]);
  });
});

describe('another user and changes', () => {
  test("another user's sites never appear in any search, sort or summary, nor in its total", async () => {
    const other = await signUp(t.app);
    const mine = new Set<string>();
    for (const name of ['Shared name', 'shared NAME 2', 'Mine only']) mine.add((await createSite(t.app, owner.bearer, { name })).id);
    for (const name of ['Shared name', 'Shared name 3', 'Theirs']) await createSite(t.app, other.bearer, { name });
    for (const sort of SITE_LIST_SORTS) {
      for (const q of [undefined, 'shared', 'a', '%']) {
        for (const fields of [undefined, 'summary']) {
          const { ids, pages } = await walk({ sort, q, fields, limit: '2' });
          for (const id of ids) assert.ok(mine.has(id), `${sort} ${q} ${fields}: another user's site`);
          if (fields === 'summary') assert.equal(pages[0]?.total, ids.length);
        }
      }
    }
  });

  test('a change is seen at once by every variant of the list, on the same server', async () => {
    const first = await createSite(t.app, owner.bearer, { name: 'Apple' });
    t.clock.advance(1000);
    await createSite(t.app, owner.bearer, { name: 'Banana' });
    const urls = ['/api/v1/sites?q=app', '/api/v1/sites?sort=-name', '/api/v1/sites?fields=summary', '/api/v1/sites?sort=-updated_at&fields=summary&q=a'];
    // Each asked twice, so that a cached answer exists before the change.
    for (const url of urls) {
      await list(url);
      await list(url);
    }
    t.clock.advance(60_000);
    assert.equal((await putSite(first.id, { name: 'Cherry' })).statusCode, 200);
    assert.deepEqual((await list(urls[0] ?? '')).sites, []);
    assert.deepEqual(
      (await list(urls[1] ?? '')).sites.map((site) => site.name),
      ['Cherry', 'Banana'],
    );
    const summary = await list(urls[2] ?? '');
    assert.deepEqual(
      summary.sites.map((site) => site.name),
      ['Cherry', 'Banana'],
    );
    assert.deepEqual(
      (await list(urls[3] ?? '')).sites.map((site) => site.name),
      ['Banana'],
    );
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${first.id}`, headers: { authorization: owner.bearer } })).statusCode, 204);
    const afterDelete = await list(urls[2] ?? '');
    assert.equal(afterDelete.total, 1);
    assert.deepEqual(
      afterDelete.sites.map((site) => site.name),
      ['Banana'],
    );
    await createSite(t.app, owner.bearer, { name: 'Apricot' });
    assert.deepEqual(
      (await list(urls[0] ?? '')).sites.map((site) => site.name),
      [],
    );
    assert.deepEqual(
      (await list('/api/v1/sites?q=ap')).sites.map((site) => site.name),
      ['Apricot'],
    );
    assert.equal((await list(urls[2] ?? '')).total, 2);
  });
});

describe('bad list parameters', () => {
  test('each bad value is 400 problem+json naming the parameter', async () => {
    await createSite(t.app, owner.bearer);
    const cases: Array<[string, string]> = [
      ['sort=bogus', '/querystring/sort'],
      ['sort=NAME', '/querystring/sort'],
      ['sort=', '/querystring/sort'],
      ['sort=name&sort=-name', '/querystring/sort'],
      ['fields=bogus', '/querystring/fields'],
      ['fields=', '/querystring/fields'],
      ['fields=summary&fields=summary', '/querystring/fields'],
      ['limit=0', '/querystring/limit'],
      ['limit=101', '/querystring/limit'],
      ['limit=abc', '/querystring/limit'],
      ['limit=1.5', '/querystring/limit'],
      [`q=${'q'.repeat(201)}`, '/querystring/q'],
      ['q=a&q=b', '/querystring/q'],
      [`cursor=${'c'.repeat(2049)}`, '/querystring/cursor'],
      ['order=name', '/querystring/order'],
    ];
    for (const [query, path] of cases) assertProblem(await get(`/api/v1/sites?${query}`), 'validation_failed', path);
    // The longest search is accepted.
    assert.equal((await get(`/api/v1/sites?q=${'q'.repeat(200)}`)).statusCode, 200);
  });

  test('a cursor is refused with invalid_cursor under another sort or search, or when tampered with', async () => {
    for (let index = 0; index < 5; index++) await createSite(t.app, owner.bearer, { name: `Name ${index}` });
    const cursorOf = async (query: string): Promise<string> => {
      const cursor = (await list(`/api/v1/sites?limit=2&${query}`)).next_cursor;
      assert.equal(typeof cursor, 'string', query);
      return String(cursor);
    };
    const byName = await cursorOf('sort=name');
    const byDefault = await cursorOf('');
    const searched = await cursorOf('q=name&sort=-updated_at');
    const reused: Array<[string, string]> = [
      [byName, 'sort=-name'],
      [byName, 'sort=updated_at'],
      [byName, ''],
      [byName, 'sort=name&q=n'],
      [byDefault, 'sort=name'],
      [byDefault, 'sort=-created_at'],
      [byDefault, 'q=name'],
      [searched, 'q=nam&sort=-updated_at'],
      [searched, 'q=NAME&sort=-updated_at'],
      [searched, 'sort=-updated_at'],
    ];
    for (const [cursor, query] of reused) {
      assertProblem(await get(`/api/v1/sites?limit=2&${query}&cursor=${encodeURIComponent(cursor)}`), 'invalid_cursor', '/querystring/cursor');
    }
    // The cursor serves its own query, with either representation.
    assert.equal((await get(`/api/v1/sites?limit=2&sort=name&fields=summary&cursor=${encodeURIComponent(byName)}`)).statusCode, 200);

    const decoded = JSON.parse(Buffer.from(byName, 'base64url').toString('utf8')) as unknown[];
    const tamper = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64url');
    const tampered = [
      tamper([...decoded.slice(0, 3), 'not-an-id']),
      tamper([...decoded.slice(0, 2), 42, decoded[3]]),
      tamper([...decoded.slice(0, 2), 'x'.repeat(201), decoded[3]]),
      tamper(decoded.slice(0, 3)),
      tamper({ sort: 'name' }),
      tamper('[not json'),
      tamper(null),
      'not base64 at all!',
      '',
    ];
    for (const cursor of tampered) {
      assertProblem(await get(`/api/v1/sites?limit=2&sort=name&cursor=${encodeURIComponent(cursor)}`), 'invalid_cursor', '/querystring/cursor');
    }
    const byUpdate = JSON.parse(Buffer.from(await cursorOf('sort=updated_at'), 'base64url').toString('utf8')) as unknown[];
    assertProblem(
      await get(`/api/v1/sites?limit=2&sort=updated_at&cursor=${tamper([...byUpdate.slice(0, 2), "2026' or 1=1", byUpdate[3]])}`),
      'invalid_cursor',
      '/querystring/cursor',
    );
  });

  test("another user's cursor only pages through the caller's own sites", async () => {
    const other = await signUp(t.app);
    for (let index = 0; index < 4; index++) await createSite(t.app, other.bearer, { name: `Theirs ${index}` });
    const mine = (await createSite(t.app, owner.bearer, { name: 'Mine' })).id;
    const theirCursor = (await list('/api/v1/sites?limit=1&sort=name', other.bearer)).next_cursor;
    const page = await list(`/api/v1/sites?limit=5&sort=name&cursor=${encodeURIComponent(String(theirCursor))}`);
    for (const site of page.sites) assert.equal(site.id, mine);
  });
});

describe('the OpenAPI description of the list', () => {
  test('names q, sort and fields, and describes both answers', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, { get: { parameters: Array<{ name: string; in: string; schema: { enum?: string[]; maxLength?: number } }>; responses: Record<string, unknown> } }>;
    }>();
    const operation = document.paths['/api/v1/sites']?.get;
    assert.ok(operation !== undefined);
    const parameter = (name: string) => operation.parameters.find((item) => item.name === name && item.in === 'query');
    assert.deepEqual(parameter('sort')?.schema.enum, [...SITE_LIST_SORTS]);
    assert.deepEqual(parameter('fields')?.schema.enum, ['summary']);
    assert.equal(parameter('q')?.schema.maxLength, 200);
    const answer = operation.responses['200'] as { content: { 'application/json': { schema: { anyOf: Array<{ required: string[] }> } } } };
    const shapes = answer.content['application/json'].schema.anyOf;
    assert.deepEqual(
      shapes.map((shape) => [...shape.required].sort()),
      [
        ['next_cursor', 'sites'],
        ['next_cursor', 'sites', 'total'],
      ],
    );
  });
});

describe('site names are trimmed', () => {
  test('leading and trailing whitespace is removed on create and update, before the length check', async () => {
    const created = await createSite(t.app, owner.bearer, { name: '  Help centre \t\n' });
    assert.equal(created.name, 'Help centre');
    const renamed = await putSite(created.id, { name: '\u00a0 Support  ' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json<{ site: SiteJson }>().site.name, 'Support');
    const longest = ` ${'n'.repeat(200)}   `;
    const long = await putSite(created.id, { name: longest });
    assert.equal(long.statusCode, 200, long.body);
    assert.equal(long.json<{ site: SiteJson }>().site.name, 'n'.repeat(200));
    assert.equal((await list('/api/v1/sites?q=nnn&fields=summary')).sites[0]?.name, 'n'.repeat(200));
    // Inner spaces stay.
    assert.equal((await createSite(t.app, owner.bearer, { name: ' a  b ' })).name, 'a  b');
  });

  test('a name of whitespace only is 400 naming name, and changes nothing', async () => {
    const site = await createSite(t.app, owner.bearer, { name: 'Kept' });
    for (const name of [' ', '   ', '\t\n', '\u00a0\u2003']) {
      assertProblem(await putSite(site.id, { name }), 'validation_failed', '/name');
      assertProblem(await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers: { authorization: owner.bearer }, payload: { name } }), 'validation_failed', '/name');
    }
    assertProblem(await putSite(site.id, { name: 'n'.repeat(201) }), 'validation_failed', '/name');
    const body = await list('/api/v1/sites?fields=summary');
    assert.equal(body.total, 1);
    assert.equal(body.sites[0]?.name, 'Kept');
  });
});
