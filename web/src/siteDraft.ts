// The site editor's working copy: what the form holds, how it differs from the loaded site, and
// what the form refuses before the server is asked. Pure functions, so the rules are easy to follow.
import { COLOR_PATTERN as COLOR_PATTERN_SOURCE, NAME_MAX_LENGTH, PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS, SETTINGS_MAX_BYTES, type SettingsField } from '@server/sites/contract';
import type { PartnerDraft, SiteUpdate } from '@server/sites/schema';
import type { FieldError, Site } from './api';
import { analyseSettingsText } from './settingsText';

/** The names people read for each settings group; keyed by the server's list, so none is missing. */
const SETTINGS_TEXT: Record<SettingsField, { title: string; description: string }> = {
  ai_settings: { title: 'AI settings', description: 'Model, prompts and answer behaviour of the assistant.' },
  email_settings: { title: 'E-mail settings', description: 'Sender, reply-to and e-mail channel options.' },
  widget: { title: 'Widget', description: 'The chat widget embedded on your pages.' },
  portal: { title: 'Portal', description: 'The help portal: navigation, sections and visibility.' },
  branding: { title: 'Branding', description: 'Logo, names and wording shown to visitors.' },
  public_theme: { title: 'Public theme', description: 'Colours, fonts and layout of the public pages.' },
  knowledge_sources: { title: 'Knowledge sources', description: 'Where the assistant looks for answers.' },
};

/** The settings groups in the server's order, which the editor shows them in. */
export const SETTINGS_GROUPS = SETTINGS_FIELDS.map((field) => ({ field, ...SETTINGS_TEXT[field] }));

export const COLOR_PATTERN = new RegExp(COLOR_PATTERN_SOURCE);

const PARTNER_FIELDS = PARTNER_EDITABLE_FIELDS;

/** The token is write-only: the form can keep it, replace it with a new value, or clear it. */
export type TokenChange = { kind: 'keep' } | { kind: 'replace'; value: string } | { kind: 'clear' };

export type SiteDraft = { name: string; color: string } & Record<SettingsField, string> & { partner: PartnerDraft; accessToken: TokenChange };

/** The body of PUT /api/v1/sites/{id} as the server types it; the editor sends only what changed. */
export type SiteChanges = SiteUpdate;

export function draftOf(site: Site): SiteDraft {
  const partner = site.partner_settings;
  const draft = {
    name: site.name,
    color: site.color,
    partner: {
      enabled: partner.enabled,
      base_url: partner.base_url,
      mcp_url: partner.mcp_url,
      project_id: partner.project_id,
      auth_type: partner.auth_type,
      read_enabled: partner.read_enabled,
      write_enabled: partner.write_enabled,
      collections: [...partner.collections],
      widget_project_id: partner.widget_project_id,
      widget_search_sources: [...partner.widget_search_sources],
    },
    accessToken: { kind: 'keep' },
  } as SiteDraft;
  for (const { field } of SETTINGS_GROUPS) draft[field] = site[field];
  return draft;
}

function samePartnerValue(a: PartnerDraft[keyof PartnerDraft], b: PartnerDraft[keyof PartnerDraft]): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index]);
  return a === b;
}

/** The fields that differ from the loaded site; partner_settings carries only its changed sub-fields. */
export function changesOf(site: Site, draft: SiteDraft): SiteChanges {
  const changes: SiteChanges = {};
  if (draft.name !== site.name) changes.name = draft.name;
  // The server stores colours lower-case, so "#ABC" over "#abc" is no change.
  if (draft.color.toLowerCase() !== site.color.toLowerCase()) changes.color = draft.color;
  for (const { field } of SETTINGS_GROUPS) {
    if (draft[field] !== site[field]) changes[field] = draft[field];
  }
  const partner: NonNullable<SiteChanges['partner_settings']> = {};
  for (const field of PARTNER_FIELDS) {
    if (!samePartnerValue(draft.partner[field], site.partner_settings[field])) Object.assign(partner, { [field]: draft.partner[field] });
  }
  // An empty replacement is no change yet; "" would clear the token, which only Clear may do.
  if (draft.accessToken.kind === 'replace' && draft.accessToken.value !== '') partner.access_token = draft.accessToken.value;
  if (draft.accessToken.kind === 'clear') partner.access_token = '';
  if (Object.keys(partner).length > 0) changes.partner_settings = partner;
  return changes;
}

