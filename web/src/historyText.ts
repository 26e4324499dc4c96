// A site's history in words: each version's changes, field by field, in the forms' own words. A
// settings group is stored as JSON text, so a change to one is read as JSON and shown key by key
// ("AI assistant › Tone: Friendly → Concise") rather than as two walls of text; values read as
// the form shows them (option names, on and off, colours with a swatch, list entries one by one).
import { SETTINGS_FIELDS, type SettingsField } from '@server/sites/contract';
import type { SiteVersion } from './api/types';
import { SETTINGS_ENUM_LABELS } from '@server/sites/settings-schemas';
import { COLOR_PATTERN } from './color';
import { schemaAt } from './settingsText';
import { fieldLabel } from './siteDraft';

export type { SiteVersion };
type Change = SiteVersion['changes'][number];

/** One line of a version's diff. `before`/`after` are shortened display text; absent when the key was added or removed. */
export interface ChangeLine {
  label: string;
  kind: 'added' | 'removed' | 'changed' | 'token' | 'formatting';
  before?: string;
  after?: string;
  /** The whole values, when shortening cut them, for a "show all" control. */
  full?: { before?: string; after?: string };
  /** Colours the values are, for a swatch beside each. */
  swatch?: { before?: string; after?: string };
}

/** Characters of a value shown before "…"; the rest is one click away. */
export const SHOWN_LENGTH = 120;

const GROUP_PATHS = new Set<string>(SETTINGS_FIELDS.map((field) => `/${field}`));
const TOKEN_CHANGES = { set: 'set', replaced: 'replaced', cleared: 'cleared' } as const;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A group's stored text as an object: empty text is an empty group; undefined when it is not an object. */
function groupObject(value: unknown): JsonObject | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Where a value sits: a settings group and the pointer inside it, or a field of the site. */
export interface ValuePlace {
  field?: SettingsField;
  pointer: string;
}

/** A list entry in a few words: its name and address when it has them ("Docs — https://…"). */
function entryText(entry: JsonObject): string {
  const parts = [entry.name, entry.url ?? entry.address].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length > 0 ? parts.join(' — ') : JSON.stringify(entry);
}

/**
 * A value as people read it on the form: option names for choices, "on"/"off" for switches, lists
 * as their entries, empty text as "(empty)"; other text as it is, anything else as compact JSON.
 */
export function displayValue(value: unknown, place?: ValuePlace): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  const node = place?.field === undefined ? undefined : schemaAt(place.field, place.pointer);
  if (typeof value === 'string') return node?.enum === undefined ? value : (SETTINGS_ENUM_LABELS[value] ?? value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value.map((item) => (isObject(item) ? entryText(item) : typeof item === 'string' ? (SETTINGS_ENUM_LABELS[item] ?? item) : JSON.stringify(item))).join(', ');
  }
  return isObject(value) ? entryText(value) : JSON.stringify(value);
}

