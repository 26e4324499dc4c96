import { describe, expect, test } from 'vitest';
import { matchScore, type PaletteItem, SCREEN_ITEMS, searchPalette } from './palette';

const item = (label: string, keywords: string[] = []): PaletteItem => ({ id: label, label, group: 'Test', to: '/', keywords });

describe("the command palette's search", () => {
  test('every word typed must begin a word of the label or its keywords', () => {
    expect(searchPalette(SCREEN_ITEMS, 'two fac').map((each) => each.label)).toEqual(['Two-factor authentication']);
    expect(searchPalette(SCREEN_ITEMS, '2fa').map((each) => each.label)).toEqual(['Two-factor authentication']);
    expect(searchPalette(SCREEN_ITEMS, 'access tok').map((each) => each.label)).toEqual(['Access tokens']);
    expect(searchPalette(SCREEN_ITEMS, 'tokens sites')).toEqual([]);
  });

  test('case and accents do not matter; a word inside a label still counts, below a word start', () => {
    expect(matchScore(item('Café Lumière'), 'cafe lumiere')).toBeGreaterThan(0);
    expect(matchScore(item('HELP centre'), 'help')).toBeGreaterThan(0);
    expect(matchScore(item('Helpdesk'), 'desk')).toBeGreaterThan(0);
    expect(matchScore(item('Desk'), 'desk')).toBeGreaterThan(matchScore(item('Helpdesk'), 'desk'));
    expect(matchScore(item('Sales'), 'zzz')).toBe(0);
  });

  test('a label that starts with what was typed ranks first, then labels over keywords, then the given order', () => {
    const items = [item('Account settings', ['profile']), item('Profile page'), item('My profile'), item('Public profile')];
    expect(searchPalette(items, 'profile').map((each) => each.label)).toEqual(['Profile page', 'My profile', 'Public profile', 'Account settings']);
  });

  test('nothing typed lists everything in the given order, up to the limit', () => {
    expect(searchPalette(SCREEN_ITEMS, '   ')).toEqual(SCREEN_ITEMS.slice(0, 12));
    expect(searchPalette(SCREEN_ITEMS, '', 3)).toHaveLength(3);
  });

  test('creating a site is found by its words', () => {
    expect(searchPalette(SCREEN_ITEMS, 'new site')[0]?.to).toBe('/?new=site');
    expect(searchPalette(SCREEN_ITEMS, 'create')[0]?.label).toBe('Create a site');
  });
});
