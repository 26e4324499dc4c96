// A site's history in words: each version's changes, field by field. A settings group is stored as
// JSON text, so a change to one is read as JSON and shown key by key ("AI assistant › Tone:
// friendly → concise") rather than as two walls of text.
import { SETTINGS_FIELDS } from '@server/sites/contract';
import type { SiteVersionJson } from '@server/sites/schema';
import { fieldLabel } from './siteDraft';

export type SiteVersion = SiteVersionJson;
type Change = SiteVersion['changes'][number];

/** One line of a version's diff. `before`/`after` are shortened display text; absent when the key was added or removed. */
export interface ChangeLine {
  label: string;
  kind: 'added' | 'removed' | 'changed' | 'token' | 'formatting';
  before?: string;
  after?: string;
  /** The whole values, when shortening cut them, for a "show all" control. */
  full?: { before?: string; after?: string };
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

/** A value as people read it: text as it is, anything else as compact JSON, empty text as "(empty)". */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  return typeof value === 'string' ? value : JSON.stringify(value);
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

/** The keys that differ between two objects, nested objects walked into; lists and values compared whole. */
export function objectChanges(before: JsonObject, after: JsonObject, pointer = ''): KeyChange[] {
  const changes: KeyChange[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const key of keys) {
    const at = `${pointer}/${escapePointer(key)}`;
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    if (!has) changes.push({ pointer: at, kind: 'removed', before: before[key] });
    else if (!had) changes.push({ pointer: at, kind: 'added', after: after[key] });
    else if (isObject(before[key]) && isObject(after[key])) changes.push(...objectChanges(before[key], after[key], at));
    else if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes.push({ pointer: at, kind: 'changed', before: before[key], after: after[key] });
  }
  return changes;
}

function shortened(value: unknown): { shown: string; full?: string } {
  const text = displayValue(value);
  return text.length <= SHOWN_LENGTH ? { shown: text } : { shown: `${text.slice(0, SHOWN_LENGTH)}…`, full: text };
}

function line(label: string, kind: 'added' | 'removed' | 'changed', before: unknown, after: unknown): ChangeLine {
  const result: ChangeLine = { label, kind };
  const full: { before?: string; after?: string } = {};
  if (kind !== 'added') {
    const shown = shortened(before);
    result.before = shown.shown;
    if (shown.full !== undefined) full.before = shown.full;
  }
  if (kind !== 'removed') {
    const shown = shortened(after);
    result.after = shown.shown;
    if (shown.full !== undefined) full.after = shown.full;
  }
  if (full.before !== undefined || full.after !== undefined) result.full = full;
  return result;
}

/** A change as lines people read: one per field, or one per key of a settings group. */
export function changeLines(change: Change): ChangeLine[] {
  if ('change' in change) return [{ label: fieldLabel(change.path), kind: 'token', after: TOKEN_CHANGES[change.change] }];
  if (GROUP_PATHS.has(change.path)) {
    const before = groupObject(change.before);
    const after = groupObject(change.after);
    if (before !== undefined && after !== undefined) {
      const keys = objectChanges(before, after);
      if (keys.length === 0) return [{ label: fieldLabel(change.path), kind: 'formatting' }];
      return keys.map((key) => line(fieldLabel(`${change.path}${key.pointer}`), key.kind, key.before, key.after));
    }
  }
  return [line(fieldLabel(change.path), 'changed', change.before, change.after)];
}

/** What a version did, in a few words: "Created", "Restored version 3", "3 changes". */
export function versionSummary(version: SiteVersion): string {
  if (version.restored_from !== null) return `Restored version ${version.restored_from}`;
  if (version.version === 1) return 'Created the site';
  const count = version.changes.length;
  return count === 1 ? '1 change' : `${count} changes`;
}
