import { describe, expect, test } from 'vitest';
import { changeLines, objectChanges, SHOWN_LENGTH, type SiteVersion, versionSummary } from './historyText';

function version(overrides: Partial<SiteVersion>): SiteVersion {
  return {
    version: 2,
    created_at: '2026-11-23T10:15:00.000Z',
    actor: { id: 'ada', email: 'ada@example.com', name: 'Ada' },
    via: { type: 'session' },
    changes: [],
    restored_from: null,
    ...overrides,
  };
}

describe("a site's history in words", () => {
  test('a settings group is compared key by key, nested keys walked into, with the schema’s names', () => {
    const lines = changeLines({
      path: '/ai_settings',
      before: '{"model":"small","tone":"friendly","handoff":{"enabled":false},"old":1}',
      after: '{"model":"small","tone":"concise","handoff":{"enabled":true},"language":"de"}',
    });
    expect(lines).toEqual([
      { label: 'AI assistant › Tone', kind: 'changed', before: 'friendly', after: 'concise' },
      { label: 'AI assistant › Hand-off to a person › Hand off to a person', kind: 'changed', before: 'false', after: 'true' },
      { label: 'AI assistant › old', kind: 'removed', before: '1' },
      { label: 'AI assistant › Answer language', kind: 'added', after: 'de' },
    ]);
  });

  test('an empty group counts as an empty object, and a change of formatting alone says so', () => {
    expect(changeLines({ path: '/widget', before: '', after: '{"position":"left"}' })).toEqual([{ label: 'Chat widget › Position', kind: 'added', after: 'left' }]);
    expect(changeLines({ path: '/widget', before: '{"position":"left"}', after: '{\n  "position": "left"\n}' })).toEqual([{ label: 'Chat widget', kind: 'formatting' }]);
  });

  test('text that is not a JSON object is shown whole, shortened past a limit with the full value kept', () => {
    const long = 'x'.repeat(SHOWN_LENGTH + 10);
    const [line] = changeLines({ path: '/portal', before: 'not json', after: long });
    expect(line?.before).toBe('not json');
    expect(line?.after).toBe(`${'x'.repeat(SHOWN_LENGTH)}…`);
    expect(line?.full).toEqual({ after: long });
  });

  test('plain fields, partner fields and the token, which says only how it changed', () => {
    expect(changeLines({ path: '/name', before: 'Old', after: 'New' })).toEqual([{ label: 'Name', kind: 'changed', before: 'Old', after: 'New' }]);
    expect(changeLines({ path: '/partner_settings/base_url', before: '', after: 'https://p.example' })).toEqual([
      { label: 'Base URL', kind: 'changed', before: '(empty)', after: 'https://p.example' },
    ]);
    expect(changeLines({ path: '/partner_settings/access_token', change: 'replaced' })).toEqual([{ label: 'Access token', kind: 'token', after: 'replaced' }]);
  });

  test('a list is compared whole, and keys with a slash are escaped in the pointer', () => {
    expect(objectChanges({ tags: ['a'], 'a/b': 1 }, { tags: ['a', 'b'], 'a/b': 2 })).toEqual([
      { pointer: '/tags', kind: 'changed', before: ['a'], after: ['a', 'b'] },
      { pointer: '/a~1b', kind: 'changed', before: 1, after: 2 },
    ]);
  });

  test('a version in a few words', () => {
    expect(versionSummary(version({ version: 1 }))).toBe('Created the site');
    expect(versionSummary(version({ restored_from: 3 }))).toBe('Restored version 3');
    expect(versionSummary(version({ changes: [{ path: '/name', before: 'a', after: 'b' }] }))).toBe('1 change');
  });
});
