import { describe, expect, test } from 'vitest';
import type { Site } from './api/types';
import { applyFormValues, changesOf, clientErrors, draftOf, fieldLabel, formStartValues, formValuesOf, rebaseDraft } from './siteDraft';
import { explainReading, readGroup } from './settingsText';

function site(overrides: Partial<Site> = {}): Site {
  return {
    id: 'site-1',
    name: 'Docs',
    color: '#0ea5e9',
    ai_settings: '',
    email_settings: '',
    widget: '',
    portal: '',
    branding: '',
    public_theme: '',
    knowledge_sources: '',
    partner_settings: {
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
    },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  } as Site;
}

describe('what the PUT body holds for each kind of edit', () => {
  test('an untouched draft sends nothing', () => {
    expect(changesOf(site(), draftOf(site()))).toEqual({});
  });

  test('a name is sent trimmed, and spaces alone around the stored name are no change', () => {
    const loaded = site();
    expect(changesOf(loaded, { ...draftOf(loaded), name: '  Docs portal ' })).toEqual({ name: 'Docs portal' });
    expect(changesOf(loaded, { ...draftOf(loaded), name: ' Docs ' })).toEqual({});
  });

  test('a colour differing only in case is no change; another colour is sent as typed', () => {
    const loaded = site();
    expect(changesOf(loaded, { ...draftOf(loaded), color: '#0EA5E9' })).toEqual({});
    expect(changesOf(loaded, { ...draftOf(loaded), color: '#0A7' })).toEqual({ color: '#0A7' });
  });

  test('a settings group is sent whole, as text; partner fields one by one; the token only when set or cleared', () => {
    const loaded = site();
    const draft = draftOf(loaded);
    draft.widget = applyFormValues('widget', loaded.widget, { position: 'bottom-left' });
    draft.partner.base_url = 'https://partner.example.com';
    draft.accessToken = { kind: 'replace', value: '' };
    expect(changesOf(loaded, draft)).toEqual({ widget: '{\n  "position": "bottom-left"\n}', partner_settings: { base_url: 'https://partner.example.com' } });
    draft.accessToken = { kind: 'clear' };
    expect(changesOf(loaded, draft).partner_settings).toEqual({ base_url: 'https://partner.example.com', access_token: '' });
  });

  test('a save that answered keeps what was typed meanwhile and takes the server\'s value for the rest', () => {
    const loaded = site();
    const sent = { ...draftOf(loaded), name: 'Sent' };
    const current = { ...sent, ai_settings: '{"tone":"friendly"}' };
    const fresh = draftOf(site({ name: 'Sent', updated_at: '2026-01-02T00:00:00.000Z' }));
    const next = rebaseDraft(sent, current, fresh);
    expect(next.name).toBe('Sent');
    expect(next.ai_settings).toBe('{"tone":"friendly"}');
  });
});

