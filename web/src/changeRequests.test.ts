import { describe, expect, test } from 'vitest';
import type { Site } from './api/types';
import {
  allSettled,
  approvalsText,
  carriedOver,
  statusLabel,
  conflictLines,
  editorConflicts,
  isoToLocalTime,
  localTimeToIso,
  proposalFieldPath,
  proposedDraft,
  rebasedDraft,
  reproposal,
  resolutionOf,
  valueAt,
} from './changeRequests';
import { draftOf } from './siteDraft';

function site(overrides: Partial<Site> = {}): Site {
  return {
    id: 'site-1',
    name: 'Docs',
    color: '#0f766e',
    ai_settings: '{"tone":"friendly"}',
    email_settings: '',
    widget: '{"greeting":"Hello"}',
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

describe("the editor's own conflict: two tabs saved the same site", () => {
  const base = site();
  const theirs = site({ name: 'Docs EU', ai_settings: '{"tone":"professional"}', partner_settings: { ...base.partner_settings, collections: ['faq'] } });

  test('only paths both sides changed, to different values, conflict', () => {
    const mine = { ...draftOf(base), ai_settings: '{"tone":"concise"}', widget: '{"greeting":"Hi"}', name: 'Docs EU ' };
    mine.partner = { ...mine.partner, collections: ['guides'] };
    expect(editorConflicts(base, theirs, mine)).toEqual([
      { path: '/ai_settings/tone', base: 'friendly', current: 'professional', proposed: 'concise' },
      { path: '/partner_settings/collections', base: [], current: ['faq'], proposed: ['guides'] },
    ]);
    // The same name on both sides (spaces aside) is agreement, not a conflict; an untouched path never conflicts.
    expect(editorConflicts(base, theirs, draftOf(base))).toEqual([]);
  });

  test('the draft moved onto their version keeps their changes and mine, each conflict as chosen', () => {
    const mine = { ...draftOf(base), ai_settings: '{"tone":"concise"}', widget: '{"greeting":"Hi"}', color: '#ABCDEF', accessToken: { kind: 'replace', value: 'secret' } as const };
    mine.partner = { ...mine.partner, collections: ['guides'] };
    const keepMine = rebasedDraft(base, theirs, mine, { '/ai_settings/tone': 'proposed', '/partner_settings/collections': 'current' });
    expect(keepMine.ai_settings).toBe('{"tone":"concise"}');
    expect(keepMine.partner.collections).toEqual(['faq']);
    expect(keepMine.widget).toBe('{"greeting":"Hi"}');
    expect(keepMine.name).toBe('Docs EU');
    expect(keepMine.color).toBe('#ABCDEF');
    expect(keepMine.accessToken).toEqual({ kind: 'replace', value: 'secret' });
    const takeTheirs = rebasedDraft(base, theirs, mine, { '/ai_settings/tone': 'current', '/partner_settings/collections': 'proposed' });
    expect(takeTheirs.ai_settings).toBe('{"tone":"professional"}');
    expect(takeTheirs.partner.collections).toEqual(['guides']);
    // The draft given is left as it was.
    expect(mine.partner.collections).toEqual(['guides']);
  });

  test('two people changing different settings of one group keep both; only a setting both changed is a choice', () => {
    const start = site({ widget: '{"greeting":"Hello","position":"bottom-right","launcher_text":"Chat"}' });
    const saved = site({ widget: '{"greeting":"Hello","position":"bottom-left","launcher_text":"Ask us"}' });
    const mine = { ...draftOf(start), widget: '{\n  "greeting": "Welcome",\n  "position": "bottom-right",\n  "launcher_text": "Help"\n}' };
    expect(editorConflicts(start, saved, mine)).toEqual([{ path: '/widget/launcher_text', base: 'Chat', current: 'Ask us', proposed: 'Help' }]);
    expect(carriedOver(start, saved, mine)).toEqual({ theirs: ['/widget/position'], mine: ['/widget/greeting'] });
    // Their key order and one-line layout, my greeting, their position, the launcher text as chosen.
    expect(rebasedDraft(start, saved, mine, { '/widget/launcher_text': 'proposed' }).widget).toBe('{"greeting":"Welcome","position":"bottom-left","launcher_text":"Help"}');
    expect(rebasedDraft(start, saved, mine, { '/widget/launcher_text': 'current' }).widget).toBe('{"greeting":"Welcome","position":"bottom-left","launcher_text":"Ask us"}');
    // Text that is not an object on either side is one choice for the whole group.
    expect(editorConflicts(start, saved, { ...draftOf(start), widget: 'not json' }).map((conflict) => conflict.path)).toEqual(['/widget']);
  });

  test('every conflict needs its choice before anything is sent', () => {
    const conflicts = editorConflicts(base, theirs, { ...draftOf(base), ai_settings: '{"tone":"concise"}' });
    expect(allSettled(conflicts, {})).toBe(false);
    expect(allSettled(conflicts, { '/ai_settings': 'proposed' })).toBe(false);
    expect(allSettled(conflicts, { '/ai_settings/tone': 'proposed' })).toBe(true);
    expect(allSettled([], {})).toBe(true);
  });
});

describe("a change request's conflicts and proposal", () => {
  test('a settings group is told key by key, only where now and the proposal differ, in the forms’ words', () => {
    const lines = conflictLines({ path: '/ai_settings', base: '{"tone":"friendly","model":"small"}', current: '{"tone":"professional","model":"small"}', proposed: '{"tone":"concise","model":"small"}' });
    expect(lines).toEqual([{ label: 'AI assistant › Tone', base: 'Friendly', current: 'Professional', proposed: 'Concise', swatch: {} }]);
    const added = conflictLines({ path: '/widget', base: '', current: '{"greeting":"Hey"}', proposed: '{"greeting":"Hi"}' });
    expect(added).toEqual([{ label: 'Chat widget › Greeting', base: '(not set)', current: 'Hey', proposed: 'Hi', swatch: {} }]);
  });

  test('a colour comes with its swatches; a path outside the groups is one line', () => {
    expect(conflictLines({ path: '/color', base: '#0f766e', current: '#991b1b', proposed: '#166534' })).toEqual([
      { label: 'Colour', base: '#0f766e', current: '#991b1b', proposed: '#166534', swatch: { base: '#0f766e', current: '#991b1b', proposed: '#166534' } },
    ]);
    expect(conflictLines({ path: '/partner_settings/enabled', base: false, current: true, proposed: false })).toEqual([{ label: 'Integration enabled', base: 'off', current: 'on', proposed: 'off', swatch: {} }]);
    // Text that is not an object is shown whole.
    expect(conflictLines({ path: '/portal', base: '', current: 'not json', proposed: '{}' })[0]?.label).toBe('Help portal');
  });

  test('the API’s resolve names only the conflicting paths; proposing again leaves out the paths that take the current value', () => {
    const conflicts = [
      { path: '/ai_settings', base: 'a', current: 'b', proposed: 'c' },
      { path: '/partner_settings/base_url', base: '', current: 'https://x.example', proposed: 'https://y.example' },
    ];
    const choices = { '/ai_settings': 'proposed', '/partner_settings/base_url': 'current', '/name': 'current' } as const;
    expect(resolutionOf(conflicts, choices)).toEqual({ '/ai_settings': 'proposed', '/partner_settings/base_url': 'current' });
    const changes = [
      { path: '/name', before: 'Docs', after: 'Docs EU' },
      { path: '/ai_settings', before: 'a', after: 'c' },
      { path: '/partner_settings/base_url', before: '', after: 'https://y.example' },
      { path: '/partner_settings/enabled', before: false, after: true },
    ];
    const now = site({ ai_settings: 'b', partner_settings: { ...site().partner_settings, base_url: 'https://x.example' } });
    expect(reproposal(now, changes, conflicts, choices)).toEqual({ name: 'Docs EU', ai_settings: 'c', partner_settings: { enabled: true } });
    expect(reproposal(now, [{ path: '/ai_settings', before: 'a', after: 'c' }], conflicts, { '/ai_settings': 'current' })).toEqual({});
    // A setting inside a group is set in the group's text as it is now; the group's other settings stay.
    const group = site({ widget: '{"greeting":"Hello","position":"bottom-left"}' });
    expect(reproposal(group, [{ path: '/widget/greeting', before: 'Hello', after: 'Hi' }, { path: '/widget/launcher_text', after: 'Help' }], [], {})).toEqual({
      widget: '{"greeting":"Hi","position":"bottom-left","launcher_text":"Help"}',
    });
  });

  test('a setting inside a group is one line in the form’s words', () => {
    expect(conflictLines({ path: '/ai_settings/tone', base: 'friendly', current: 'professional', proposed: 'concise' })).toEqual([
      { label: 'AI assistant › Tone', base: 'Friendly', current: 'Professional', proposed: 'Concise', swatch: {} },
    ]);
    expect(conflictLines({ path: '/widget/greeting', current: 'Hey', proposed: 'Hi' })[0]).toMatchObject({ base: '(not set)', current: 'Hey', proposed: 'Hi' });
  });

  test('the preview lays the proposal over the site as it is now', () => {
    const draft = proposedDraft(site({ name: 'Docs EU' }), [{ path: '/widget', before: '{"greeting":"Hello"}', after: '{"greeting":"Welcome"}' }, { path: '/color', before: '#0f766e', after: '#166534' }]);
    expect(draft.widget).toBe('{"greeting":"Welcome"}');
    expect(draft.color).toBe('#166534');
    expect(draft.name).toBe('Docs EU');
    // A setting inside a group is laid into the group's current text.
    const keyed = proposedDraft(site({ widget: '{"greeting":"Hello","position":"bottom-left"}' }), [{ path: '/widget/greeting', before: 'Hello', after: 'Welcome' }]);
    expect(keyed.widget).toBe('{"greeting":"Welcome","position":"bottom-left"}');
  });

  test('JSON Pointers are followed into objects and lists, escapes included', () => {
    expect(valueAt({ a: { 'b/c': [1, { d: 2 }] } }, '/a/b~1c/1/d')).toBe(2);
    expect(valueAt({ a: 1 }, '/b')).toBeUndefined();
    expect(valueAt({ a: 1 }, '')).toEqual({ a: 1 });
    expect(proposalFieldPath('/changes/widget/greeting')).toBe('/widget/greeting');
    expect(proposalFieldPath('/widget/greeting')).toBe('/widget/greeting');
  });
});

describe('scheduling and counting', () => {
  test('a datetime-local value is the person’s own time, sent as an ISO instant', () => {
    const iso = localTimeToIso('2026-12-24T18:30');
    expect(iso).toBe(new Date(2026, 11, 24, 18, 30).toISOString());
    expect(isoToLocalTime(iso ?? '')).toBe('2026-12-24T18:30');
    for (const bad of ['', 'tomorrow', '2026-12-24', '2026-13-40T99:99']) expect(localTimeToIso(bad)).toBeUndefined();
  });

  test('approvals read as a count of those needed, or alone without required review', () => {
    expect(approvalsText(0, 1)).toBe('0 of 1 approval');
    const approval = { user: { id: 'a', email: 'a@example.com', name: 'Ada' }, at: '2026-11-23T10:15:00.000Z' };
    expect(statusLabel({ status: 'open', approvals: [] }, 1)).toBe('Waiting for review');
    expect(statusLabel({ status: 'open', approvals: [approval] }, 2)).toBe('Waiting for review');
    expect(statusLabel({ status: 'open', approvals: [approval, approval] }, 2)).toBe('Approved — ready to apply');
    expect(statusLabel({ status: 'open', approvals: [approval] }, undefined)).toBe('Approved — ready to apply');
    expect(statusLabel({ status: 'scheduled', approvals: [approval] }, 1)).toBe('Scheduled');
    expect(statusLabel({ status: 'applied', approvals: [approval] }, 1)).toBe('Applied');
    expect(approvalsText(1, 2)).toBe('1 of 2 approvals');
    expect(approvalsText(1, undefined)).toBe('1 approval');
    expect(approvalsText(3, undefined)).toBe('3 approvals');
  });
});
