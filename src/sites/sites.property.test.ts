import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { SETTINGS_FIELDS, type SiteJson } from './schema.js';

// Random bodies thrown at PUT /api/v1/sites/{id}. Whatever arrives, the service answers 200 or a
// 4xx problem document, never a 5xx; a refused update leaves the site exactly as it was; an
// accepted one is what a following GET returns, and equals the site merged by the documented rules.

const NUM_RUNS = 200;

interface Fixture {
  t: TestApp;
  user: SignedUpUser;
  siteId: string;
}

async function withFixture(run: (fixture: Fixture) => Promise<void>): Promise<void> {
  const t = await buildTestApp();
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, {
      name: 'Property site',
      color: '#123abc',
      ai_settings: 'ai',
      partner_settings: { enabled: true, base_url: 'https://partner.example', collections: ['one'], access_token: 'initial-partner-token' },
    });
    await run({ t, user, siteId: site.id });
  } finally {
    await t.close();
  }
}

async function readSite({ t, user, siteId }: Fixture): Promise<{ site: SiteJson; etag: string }> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200, response.body);
  return { site: response.json<{ site: SiteJson }>().site, etag: String(response.headers.etag) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => hasKey(item, key));
  if (isObject(value)) return Object.entries(value).some(([name, item]) => name === key || hasKey(item, key));
  return false;
}

const CLIENT_PARTNER_FIELDS = [
  'enabled',
  'base_url',
  'mcp_url',
  'project_id',
  'auth_type',
  'read_enabled',
  'write_enabled',
  'collections',
  'widget_project_id',
  'widget_search_sources',
] as const;

function originOf(url: string): string {
  try {
    return url === '' ? '' : new URL(url).origin;
  } catch {
    return '';
  }
}

function partnerOrigins(settings: { base_url: string; mcp_url: string }): string {
  return `${originOf(settings.base_url)} ${originOf(settings.mcp_url)}`;
}

/** The documented merge, as a model: what the site must be after an accepted update. */
function expectedAfterUpdate(before: SiteJson, body: Record<string, unknown>, now: string): SiteJson {
  const site: SiteJson = structuredClone(before);
  const record = site as unknown as Record<string, unknown>;
  // Names are trimmed before they are checked and stored.
  if (typeof body.name === 'string') site.name = body.name.trim();
  if (typeof body.color === 'string') site.color = body.color.toLowerCase();
  for (const field of SETTINGS_FIELDS) {
    if (typeof body[field] === 'string') record[field] = body[field];
  }
  const partner = body.partner_settings;
  if (isObject(partner)) {
    const merged = site.partner_settings as unknown as Record<string, unknown>;
    const originsBefore = partnerOrigins(site.partner_settings);
    for (const field of CLIENT_PARTNER_FIELDS) {
      if (field in partner) merged[field] = partner[field];
    }
    if ('access_token' in partner) {
      site.partner_settings.access_token_configured = partner.access_token !== null && partner.access_token !== '';
    } else if (partnerOrigins(site.partner_settings) !== originsBefore) {
      // While a token is stored it is bound to the origins the site has, so any origin change clears it.
      site.partner_settings.access_token_configured = false;
    }
  }
  site.updated_at = now;
  return site;
}

/**
 * Sends one body and checks every property. The body is sent as raw text with
 * content-type application/json, so invalid JSON reaches the server as it is.
 */