describe('form values and the stored text', () => {
  test('an empty group opens as an empty form, and a form left empty writes nothing', () => {
    expect(formValuesOf('widget', '')).toEqual({});
    expect(applyFormValues('widget', '', { ...formStartValues('widget', {}), launcher_text: '', show_branding: false, accent_color: '', corner: Number.NaN })).toBe('');
  });

  test('keys the form does not know survive a form edit, nested ones too', () => {
    const stored = JSON.stringify({ tone: 'friendly', vendor_flags: { beta: true }, handoff: { enabled: true, escalation_queue: 'tier-2' } });
    const values = formValuesOf('ai_settings', stored);
    expect(values).toBeDefined();
    const text = applyFormValues('ai_settings', stored, { ...values, tone: 'concise', handoff: { enabled: true, message: 'One moment' } });
    expect(JSON.parse(text)).toEqual({ tone: 'concise', vendor_flags: { beta: true }, handoff: { enabled: true, escalation_queue: 'tier-2', message: 'One moment' } });
  });

  test('values equal to what is stored give back the stored text byte for byte, whatever its spacing or key order', () => {
    const stored = '{"position":"bottom-left",   "enabled":true}';
    expect(applyFormValues('widget', stored, { enabled: true, position: 'bottom-left', greeting: '' })).toBe(stored);
  });

  test('clearing a field removes its key; unticking a box the group had writes false', () => {
    const stored = JSON.stringify({ greeting: 'Hi', enabled: true, show_branding: true });
    expect(JSON.parse(applyFormValues('widget', stored, { greeting: '', enabled: false }))).toEqual({ enabled: false, show_branding: true });
  });

  test('knowledge sources keep their order and their own unknown keys, and drop empty fields of new entries', () => {
    const stored = JSON.stringify({ sources: [{ type: 'faq', url: 'https://a.example/faq', crawler: 'v2' }] });
    const values = formValuesOf('knowledge_sources', stored) as { sources: Array<Record<string, unknown>> };
    const text = applyFormValues('knowledge_sources', stored, { sources: [...values.sources, { type: 'website', url: 'https://b.example', name: '', sync_interval: 'daily', enabled: true }] });
    expect(JSON.parse(text)).toEqual({ sources: [{ type: 'faq', url: 'https://a.example/faq', crawler: 'v2' }, { type: 'website', url: 'https://b.example', sync_interval: 'daily', enabled: true }] });
  });
});

