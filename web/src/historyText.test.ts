import { describe, expect, test } from 'vitest';
import { changeLines, objectChanges, SHOWN_LENGTH, type SiteVersion, versionGap, versionSummary } from './historyText';

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
      { label: 'AI assistant › Tone', kind: 'changed', before: 'Friendly', after: 'Concise' },
      { label: 'AI assistant › Hand-off to a person › Hand off to a person', kind: 'changed', before: 'off', after: 'on' },
      { label: 'AI assistant › old', kind: 'removed', before: '1' },
      { label: 'AI assistant › Answer language', kind: 'added', after: 'de' },
    ]);
  });

  test('a setting path inside a group (as the history records it) is one line in the form’s words; an object set whole is told key by key', () => {
    expect(changeLines({ path: '/ai_settings/tone', before: 'friendly', after: 'concise' })).toEqual([{ label: 'AI assistant › Tone', kind: 'changed', before: 'Friendly', after: 'Concise' }]);
    expect(changeLines({ path: '/widget/position', after: 'bottom-left' })).toEqual([{ label: 'Chat widget › Position', kind: 'added', after: 'Bottom left' }]);
    expect(changeLines({ path: '/ai_settings/old', before: 1 })).toEqual([{ label: 'AI assistant › old', kind: 'removed', before: '1' }]);
    expect(changeLines({ path: '/ai_settings/handoff', after: { enabled: true } })).toEqual([{ label: 'AI assistant › Hand-off to a person › Hand off to a person', kind: 'added', after: 'on' }]);
  });

  test('an empty group counts as an empty object, and a change of formatting alone says so', () => {
    expect(changeLines({ path: '/widget', before: '', after: '{"position":"bottom-left"}' })).toEqual([{ label: 'Chat widget › Position', kind: 'added', after: 'Bottom left' }]);
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

  test('values read as the form shows them: option names, on and off, colours with a swatch', () => {
    expect(changeLines({ path: '/widget', before: '{"accent_color":"#111"}', after: '{"accent_color":"#4f46e5","show_branding":false}' })).toEqual([
      { label: 'Chat widget › Accent colour', kind: 'changed', before: '#111', after: '#4f46e5', swatch: { before: '#111', after: '#4f46e5' } },
      { label: 'Chat widget › Show "Powered by Siteward"', kind: 'added', after: 'off' },
    ]);
    expect(changeLines({ path: '/color', before: '#000', after: '#fff' })).toEqual([{ label: 'Colour', kind: 'changed', before: '#000', after: '#fff', swatch: { before: '#000', after: '#fff' } }]);
    // A choice the form does not offer stays as it is, and a text that merely looks like a colour gets no swatch.
    expect(changeLines({ path: '/portal', before: '{}', after: '{"visibility":"partners","title":"#abc"}' })).toEqual([
      { label: 'Help portal › Who can see it', kind: 'added', after: 'partners' },
      { label: 'Help portal › Portal title', kind: 'added', after: '#abc' },
    ]);
  });

  test('a hand-off set up whole is told setting by setting, with its choices named, not as a JSON blob', () => {
    const lines = changeLines({ path: '/ai_settings', before: '{}', after: '{"handoff":{"enabled":true,"triggers":["visitor_asks","negative_sentiment"],"email":"team@acme.example"}}' });
    expect(lines.map((each) => `${each.label}: ${each.after ?? ''}`)).toEqual([
      'AI assistant › Hand-off to a person › Hand off to a person: on',
      'AI assistant › Hand-off to a person › Hand off when: The visitor asks for a person, The visitor seems upset',
      'AI assistant › Hand-off to a person › Notify address: team@acme.example',
    ]);
  });

  test('knowledge sources are compared entry by entry', () => {
    const before = { sources: [{ name: 'Docs', type: 'website', url: 'https://docs.example' }] };
    const after = { sources: [{ name: 'Docs', type: 'sitemap', url: 'https://docs.example' }, { name: 'FAQ', type: 'faq', url: 'https://faq.example' }] };
    const lines = changeLines({ path: '/knowledge_sources', before: JSON.stringify(before), after: JSON.stringify(after) });
    expect(lines).toEqual([
      { label: 'Knowledge sources › Sources › Source 1 › Type', kind: 'changed', before: 'Website (crawled)', after: 'Sitemap' },
      { label: 'Knowledge sources › Sources › Source 2', kind: 'added', after: 'FAQ — https://faq.example' },
    ]);
  });

  test('a version counts the lines it shows, and numbers taken without a version are explained', () => {
    const twoKeys = version({ changes: [{ path: '/ai_settings', before: '{}', after: '{"model":"a","tone":"concise"}' }] });
    expect(versionSummary(twoKeys)).toBe('2 changes');
    expect(changeLines(twoKeys.changes[0] ?? { path: '/name', before: '', after: '' })).toHaveLength(2);
    expect(versionGap(5, 4)).toBeUndefined();
    expect(versionGap(5, 3)).toBe('Number 4 went to records that change no setting, such as partner connection checks: they are not kept as versions.');
    expect(versionGap(9, 5)).toMatch(/^Numbers 6–8 went/);
  });

  test('a list of plain values is compared whole, and keys with a slash are escaped in the pointer', () => {
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