async function putAndCheck(fixture: Fixture, payload: string): Promise<number> {
  const { t, user, siteId } = fixture;
  const before = await readSite(fixture);
  t.clock.advance(1000);
  const response = await t.app.inject({
    method: 'PUT',
    url: `/api/v1/sites/${siteId}`,
    headers: { authorization: user.bearer, 'content-type': 'application/json' },
    payload,
  });
  const after = await readSite(fixture);

  assert.ok(response.statusCode < 500, `status ${response.statusCode}: ${response.body}`);
  if (response.statusCode === 200) {
    const body = response.json<{ site: SiteJson }>();
    assert.ok(!hasKey(body, 'access_token'), 'the access token left the server');
    assert.deepEqual(body.site, after.site);
    assert.equal(response.headers.etag, after.etag);
    assert.notEqual(after.etag, before.etag);
    // The server read the body as UTF-8 bytes; decode the same way before modelling it.
    const sent = JSON.parse(Buffer.from(payload, 'utf8').toString('utf8')) as Record<string, unknown>;
    assert.deepEqual(after.site, expectedAfterUpdate(before.site, sent, t.clock.now().toISOString()));
    return response.statusCode;
  }
  assert.ok(response.statusCode >= 400, `status ${response.statusCode}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const problem = response.json<{ type: unknown; title: unknown; status: unknown; detail: unknown; code: unknown }>();
  assert.equal(problem.status, response.statusCode);
  assert.equal(typeof problem.code, 'string');
  assert.ok(String(problem.code).length > 0);
  assert.equal(typeof problem.type, 'string');
  assert.equal(typeof problem.title, 'string');
  assert.equal(typeof problem.detail, 'string');
  assert.deepEqual(after, before, `a refused update (${response.statusCode}) changed the site`);
  return response.statusCode;
}

// Values: any JSON, including strings of any UTF-16 code units (NUL, unpaired surrogates).
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }));
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.constantFrom('', '   ', 'Help centre', 'x'.repeat(200), 'x'.repeat(201), '\u0000', '\ud800', 'Emoji 😀'),
);
const color = fc.oneof(
  fc.constantFrom('#abc', '#ABC', '#A1B2C3', 'red', '#abcd', 'abc', '#ggg', ''),
  fc.stringMatching(/^#[0-9a-fA-F]{2,7}$/),
);
const url = fc.oneof(
  fc.constantFrom('', 'https://x.example/mcp', 'http://partner.example:8080/a?b=c', 'ftp://x', 'not a url', 'javascript:alert(1)', 'https://', ' https://x.example'),
  fc.webUrl(),
);
const boolean = fc.oneof(fc.boolean(), anyJson);
const tags = fc.oneof(fc.array(text, { maxLength: 4 }), anyJson);
const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyJson });

/** An unknown key now and then, to be refused; `__proto__` included. */
function withStrayKey(arbitrary: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    { weight: 5, arbitrary },
    {
      weight: 1,
      arbitrary: fc
        .tuple(arbitrary, fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('nickname', 'colour', 'user_id', 'version', '__proto__')), anyJson)
        .map(([object, key, value]) => {
          const copy: Record<string, unknown> = { ...object };
          Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
          return copy;
        }),
    },
  );
}

const partnerSettings = withStrayKey(
  fc.record(
    {
      enabled: boolean,
      base_url: maybe(url),
      mcp_url: maybe(url),
      project_id: maybe(text),
      auth_type: maybe(fc.constantFrom('none', 'bearer', 'token', 'basic', 'Bearer')),
      access_token: maybe(fc.oneof(text, fc.constant(null), fc.constant(''))),
      access_token_configured: anyJson,
      read_enabled: boolean,
      write_enabled: boolean,
      collections: tags,
      widget_project_id: maybe(text),
      widget_search_sources: tags,
      last_status: anyJson,
      last_error: anyJson,
      last_checked_at: anyJson,
    },
    { requiredKeys: [] },
  ),
);

const settingsRecord = Object.fromEntries(SETTINGS_FIELDS.map((field) => [field, maybe(text)])) as Record<(typeof SETTINGS_FIELDS)[number], fc.Arbitrary<unknown>>;

const siteBody = withStrayKey(
  fc.record(
    {
      id: anyJson,
      created_at: anyJson,
      updated_at: anyJson,
      name: maybe(text),
      color: maybe(color),
      ...settingsRecord,
      partner_settings: maybe(partnerSettings),
    },
    { requiredKeys: [] },
  ),
);

// The same shape with well-typed values only, so that accepted updates are common too. Now and
// then a string holds what no database keeps as sent (NUL, an unpaired surrogate): refused, never
// stored altered or answered with a 5xx.
const validText = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom('a\u0000b', '\ud800', 'x\udfffy', 'Emoji \ud83d\ude00', 'déjà vu') },
);
const validPartnerSettings = fc.record(
  {
    enabled: fc.boolean(),
    base_url: fc.oneof(fc.constant(''), fc.webUrl()),
    mcp_url: fc.oneof(fc.constant(''), fc.webUrl()),
    project_id: validText,
    auth_type: fc.constantFrom('none', 'bearer', 'token'),
    access_token: fc.oneof(validText, fc.constant(null)),
    access_token_configured: anyJson,
    read_enabled: fc.boolean(),
    write_enabled: fc.boolean(),
    collections: fc.array(validText, { maxLength: 4 }),
    widget_project_id: validText,
    widget_search_sources: fc.array(validText, { maxLength: 4 }),
    last_status: anyJson,
  },
  { requiredKeys: [] },
);
const validSiteBody = fc.record(
  {
    updated_at: anyJson,
    name: validText.filter((name) => name.trim() !== ''),
    color: fc.stringMatching(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
    ...(Object.fromEntries(SETTINGS_FIELDS.map((field) => [field, validText])) as Record<(typeof SETTINGS_FIELDS)[number], fc.Arbitrary<string>>),
    partner_settings: validPartnerSettings,
  },
  { requiredKeys: [] },
);
const anySiteBody = fc.oneof(validSiteBody, siteBody);

/** JSON text of a plausible body, cut or with characters spliced in. */
const damagedJson = fc
  .tuple(anySiteBody.map((body) => JSON.stringify(body)), fc.nat(), fc.nat({ max: 5 }), fc.string({ maxLength: 3 }))
  .map(([json, at, remove, insert]) => {
    const position = at % (json.length + 1);
    return json.slice(0, position) + insert + json.slice(position + remove);
  });

const jsonishCharacters = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', 'n', 'u', 'l', 't', 'r', 'e', '0', '1', '-', '.', 'e', '\\', 'name', 'color');

test('PUT with any JSON value as the body never fails with a 5xx and never changes the site unless it answers 200', async () => {
  await withFixture(async (fixture) => {
    await fc.assert(
      fc.asyncProperty(anyJson, async (value) => {
        await putAndCheck(fixture, JSON.stringify(value));
      }),
      { numRuns: NUM_RUNS },
    );
    // No refused body cleared the token on the way.
    assert.equal((await readSite(fixture)).site.partner_settings.access_token_configured, true);
  });
});

test('PUT with random mixes of real field names and random values obeys the merge rules or changes nothing', async () => {
  await withFixture(async (fixture) => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(anySiteBody, async (body) => {
        const status = await putAndCheck(fixture, JSON.stringify(body));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }),
      { numRuns: NUM_RUNS },
    );
    // The generator is not degenerate: it reaches both outcomes, accepted updates and refused ones.
    assert.ok((statuses.get(200) ?? 0) > 0, `no accepted update among ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(400) ?? 0) > 0, `no refused update among ${JSON.stringify([...statuses])}`);
  });
});

test('PUT with random text as an application/json body never fails with a 5xx and never changes the site unless it answers 200', async () => {
  await withFixture(async (fixture) => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 60 }),
          fc.string({ unit: jsonishCharacters, maxLength: 40 }),
          damagedJson,
          fc.constantFrom('', ' ', 'null', '{}', '[]', '{"__proto__":{"name":"x"}}', '{"constructor":{"prototype":{"name":"x"}}}', '{"name":"a","name":5}'),
        ),
        async (payload) => {
          await putAndCheck(fixture, payload);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
