// The site editor's working copy: what the form holds, how it differs from the loaded site, and
// what the form refuses before the server is asked. Pure functions, so the rules are easy to follow.
import { NAME_MAX_LENGTH, PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS, SETTINGS_MAX_BYTES, type SettingsField } from '@server/sites/contract';
import type { FieldError } from './api/errors';
import type { PartnerDraft, Site, SiteUpdate } from './api/types';
import { COLOR_PATTERN } from './color';
import { SETTINGS_SCHEMAS } from '@server/sites/settings-schemas';
import { byteLength, isPlainObject, labelAt, readGroup, type SettingsObject } from './settingsText';

/** The settings groups in the server's order, named and described by their schemas. */
export const SETTINGS_GROUPS = SETTINGS_FIELDS.map((field) => ({ field, title: SETTINGS_SCHEMAS[field].title as string, description: SETTINGS_SCHEMAS[field].description as string }));

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
  // Spaces around a name are never meant: the name is sent trimmed, and "Docs " over "Docs" is no change.
  const name = draft.name.trim();
  if (name !== site.name) changes.name = name;
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
    if (byteLength(value) > SETTINGS_MAX_BYTES) {
      errors.push({ path: `/${field}`, message: `Too large: at most ${SETTINGS_MAX_BYTES / 1024} KiB.` });
      continue;
    }
    // An edited group is saved only when it is empty or matches its shape; stored text that does
    // not match is never sent unless the person edits it, so it cannot block a save.
    const reading = readGroup(field, value);
    if (reading.kind === 'not-json') errors.push({ path: `/${field}`, message: `This is not valid JSON: ${reading.reason}.` });
    else if (reading.kind === 'not-object') errors.push({ path: `/${field}`, message: 'Use an object of settings ({ … }).' });
    else if (reading.kind === 'breaks-rules') for (const problem of reading.problems) errors.push({ path: `/${field}${problem.pointer}`, message: problem.message });
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
  for (const group of SETTINGS_GROUPS) {
    const prefix = `/${group.field}`;
    // A field inside a group: "Chat widget › Accent colour".
    if (path.startsWith(`${prefix}/`)) return `${group.title} › ${labelAt(group.field, path.slice(prefix.length))}`;
    labels[prefix] = group.title;
  }
  const owner = Object.keys(labels).find((known) => path === known || path.startsWith(`${known}/`));
  if (owner === undefined) return path === '' || path === '/' ? 'Site' : path.replace(/^\//, '');
  const label = labels[owner] ?? owner;
  // An item of a list: "Collections, entry 4".
  const item = /^\/(\d+)/.exec(path.slice(owner.length));
  return item?.[1] === undefined ? label : `${label}, entry ${Number(item[1]) + 1}`;
}

/** The form's values for a group: its object when the text matches the shape (or is empty), else undefined. */
export function formValuesOf(field: SettingsField, text: string): SettingsObject | undefined {
  const reading = readGroup(field, text);
  if (reading.kind === 'empty') return {};
  return reading.kind === 'matches' ? reading.value : undefined;
}

/** What a group's top-level fields default to when absent (the schema's `default`), e.g. a widget is shown. */
function defaultsOf(field: SettingsField): SettingsObject {
  const properties = (SETTINGS_SCHEMAS[field] as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  return Object.fromEntries(Object.entries(properties).flatMap(([key, node]) => (node.default === undefined ? [] : [[key, node.default]])));
}

/** The part of a group's JSON Schema that says what an empty field holds. */
interface FieldShape {
  type?: string;
  properties?: Record<string, FieldShape>;
  items?: FieldShape;
}

/** What an empty field of this shape holds in the form: nothing typed, nothing ticked, no entries. */
function blankOf(node: FieldShape): unknown {
  if (node.type === 'object') return withBlanks(node, {});
  if (node.type === 'array') return [];
  if (node.type === 'boolean') return false;
  return '';
}

/** The values with every field the schema names present, empty where the values have none, at every depth. */
function withBlanks(node: FieldShape, values: SettingsObject): SettingsObject {
  const filled: SettingsObject = { ...values };
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const value = Object.hasOwn(values, key) ? values[key] : undefined;
    let next: unknown;
    if (value === undefined || value === null) next = blankOf(child);
    else if (child.type === 'object' && isPlainObject(value)) next = withBlanks(child, value);
    else if (child.type === 'array' && child.items?.type === 'object' && Array.isArray(value)) {
      const item = child.items;
      next = value.map((entry) => (isPlainObject(entry) ? withBlanks(item, entry) : entry));
    } else next = value;
    Object.defineProperty(filled, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return filled;
}

/**
 * The values a form starts from: the group's own, with the schema's defaults where it has none,
 * and every other field empty. A field left out would keep whatever its input last held: the form
 * reads an input it has no value for back from the page, so a reset to an empty group (Discard,
 * a proposal sent) would leave the typed text on screen, and the next save would store it.
 */
export function formStartValues(field: SettingsField, values: SettingsObject): SettingsObject {
  return withBlanks(SETTINGS_SCHEMAS[field] as FieldShape, { ...defaultsOf(field), ...values });
}

function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false) return true;
  if (typeof value === 'number') return Number.isNaN(value);
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.values(value).every(isEmptyValue);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
  }
  return Object.is(a, b);
}

/**
 * Lays the form's values over what the group held. Keys the form does not show are kept; an empty
 * field is not written (so opening a form adds nothing, and clearing a field removes its key);
 * numbers the browser could not read (NaN) count as empty. When nothing differs, the stored text
 * comes back unchanged, byte for byte, so a form never rewrites what the person did not edit.
 */
export function applyFormValues(field: SettingsField, text: string, values: SettingsObject, saved?: string): string {
  const before = formValuesOf(field, text) ?? {};
  const after = mergeObject(before, values, defaultsOf(field));
  if (sameJson(before, after)) return text;
  // Edited back to what is saved: the saved bytes, so the draft shows no change.
  if (saved !== undefined) {
    const savedValues = formValuesOf(field, saved);
    if (savedValues !== undefined && sameJson(savedValues, after)) return saved;
  }
  if (Object.keys(after).length === 0 && text.trim() === '') return text;
  return JSON.stringify(after, null, 2);
}

function mergeObject(before: SettingsObject, values: SettingsObject, defaults: SettingsObject = {}): SettingsObject {
  const after: SettingsObject = { ...before };
  for (const [key, value] of Object.entries(values)) {
    const earlier = Object.hasOwn(before, key) ? before[key] : undefined;
    const merged = isPlainObject(value) ? mergeObject(isPlainObject(earlier) ? earlier : {}, value) : Array.isArray(value) ? value.map(cleanItem) : value;
    // A cleared text or number field takes the key away; an unticked box or an emptied list stays
    // written when the group had it, since false and [] say something there.
    if (merged === undefined || merged === '' || (typeof merged === 'number' && Number.isNaN(merged))) delete after[key];
    // A field left at its default (or, without one, left empty) says nothing the absent key did not.
    else if (!Object.hasOwn(before, key) && (Object.hasOwn(defaults, key) ? sameJson(defaults[key], merged) : isEmptyValue(merged))) delete after[key];
    // A key such as "__proto__" is data here: define it, never assign it (that would set the prototype).
    else Object.defineProperty(after, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return after;
}

/** A list entry as the form left it: objects lose their empty fields, other values stay. */
function cleanItem(item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined && value !== '' && !(typeof value === 'number' && Number.isNaN(value))));
}
