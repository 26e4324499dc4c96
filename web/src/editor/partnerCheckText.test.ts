import { describe, expect, test } from 'vitest';
import { CHECK_CATEGORY } from '@server/partner/contract';
import { CHECK_CATEGORY_TEXT, checkAnnouncement, formatDuration, partnerTestBody, toolCountText, unlistedToolCount } from './partnerCheckText';

const partner = {
  enabled: true,
  base_url: 'https://partner.example.com',
  mcp_url: 'https://partner.example.com/mcp',
  project_id: 'p1',
  auth_type: 'bearer' as const,
  read_enabled: true,
  write_enabled: false,
  collections: ['docs'],
  widget_project_id: '',
  widget_search_sources: [],
};

describe('partner check text', () => {
  test('every category the server sends has its own sentence and next step', () => {
    const categories = Object.values(CHECK_CATEGORY);
    expect(Object.keys(CHECK_CATEGORY_TEXT).sort()).toEqual([...categories].sort());
    const summaries = categories.map((category) => CHECK_CATEGORY_TEXT[category].summary);
    expect(new Set(summaries).size).toBe(categories.length);
    expect(CHECK_CATEGORY_TEXT.unauthorized.summary).toBe('The partner refused the access token.');
  });

  test('durations read as milliseconds under a second, then seconds', () => {
    expect(formatDuration(184)).toBe('184 ms');
    expect(formatDuration(2400)).toBe('2.4 s');
    expect(formatDuration(12_345)).toBe('12 s');
  });

  test('tool counts: singular, plural, not listed, and names past the first 100', () => {
    expect(toolCountText({ tool_count: 1 })).toBe('1 tool');
    expect(toolCountText({ tool_count: 3 })).toBe('3 tools');
    expect(toolCountText({ tool_count: null })).toBeUndefined();
    expect(unlistedToolCount({ tool_count: 130, tools: Array.from({ length: 100 }, (_, index) => `t${index}`) })).toBe(30);
    expect(unlistedToolCount({ tool_count: null, tools: [] })).toBe(0);
  });

  test('the announcement names the status and the category in words', () => {
    expect(checkAnnouncement({ status: 'error', category: 'unauthorized' })).toBe('Error: the partner refused the access token.');
    expect(checkAnnouncement({ status: 'ok', category: 'ok' })).toBe('OK: the partner answered as expected.');
  });
});

describe('the body of a test of unsaved settings', () => {
  test('carries every partner field as the form holds it and no token when the saved one is kept', () => {
    expect(partnerTestBody({ partner, accessToken: { kind: 'keep' } })).toEqual(partner);
    expect(partnerTestBody({ partner, accessToken: { kind: 'replace', value: '' } })).not.toHaveProperty('access_token');
  });

  test('a newly typed token is tested; a token marked for clearing is tested as cleared', () => {
    expect(partnerTestBody({ partner, accessToken: { kind: 'replace', value: 'new-secret' } }).access_token).toBe('new-secret');
    expect(partnerTestBody({ partner, accessToken: { kind: 'clear' } }).access_token).toBe('');
  });
});
