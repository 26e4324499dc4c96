import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { AUTH_TYPES } from './contract.js';
import { DEFAULT_PARTNER_SETTINGS } from './partner-settings.js';
import { encodeSiteEnvelope, encodeSiteList, encodeSummaryList, siteToJson } from './presenter.js';
import type { SiteRow } from './queries.js';
import { SiteEnvelope, SiteList, SiteSummaryList } from './schema.js';

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

// Text a client could have stored: any code point, quotes, backslashes, line separators.
const anyText = fc.string({ unit: 'binary', maxLength: 40 });
const anyTime = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString());
const storedPartnerSettings = fc
  .record(
    {
      enabled: fc.boolean(),
      base_url: anyText,
      auth_type: fc.constantFrom(...AUTH_TYPES),
      collections: fc.array(anyText, { maxLength: 3 }),
      last_status: fc.constantFrom('unchecked', 'ok', 'error'),
      last_error: fc.option(anyText, { nil: null }),
      last_checked_at: fc.option(anyTime, { nil: null }),
      stray_key: anyText,
    },
    // Rows written before a field existed lack it: the defaults fill it in.
    { requiredKeys: [] },
  )
  .map((settings) => JSON.stringify(settings));
const anyRow = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 12 }),
    name: anyText,
    email_settings: anyText,
    widget: fc.constantFrom('', '{}', '[ ]', '{"greeting":"hi"}', ' '),
    partner_settings: storedPartnerSettings,
    partner_access_token: fc.option(anyText, { nil: null }),
    created_at: anyTime,
    updated_at: anyTime,
  })
  .map((fields) => row(fields.id, fields));

test('what the encoders write validates against the schema its route declares, for any site', () => {
  fc.assert(
    fc.property(fc.array(anyRow, { maxLength: 4 }), fc.option(anyText, { nil: null }), fc.nat(), (rows, nextCursor, total) => {
      for (const one of rows) {
        const envelope: unknown = JSON.parse(encodeSiteEnvelope(one).toString('utf8'));
        assert.ok(Value.Check(SiteEnvelope, envelope), JSON.stringify(envelope));
        // The presented site, less what the schema does not name: nothing is lost on the way to bytes.
        const { stray_key: _stray, ...partner } = siteToJson(one).partner_settings as Record<string, unknown>;
        assert.deepEqual(envelope, { site: { ...siteToJson(one), partner_settings: partner } });
      }
      const list: unknown = JSON.parse(encodeSiteList(rows, nextCursor).toString('utf8'));
      assert.ok(Value.Check(SiteList, list), JSON.stringify(list));
      const summaries: unknown = JSON.parse(encodeSummaryList(rows, nextCursor, total).toString('utf8'));
      assert.ok(Value.Check(SiteSummaryList, summaries), JSON.stringify(summaries));
    }),
    { numRuns: 200 },
  );
});

test('an encoded site leaves out what the schema does not name, and never the token', () => {
  const encoded = encodeSiteEnvelope(row('0001'));
  const text = encoded.toString('utf8');
  assert.equal(text.includes('stray_key'), false);
  assert.equal(text.includes('ciphertext'), false);
  const parsed = JSON.parse(text) as { site: { partner_settings: { access_token_configured: boolean; collections: string[] } } };
  assert.equal(parsed.site.partner_settings.access_token_configured, true);
  assert.deepEqual(parsed.site.partner_settings.collections, ['a', 'b']);
  assert.equal(encoded.buffer.byteLength, encoded.length, 'a buffer of its own, not a slice of a shared pool');
  const list = encodeSiteList([row('0001'), row('0002')], null);
  assert.equal(list.buffer.byteLength, list.length, 'a buffer of its own, not a slice of a shared pool');
});
