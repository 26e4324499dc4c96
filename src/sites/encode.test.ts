import assert from 'node:assert/strict';
import { test } from 'node:test';
import build from 'fast-json-stringify';
import { encodeSite, encodeSiteEnvelope, encodeSiteList } from './encode.js';
import type { SiteRow } from './queries.js';
import { SiteEnvelope, SiteList } from './schema.js';
import { DEFAULT_PARTNER_SETTINGS } from './defaults.js';
import { siteToJson } from './presenter.js';

function row(id: string, overrides: Partial<SiteRow> = {}): SiteRow {
  return {
    id,
    workspace_id: 'workspace',
    user_id: 'owner',
    name: 'Café "Ünïcode" \u2028 </script>',
    color: '#abcdef',
    ai_settings: '{"model":"x","temperature":0.2}',
    email_settings: 'plain text\nwith a newline and a tab\t',
    widget: '',
    portal: '{}',
    branding: '😀',
    public_theme: '\\backslash',
    knowledge_sources: '[]',
    partner_settings: JSON.stringify({ ...DEFAULT_PARTNER_SETTINGS, collections: ['a', 'b'], stray_key: 'never shown' }),
    partner_access_token: 'ciphertext that must never appear',
    partner_token_origins: '{"base_url":"","mcp_url":""}',
    version: 3,
    created_at: '2026-11-21T10:00:00.000Z',
    updated_at: '2026-11-21T11:00:00.000Z',
    deleted_at: null,
    deleted_by: null,
    public_key: 'spk_0123456789abcdefABCDEFGH',
    previous_public_key: null,
    previous_public_key_expires_at: null,
    ...overrides,
  };
}

test('encoded answers are byte for byte what the route schemas serialise', () => {
  const rows = [row('0001'), row('0002', { partner_access_token: null, name: 'B' }), row('0003', { partner_settings: '{}' })];
  const list = build(SiteList);
  for (const nextCursor of [null, 'MDAwMw']) {
    const encoded = encodeSiteList({ sites: rows.map(encodeSite), nextCursor });
    assert.equal(encoded.toString('utf8'), list({ sites: rows.map(siteToJson), next_cursor: nextCursor }));
  }
  assert.equal(encodeSiteList({ sites: [], nextCursor: null }).toString('utf8'), '{"sites":[],"next_cursor":null}');
  const envelope = build(SiteEnvelope);
  for (const one of rows) assert.equal(encodeSiteEnvelope(encodeSite(one)).toString('utf8'), envelope({ site: siteToJson(one) }));
});

test('an encoded site leaves out what the schema does not name, and never the token', () => {
  const encoded = encodeSite(row('0001'));
  const text = encoded.json.toString('utf8');
  assert.equal(text.includes('stray_key'), false);
  assert.equal(text.includes('ciphertext'), false);
  const parsed = JSON.parse(text) as { partner_settings: { access_token_configured: boolean; collections: string[] } };
  assert.equal(parsed.partner_settings.access_token_configured, true);
  assert.deepEqual(parsed.partner_settings.collections, ['a', 'b']);
  assert.equal(encoded.version, 3);
  assert.equal(encoded.json.buffer.byteLength, encoded.json.length, 'a buffer of its own, not a slice of a shared pool');
});
