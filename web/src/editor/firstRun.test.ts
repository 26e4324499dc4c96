import { describe, expect, test } from 'vitest';
import type { Site } from '../api/types';
import { firstRunSteps } from './firstRun';

function site(overrides: Partial<Site>): Site {
  const base = {
    id: 's', workspace_id: 'w', name: 'Site', color: '#000', ai_settings: '', email_settings: '', widget: '', portal: '', branding: '', public_theme: '', knowledge_sources: '',
    partner_settings: { enabled: false, base_url: '', mcp_url: '', project_id: '', auth_type: 'none', access_token_configured: false, read_enabled: true, write_enabled: false, collections: [], widget_project_id: '', widget_search_sources: [], last_status: null, last_error: null, last_checked_at: null },
    created_at: '2026-11-27T00:00:00.000Z', updated_at: '2026-11-27T00:00:00.000Z',
  };
  return { ...base, ...overrides } as Site;
}

const done = (value: Site | undefined) => firstRunSteps(value).filter((step) => step.done).map((step) => step.id);

describe('the first-run steps', () => {
  test('none is done without a site, or for a site with nothing set', () => {
    expect(done(undefined)).toEqual([]);
    expect(done(site({}))).toEqual([]);
    expect(done(site({ ai_settings: '{}', widget: '  ', knowledge_sources: '{"sources":[]}' }))).toEqual([]);
  });

  test('each is ticked by what is saved', () => {
    expect(done(site({ ai_settings: '{"model":"small"}' }))).toEqual(['ai']);
    expect(done(site({ widget: '{"greeting":"Hi"}', knowledge_sources: '{"sources":[{"type":"faq","url":"https://x.example"}]}' }))).toEqual(['widget', 'knowledge']);
  });

  test('the partner counts once enabled and last checked OK', () => {
    const partner = site({}).partner_settings;
    expect(done(site({ partner_settings: { ...partner, enabled: true, last_status: 'error' } }))).toEqual([]);
    expect(done(site({ partner_settings: { ...partner, enabled: false, last_status: 'ok' } }))).toEqual([]);
    expect(done(site({ partner_settings: { ...partner, enabled: true, last_status: 'ok' } }))).toEqual(['partner']);
  });

  test('install counts once a page origin has fetched the public configuration', () => {
    const ids = (value: Site | undefined, pages: number) => firstRunSteps(value, pages).filter((step) => step.done).map((step) => step.id);
    expect(firstRunSteps(undefined).map((step) => step.id)).toEqual(['ai', 'widget', 'knowledge', 'partner', 'install']);
    expect(ids(site({}), 0)).toEqual([]);
    expect(ids(site({}), 1)).toEqual(['install']);
    expect(ids(site({}), 20)).toEqual(['install']);
    // With no site, nothing is done, whatever the count says.
    expect(ids(undefined, 3)).toEqual([]);
    expect(firstRunSteps(site({}), 1).find((step) => step.id === 'install')?.section).toBe('install');
  });
});
