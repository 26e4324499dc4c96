import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildTestAppWithOwner, createAccessToken, createSite, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { SETTINGS_FIELDS } from './contract.js';
import { SETTINGS_SCHEMAS, type SettingsSchemaGroup } from './settings-schemas.js';

// The settings groups' shapes: the schemas themselves, the examples docs/settings.md gives, and
// the routes that publish them, on a fresh app per test (SQLite, or PostgreSQL when configured).

let t: TestApp;
let owner: SignedUpUser;
beforeEach(async () => ({ t, owner } = await buildTestAppWithOwner()));
afterEach(() => t.close());

function compiler(): Ajv2020 {
  // strict: a misspelt keyword would silently check nothing. Formats are hints; patterns decide.
  return new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
}

/** The ```json blocks of docs/settings.md, by the group named in the heading above each. */
function documentedExamples(): Map<string, unknown[]> {
  const text = readFileSync(new URL('../../../docs/settings.md', import.meta.url), 'utf8');
  const examples = new Map<string, unknown[]>();
  let group: string | undefined;
  for (const part of text.split(/^(## .*|```json\n[\s\S]*?```)$/m)) {
    const heading = /^## .*`([a-z_]+)`$/.exec(part);
    if (heading?.[1] !== undefined) group = heading[1];
    else if (part.startsWith('```json') && group !== undefined) examples.set(group, [...(examples.get(group) ?? []), JSON.parse(part.slice(7, -3))]);
  }
  return examples;
}

test('there is one schema per settings group, each compiling under JSON Schema 2020-12 in strict mode', () => {
  assert.deepEqual(Object.keys(SETTINGS_SCHEMAS), [...SETTINGS_FIELDS]);
  const ajv = compiler();
  for (const [group, schema] of Object.entries(SETTINGS_SCHEMAS)) {
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema.$id, `urn:siteward:settings:${group}`);
    assert.equal(typeof schema.title, 'string');
    assert.equal(typeof ajv.compile(schema), 'function', group);
  }
});

test('every example in docs/settings.md validates against its group, and every group has one', () => {
  const examples = documentedExamples();
  assert.deepEqual([...examples.keys()].sort(), [...SETTINGS_FIELDS].sort());
  const ajv = compiler();
  for (const [group, list] of examples) {
    const validate = ajv.compile(SETTINGS_SCHEMAS[group as SettingsSchemaGroup]);
    for (const example of list) assert.equal(validate(example), true, `${group}: ${JSON.stringify(validate.errors)}`);
  }
});

test('the schemas refuse what breaks a rule and keep keys they do not name', () => {
  const ajv = compiler();
  const refused: Array<[SettingsSchemaGroup, unknown]> = [
    ['ai_settings', { temperature: 3 }],
    ['ai_settings', { tone: 'angry' }],
    ['ai_settings', { handoff: { email: 'not an address' } }],
    ['ai_settings', 'plain text'],
    ['ai_settings', ['an', 'array']],
    ['email_settings', { sender_address: 'support at acme' }],
    ['widget', { accent_color: '#12345' }],
    ['widget', { position: 'top' }],
    ['widget', { launcher_text: 'x'.repeat(41) }],
    ['portal', { custom_domain: 'not a host' }],
    ['portal', { path: 'help' }],
    ['branding', { logo_url: 'javascript:alert(1)' }],
    ['public_theme', { corner_radius: 2.5 }],
    ['knowledge_sources', { sources: [{ type: 'website' }] }],
    ['knowledge_sources', { sources: [{ type: 'ftp', url: 'https://acme.example' }] }],
    ['knowledge_sources', { sources: 'https://acme.example' }],
  ];
  for (const [group, value] of refused) assert.equal(ajv.compile(SETTINGS_SCHEMAS[group])(value), false, `${group} accepted ${JSON.stringify(value)}`);
  assert.equal(ajv.compile(SETTINGS_SCHEMAS.widget)({ position: 'bottom-left', custom_flag: { nested: true } }), true);
  assert.equal(ajv.compile(SETTINGS_SCHEMAS.ai_settings)({}), true, 'every key is optional');
});

test('GET /api/v1/settings-schemas answers every schema, and each group has its own address', async () => {
  const all = await t.app.inject({ method: 'GET', url: '/api/v1/settings-schemas', headers: { authorization: owner.bearer } });
  assert.equal(all.statusCode, 200);
  assert.match(String(all.headers['content-type']), /^application\/json/);
  assert.deepEqual(all.json(), JSON.parse(JSON.stringify({ schemas: SETTINGS_SCHEMAS })));
  for (const group of SETTINGS_FIELDS) {
    const one = await t.app.inject({ method: 'GET', url: `/api/v1/settings-schemas/${group}`, headers: { authorization: owner.bearer } });
    assert.equal(one.statusCode, 200, group);
    assert.match(String(one.headers['content-type']), /^application\/schema\+json/);
    assert.equal(one.json().$id, `urn:siteward:settings:${group}`);
  }
});

test('the schemas need the same credentials as reading sites: none is 401, a read-only access token may read them', async () => {
  const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/settings-schemas' });
  assert.equal(anonymous.statusCode, 401);
  assert.equal(anonymous.json().code, 'unauthenticated');
  const token = await createAccessToken(t.app, owner, ['sites:read']);
  const withToken = await t.app.inject({ method: 'GET', url: '/api/v1/settings-schemas/widget', headers: { authorization: token.header } });
  assert.equal(withToken.statusCode, 200);
});

test('an unknown group, or a name of any odd shape, is 404 settings_group_not_found as problem+json', async () => {
  for (const name of ['nope', 'partner_settings', 'AI_SETTINGS', '__proto__', 'constructor', 'widget.json', '%F0%9F%98%80', 'a'.repeat(100)]) {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/settings-schemas/${name}`, headers: { authorization: owner.bearer } });
    assert.equal(response.statusCode, 404, name);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    assert.equal(response.json().code, 'settings_group_not_found', name);
    assert.match(response.json().detail, /ai_settings, email_settings/);
  }
});

test('the API still stores any string in a settings group: plain text and JSON that breaks the shape', async () => {
  const site = await createSite(t.app, owner.bearer);
  const values = { ai_settings: 'Be nice.', widget: '{"accent_color":"red","position":"top"}', knowledge_sources: '[1,2,3]', portal: '{not json' };
  const response = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer }, payload: values });
  assert.equal(response.statusCode, 200);
  for (const [field, value] of Object.entries(values)) assert.equal(response.json().site[field], value);
});

test('the OpenAPI document lists both routes, with every schema in the first one\'s example', async () => {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  const document = response.json();
  const listing = document.paths['/api/v1/settings-schemas'].get.responses['200'].content['application/json'];
  assert.deepEqual(Object.keys(listing.schema.properties.schemas.properties), [...SETTINGS_FIELDS]);
  // The document generator drops $id and $schema from examples; the rest of each schema is there.
  for (const group of SETTINGS_FIELDS) assert.deepEqual(listing.example.schemas[group].properties, JSON.parse(JSON.stringify(SETTINGS_SCHEMAS[group].properties)), group);
  assert.ok(document.paths['/api/v1/settings-schemas/{group}'].get.responses['404']);
});