describe('text that does not match the shape', () => {
  test('plain text, a list, and JSON breaking a rule each get a plain explanation and no form values', () => {
    for (const [field, text, words] of [
      ['ai_settings', 'Be nice to people.', /not JSON/],
      ['knowledge_sources', '["https://a.example"]', /a list rather than an object/],
      ['widget', '{"accent_color":"red"}', /Accent colour: Use a colour as #rgb or #rrggbb/],
      ['portal', '{"visibility":"everyone"}', /Who can see it: Choose one of: Everyone, Signed-in customers, Only your team/],
    ] as const) {
      expect(formValuesOf(field, text)).toBeUndefined();
      expect(explainReading(readGroup(field, text))).toMatch(words);
    }
  });

  test('stored text that does not match is not sent, and so cannot block saving another field', () => {
    const loaded = site({ widget: '{"accent_color":"red"}', ai_settings: 'free text' });
    const draft = { ...draftOf(loaded), name: 'Renamed' };
    const changes = changesOf(loaded, draft);
    expect(changes).toEqual({ name: 'Renamed' });
    expect(clientErrors(changes)).toEqual([]);
  });

  test('an edited group must be empty or match: each broken rule is reported at its field, named by its label', () => {
    const loaded = site();
    const draft = { ...draftOf(loaded), widget: '{"accent_color":"#12","launcher_text":"' + 'x'.repeat(41) + '"}', ai_settings: '{"tone": ', knowledge_sources: '{"sources":[{"type":"faq"}]}' };
    const errors = clientErrors(changesOf(loaded, draft));
    expect(errors).toContainEqual({ path: '/widget/accent_color', message: 'Use a colour as #rgb or #rrggbb, e.g. #4f46e5.' });
    expect(errors).toContainEqual({ path: '/widget/launcher_text', message: 'Use at most 40 characters.' });
    expect(errors.find((error) => error.path === '/ai_settings')?.message).toMatch(/^This is not valid JSON/);
    expect(errors).toContainEqual({ path: '/knowledge_sources/sources/0/url', message: 'This is required.' });
    expect(fieldLabel('/widget/accent_color')).toBe('Chat widget › Accent colour');
    expect(fieldLabel('/knowledge_sources/sources/0/url')).toBe('Knowledge sources › Sources › Source 1 › Address');
    expect(fieldLabel('/partner_settings/collections/3')).toBe('Collections, entry 4');
    expect(fieldLabel('/name')).toBe('Name');
  });

  test('a blank name and a colour that is not one are refused before the server is asked', () => {
    const loaded = site();
    expect(clientErrors(changesOf(loaded, { ...draftOf(loaded), name: '   ', color: 'blue' }))).toEqual([
      { path: '/name', message: 'Enter a name.' },
      { path: '/color', message: 'Use #rgb or #rrggbb, e.g. #4f46e5.' },
    ]);
  });
});

test('a form edited back to the saved values gives back the saved text, so the draft shows no change', () => {
  const saved = '{"position":"bottom-left"}';
  const edited = applyFormValues('widget', saved, { position: 'bottom-right' });
  expect(edited).not.toBe(saved);
  expect(applyFormValues('widget', edited, { position: 'bottom-left' }, saved)).toBe(saved);
});

test('a group over 64 KiB is refused as too large before its shape is judged, counted in UTF-8 bytes', () => {
  const loaded = site();
  const big = JSON.stringify({ instructions: 'é'.repeat(33 * 1024) });
  expect(big.length).toBeLessThan(64 * 1024);
  expect(clientErrors(changesOf(loaded, { ...draftOf(loaded), ai_settings: big }))).toEqual([{ path: '/ai_settings', message: 'Too large: at most 64 KiB.' }]);
});

test('JSON of every odd shape is explained, never thrown on', () => {
  for (const text of ['null', '42', '"text"', 'true', '[]', '{"handoff": []}', '{"temperature": "hot"}', '\u0000', '{'.repeat(100)]) {
    const reading = readGroup('ai_settings', text);
    expect(reading.kind).not.toBe('matches');
    expect(explainReading(reading)).toMatch(/kept exactly as stored/);
  }
});

test('a key named __proto__ is data: it survives a form edit and never becomes the prototype', () => {
  const stored = '{"__proto__":{"tone":"playful"},"tone":"friendly"}';
  const values = formValuesOf('ai_settings', stored);
  expect(values).toBeDefined();
  const text = applyFormValues('ai_settings', stored, { ...values, tone: 'concise' });
  const after = JSON.parse(text) as Record<string, unknown>;
  expect(Object.hasOwn(after, '__proto__')).toBe(true);
  expect(after.tone).toBe('concise');
  expect(text).toContain('"__proto__"');
});

test('a form shows the schema\'s defaults, and a field left at its default is not written', () => {
  const empty = { launcher_text: '', greeting: '', input_placeholder: '', accent_color: '', show_branding: false };
  expect(formStartValues('widget', {})).toEqual({ enabled: true, position: 'bottom-right', ...empty });
  expect(formStartValues('widget', { enabled: false })).toEqual({ enabled: false, position: 'bottom-right', ...empty });
  expect(applyFormValues('widget', '', { enabled: true, position: 'bottom-right', greeting: 'Hi' })).toBe('{\n  "greeting": "Hi"\n}');
  expect(JSON.parse(applyFormValues('widget', '{"enabled":true}', { enabled: true, position: 'bottom-left' }))).toEqual({ enabled: true, position: 'bottom-left' });
  expect(JSON.parse(applyFormValues('widget', '', { enabled: false, position: 'bottom-right' }))).toEqual({ enabled: false });
});

test('a form starts with every field the schema names, empty when the group has no value, at every depth: none keeps what an input last held', () => {
  expect(formStartValues('ai_settings', { tone: 'friendly', handoff: { enabled: true }, vendor: { beta: true } })).toEqual({
    model: '',
    instructions: '',
    tone: 'friendly',
    language: '',
    temperature: '',
    handoff: { enabled: true, triggers: [], message: '', email: '' },
    vendor: { beta: true },
  });
  expect(formStartValues('email_settings', {})).toEqual({ sender_name: '', sender_address: '', reply_to: '', signature: '', send_transcripts: false });
  // Empty fields write nothing: the group's text is not changed by them.
  expect(applyFormValues('ai_settings', '', formStartValues('ai_settings', {}))).toBe('');
  expect(applyFormValues('ai_settings', '{"tone":"friendly"}', formStartValues('ai_settings', { tone: 'friendly' }))).toBe('{"tone":"friendly"}');
});