export function hasChanges(changes: SiteChanges): boolean {
  return Object.keys(changes).length > 0;
}

/** Whether two loaded versions of a site hold the same configuration (check results aside). */
export function sameConfiguration(a: Site, b: Site): boolean {
  const changes = changesOf(a, draftOf(b));
  return !hasChanges(changes) && a.partner_settings.access_token_configured === b.partner_settings.access_token_configured;
}

/**
 * What the form refuses before asking the server, as field errors with the server's paths.
 * Only changed fields are judged: a value already stored is not sent, so it cannot block a save.
 */
export function clientErrors(changes: SiteChanges): FieldError[] {
  const errors: FieldError[] = [];
  if (changes.name !== undefined) {
    if (changes.name.trim() === '') errors.push({ path: '/name', message: 'Enter a name.' });
    else if (changes.name.length > NAME_MAX_LENGTH) errors.push({ path: '/name', message: `Use at most ${NAME_MAX_LENGTH} characters.` });
  }
  if (changes.color !== undefined && !COLOR_PATTERN.test(changes.color)) {
    errors.push({ path: '/color', message: 'Use #rgb or #rrggbb, e.g. #4f46e5.' });
  }
  for (const { field } of SETTINGS_GROUPS) {
    const value = changes[field];
    if (value === undefined) continue;
    const analysis = analyseSettingsText(value);
    if (analysis.kind === 'invalid-json') errors.push({ path: `/${field}`, message: 'Fix the JSON before saving, or remove the leading { or [ to store it as plain text.' });
    else if (analysis.bytes > SETTINGS_MAX_BYTES) errors.push({ path: `/${field}`, message: `Too large: at most ${SETTINGS_MAX_BYTES / 1024} KiB.` });
  }
  // base_url and mcp_url are left to the server, the one judge of what it accepts; its field
  // errors are shown next to the inputs.
  return errors;
}

/** The message for one path among field errors, e.g. "/partner_settings/base_url". */
export function messageFor(errors: FieldError[], path: string): string | undefined {
  // An error inside a list ("/partner_settings/collections/3") belongs to the list's field.
  return errors.find((error) => error.path === path || error.path.startsWith(`${path}/`))?.message;
}

/**
 * The form after a save answered: fields left as they were sent take the server's value, and
 * anything typed while the request ran is kept, so no keystroke is lost to a slow save.
 */
export function rebaseDraft(sent: SiteDraft, current: SiteDraft, fresh: SiteDraft): SiteDraft {
  const next: SiteDraft = { ...fresh, partner: { ...fresh.partner } };
  if (current.name !== sent.name) next.name = current.name;
  if (current.color !== sent.color) next.color = current.color;
  for (const { field } of SETTINGS_GROUPS) {
    if (current[field] !== sent[field]) next[field] = current[field];
  }
  for (const field of PARTNER_FIELDS) {
    if (!samePartnerValue(current.partner[field], sent.partner[field])) Object.assign(next.partner, { [field]: current.partner[field] });
  }
  next.accessToken = current.accessToken === sent.accessToken ? { kind: 'keep' } : current.accessToken;
  return next;
}

/** Names people read for the paths the server and the form report errors on. */
export function fieldLabel(path: string): string {
  const labels: Record<string, string> = {
    '/name': 'Name',
    '/color': 'Colour',
    '/partner_settings/enabled': 'Integration enabled',
    '/partner_settings/base_url': 'Base URL',
    '/partner_settings/mcp_url': 'MCP URL',
    '/partner_settings/project_id': 'Project ID',
    '/partner_settings/auth_type': 'Auth type',
    '/partner_settings/access_token': 'Access token',
    '/partner_settings/read_enabled': 'Read enabled',
    '/partner_settings/write_enabled': 'Write enabled',
    '/partner_settings/collections': 'Collections',
    '/partner_settings/widget_project_id': 'Widget project ID',
    '/partner_settings/widget_search_sources': 'Widget search sources',
  };
  for (const group of SETTINGS_GROUPS) labels[`/${group.field}`] = group.title;
  const owner = Object.keys(labels).find((known) => path === known || path.startsWith(`${known}/`));
  if (owner !== undefined) return labels[owner] ?? owner;
  return path === '' || path === '/' ? 'Site' : path.replace(/^\//, '');
}