/** The colour a value is, when its place holds a colour. */
export function colourOf(value: unknown, place: ValuePlace): string | undefined {
  const isColourPlace = place.field === undefined ? place.pointer === '/color' : /(^|_)colou?r$/.test(place.pointer.split('/').at(-1) ?? '');
  return isColourPlace && typeof value === 'string' && COLOR_PATTERN.test(value) ? value : undefined;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

interface KeyChange {
  pointer: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const isListOfObjects = (value: unknown): value is JsonObject[] => Array.isArray(value) && value.length > 0 && value.every(isObject);

/**
 * The keys that differ between two objects. Nested objects are walked into, an object added or
 * removed whole is told key by key, and lists of objects (knowledge sources) entry by entry;
 * other lists and values are compared whole.
 */
export function objectChanges(before: JsonObject, after: JsonObject, pointer = ''): KeyChange[] {
  const changes: KeyChange[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const key of keys) {
    const at = `${pointer}/${escapePointer(key)}`;
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    const old = before[key];
    const now = after[key];
    if (!has) changes.push(...(isObject(old) && Object.keys(old).length > 0 ? objectChanges(old, {}, at) : [{ pointer: at, kind: 'removed' as const, before: old }]));
    else if (!had) changes.push(...(isObject(now) && Object.keys(now).length > 0 ? objectChanges({}, now, at) : [{ pointer: at, kind: 'added' as const, after: now }]));
    else if (isObject(old) && isObject(now)) changes.push(...objectChanges(old, now, at));
    else if ((isListOfObjects(old) || isListOfObjects(now)) && Array.isArray(old) && Array.isArray(now)) changes.push(...entryChanges(old, now, at));
    else if (JSON.stringify(old) !== JSON.stringify(now)) changes.push({ pointer: at, kind: 'changed', before: old, after: now });
  }
  return changes;
}

/** A list's entries compared in order: an entry added or removed whole, or its keys that changed. */
function entryChanges(before: unknown[], after: unknown[], pointer: string): KeyChange[] {
  const changes: KeyChange[] = [];
  for (let index = 0; index < Math.max(before.length, after.length); index += 1) {
    const at = `${pointer}/${index}`;
    const old = before[index];
    const now = after[index];
    if (index >= after.length) changes.push({ pointer: at, kind: 'removed', before: old });
    else if (index >= before.length) changes.push({ pointer: at, kind: 'added', after: now });
    else if (isObject(old) && isObject(now)) changes.push(...objectChanges(old, now, at));
    else if (JSON.stringify(old) !== JSON.stringify(now)) changes.push({ pointer: at, kind: 'changed', before: old, after: now });
  }
  return changes;
}

function shortened(value: unknown, place: ValuePlace): { shown: string; full?: string } {
  const text = displayValue(value, place);
  return text.length <= SHOWN_LENGTH ? { shown: text } : { shown: `${text.slice(0, SHOWN_LENGTH)}…`, full: text };
}

function line(label: string, kind: 'added' | 'removed' | 'changed', before: unknown, after: unknown, place: ValuePlace): ChangeLine {
  const result: ChangeLine = { label, kind };
  const full: { before?: string; after?: string } = {};
  const swatch: { before?: string; after?: string } = {};
  if (kind !== 'added') {
    const shown = shortened(before, place);
    result.before = shown.shown;
    if (shown.full !== undefined) full.before = shown.full;
    const colour = colourOf(before, place);
    if (colour !== undefined) swatch.before = colour;
  }
  if (kind !== 'removed') {
    const shown = shortened(after, place);
    result.after = shown.shown;
    if (shown.full !== undefined) full.after = shown.full;
    const colour = colourOf(after, place);
    if (colour !== undefined) swatch.after = colour;
  }
  if (full.before !== undefined || full.after !== undefined) result.full = full;
  if (swatch.before !== undefined || swatch.after !== undefined) result.swatch = swatch;
  return result;
}

/** A change as lines people read: one per field, or one per key of a settings group. */
export function changeLines(change: Change): ChangeLine[] {
  if ('change' in change) return [{ label: fieldLabel(change.path), kind: 'token', after: TOKEN_CHANGES[change.change] }];
  const group = change.path.split('/')[1] ?? '';
  if (GROUP_PATHS.has(`/${group}`) && change.path.length > group.length + 1) return settingLines(group as SettingsField, change.path.slice(group.length + 1), change);
  if (GROUP_PATHS.has(change.path)) {
    const before = groupObject(change.before);
    const after = groupObject(change.after);
    if (before !== undefined && after !== undefined) {
      const keys = objectChanges(before, after);
      if (keys.length === 0) return [{ label: fieldLabel(change.path), kind: 'formatting' }];
      const field = change.path.slice(1) as SettingsField;
      return keys.map((key) => line(fieldLabel(`${change.path}${key.pointer}`), key.kind, key.before, key.after, { field, pointer: key.pointer }));
    }
  }
  return [line(fieldLabel(change.path), 'changed', change.before, change.after, { pointer: change.path })];
}

/**
 * A setting inside a group (`/widget/greeting`): added (no `before`), removed (no `after`) or
 * changed; an object added, removed or replaced by another is told key by key, as a whole group is.
 */
function settingLines(field: SettingsField, pointer: string, change: { path: string; before?: unknown; after?: unknown }): ChangeLine[] {
  const had = Object.hasOwn(change, 'before') && change.before !== undefined;
  const has = Object.hasOwn(change, 'after') && change.after !== undefined;
  const was = had ? change.before : {};
  const now = has ? change.after : {};
  if (isObject(was) && isObject(now) && (Object.keys(was).length > 0 || Object.keys(now).length > 0)) {
    return objectChanges(was, now, pointer).map((key) => line(fieldLabel(`/${field}${key.pointer}`), key.kind, key.before, key.after, { field, pointer: key.pointer }));
  }
  return [line(fieldLabel(change.path), had ? (has ? 'changed' : 'removed') : 'added', change.before, change.after, { field, pointer })];
}

/** What a version did, in a few words: "Created", "Restored version 3", "3 changes" (as many as the lines shown). */
export function versionSummary(version: SiteVersion): string {
  if (version.restored_from !== null) return `Restored version ${version.restored_from}`;
  if (version.version === 1) return 'Created the site';
  const count = version.changes.flatMap(changeLines).length;
  return count === 1 ? '1 change' : `${count} changes`;
}

/**
 * Between two versions listed one after the other, the numbers the site took without a version of
 * its settings: a partner connection check records its result on the site (which moves its number,
 * so saves made before it are told apart) but changes no setting, so it is not kept as a version.
 */
export function versionGap(newer: number, older: number): string | undefined {
  if (newer - older <= 1) return undefined;
  const first = older + 1;
  const last = newer - 1;
  const numbers = first === last ? `Number ${first} went` : `Numbers ${first}–${last} went`;
  return `${numbers} to records that change no setting, such as partner connection checks: they are not kept as versions.`;
}
