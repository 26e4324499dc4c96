// The first steps of a new site, each ticked from what the server holds: the assistant set up,
// the widget styled, knowledge to answer from, the partner connection working, the site put on
// pages (its public configuration fetched from at least one page's origin). Shown on the empty
// sites list (as what lies ahead) and in a site until every step is done.
import type { Site } from '../api/types';
import type { SectionId } from './sections';

export interface FirstRunStep {
  id: 'ai' | 'widget' | 'knowledge' | 'partner' | 'install';
  label: string;
  /** What the step is for, in a line. */
  hint: string;
  section: SectionId;
  done: boolean;
}

/**
 * A group's text read as JSON, without its schema: the sites list shows this checklist too, and
 * the schemas' compiled validators belong to the editor's code, loaded when it opens.
 */
function groupObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A settings group that holds something: any text that is not blank or an empty object. */
function configured(field: 'ai_settings' | 'widget', site: Site): boolean {
  const text = site[field].trim();
  if (text === '') return false;
  const value = groupObject(text);
  return value === undefined || Object.keys(value).length > 0;
}

function knowledgeSources(site: Site): number {
  const sources = groupObject(site.knowledge_sources)?.sources;
  return Array.isArray(sources) ? sources.length : 0;
}

/**
 * The steps for a site, in the order they are best taken; with no site, none is done.
 * `pagesFetchedFrom`: how many page origins the Install section lists (0 while unknown).
 */
export function firstRunSteps(site: Site | undefined, pagesFetchedFrom = 0): FirstRunStep[] {
  return [
    { id: 'ai', label: 'Set up the assistant', hint: 'Its model, instructions and tone.', section: 'ai', done: site !== undefined && configured('ai_settings', site) },
    { id: 'widget', label: 'Style the chat widget', hint: 'Its position, greeting and colours.', section: 'widget', done: site !== undefined && configured('widget', site) },
    { id: 'knowledge', label: 'Add knowledge', hint: 'Pages and documents the assistant answers from.', section: 'knowledge', done: site !== undefined && knowledgeSources(site) > 0 },
    {
      id: 'partner',
      label: 'Connect the partner service',
      hint: 'Its addresses and token, checked to work.',
      section: 'integration',
      done: site !== undefined && site.partner_settings.enabled && site.partner_settings.last_status === 'ok',
    },
    { id: 'install', label: 'Put the site on your pages', hint: 'Paste one line into them; the step ticks once a page has loaded it.', section: 'install', done: site !== undefined && pagesFetchedFrom > 0 },
  ];
}
