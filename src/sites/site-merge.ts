/**
 * A site's changes setting by setting, and the three-way merge of two changes, as pure functions:
 * the history's diff, change requests' apply and preview, and the dashboard editor's conflict
 * panel all use these, so they name the same paths and settle them the same way. No database, no
 * Node-only imports (only the import-free contract): the dashboard imports this module too.
 *
 * Paths are JSON Pointers: `/name`, `/color`, `/partner_settings/<field>`, and inside a settings
 * group whose text holds a JSON object, one per setting (`/widget/greeting`; nested objects
 * recurse; an array is one value). A group whose text holds anything else (empty, not JSON, an
 * array, a scalar), or that changes between an object and anything else, is one path (`/branding`).
 * Older proposals name whole groups; they still apply, as whole-group paths.
 */
import { PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS, type SettingsField } from './contract.js';

/** The fields of a site people change, as the merge reads them: settings groups as their stored text. */
export type SiteFields = { name: string; color: string } & Record<SettingsField, string> & { partner_settings: Readonly<Record<string, unknown>> };

/** One path a change changes. `before` is absent where the setting was not there (added), `after` where it is removed. */
export interface PathChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** A path both sides changed to different values: its value at the base, now, and as proposed (absent where not set). */
export interface PathConflict {
  path: string;
  base?: unknown;
  current?: unknown;
  proposed?: unknown;
}

/** How a conflicting path is settled: the proposal's value, or the current one. */
export type PathResolution = 'proposed' | 'current';

type JsonObject = Record<string, unknown>;

const PARTNER_PREFIX = '/partner_settings/';
const GROUPS: readonly string[] = SETTINGS_FIELDS;
const PARTNER_FIELDS: readonly string[] = PARTNER_EDITABLE_FIELDS;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object a group's text holds; undefined for anything else (empty, not JSON, an array, a scalar). */
export function groupObject(text: string): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** One key as a JSON Pointer token (RFC 6901: `~` as `~0`, `/` as `~1`). */
function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function keyOf(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Equal as JSON values: objects whatever their key order; `undefined` (not set) equals only itself. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
  }
  return Object.is(a, b) || (a === 0 && b === 0);
}

/** Defines a key (never assigns it: a key such as `__proto__` is data here, not the prototype). */
function define(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function valueChange(path: string, had: boolean, before: unknown, has: boolean, after: unknown): PathChange {
  const change: PathChange = { path };
  if (had) change.before = before;
  if (has) change.after = after;
  return change;
}

/** The settings two objects hold differently, in the order of `before`'s keys, then the new ones. */
function objectChanges(before: JsonObject, after: JsonObject, pointer: string): PathChange[] {
  const changes: PathChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const path = `${pointer}/${pointerToken(key)}`;
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    const old = before[key];
    const now = after[key];
    if (had && has && isObject(old) && isObject(now)) changes.push(...objectChanges(old, now, path));
    else if (had !== has || !sameValue(old, now)) changes.push(valueChange(path, had, old, has, now));
  }
  return changes;
}

/**
 * A group's change: setting by setting when both texts hold objects, else the whole group. Text
 * that changed only in layout (the same object written otherwise) is one whole-group path, so
 * the history still shows that it changed.
 */
function groupChanges(field: SettingsField, before: string, after: string): PathChange[] {
  if (before === after) return [];
  const path = `/${field}`;
  const was = groupObject(before);
  const now = groupObject(after);
  if (was === undefined || now === undefined) return [{ path, before, after }];
  const changes = objectChanges(was, now, path);
  return changes.length > 0 ? changes : [{ path, before, after }];
}

/** Whether a whole-group change only rewrote the same object in another layout. */
function layoutOnly(change: PathChange): boolean {
  if (typeof change.before !== 'string' || typeof change.after !== 'string') return false;
  const was = groupObject(change.before);
  const now = groupObject(change.after);
  return was !== undefined && now !== undefined && sameValue(was, now);
}

/** What changed from `before` to `after`, path by path, in the site's field order. */
export function siteFieldChanges(before: SiteFields, after: SiteFields): PathChange[] {
  const changes: PathChange[] = [];
  if (before.name !== after.name) changes.push({ path: '/name', before: before.name, after: after.name });
  if (before.color !== after.color) changes.push({ path: '/color', before: before.color, after: after.color });
  for (const field of SETTINGS_FIELDS) changes.push(...groupChanges(field, before[field], after[field]));
  for (const field of PARTNER_EDITABLE_FIELDS) {
    const was = before.partner_settings[field] ?? null;
    const now = after.partner_settings[field] ?? null;
    if (!sameValue(was, now)) changes.push({ path: `${PARTNER_PREFIX}${field}`, before: was, after: now });
  }
  return changes;
}

type Place = { kind: 'top'; field: 'name' | 'color' } | { kind: 'partner'; field: string } | { kind: 'group'; field: SettingsField; keys: string[] };

/** Where a path points. A path no site has (a typo, a field people do not set) is an error of the caller. */
function placeOf(path: string): Place {
  if (path === '/name' || path === '/color') return { kind: 'top', field: path.slice(1) as 'name' | 'color' };
  if (path.startsWith(PARTNER_PREFIX) && PARTNER_FIELDS.includes(path.slice(PARTNER_PREFIX.length))) return { kind: 'partner', field: path.slice(PARTNER_PREFIX.length) };
  const [, group, ...tokens] = path.split('/');
  if (group !== undefined && GROUPS.includes(group)) return { kind: 'group', field: group as SettingsField, keys: tokens.map(keyOf) };
  throw new Error(`not a path of a site's settings: ${path}`);
}

/**
 * The value at a path (undefined where nothing is set), and whether the path can be reached: a
 * setting inside a group whose text is not an object, or below a setting that is not there or is
 * not an object, cannot.
 */
function lookup(fields: SiteFields, path: string): { value?: unknown; reachable: boolean } {
  const place = placeOf(path);
  if (place.kind === 'top') return { value: fields[place.field], reachable: true };
  if (place.kind === 'partner') return { value: fields.partner_settings[place.field] ?? null, reachable: true };
  if (place.keys.length === 0) return { value: fields[place.field], reachable: true };
  let node: unknown = groupObject(fields[place.field]);
  for (const key of place.keys) {
    if (!isObject(node)) return { reachable: false };
    node = Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return { value: node, reachable: true };
}

/** The value a site holds at a path (undefined where the setting is not there). */
export function valueAtPath(fields: SiteFields, path: string): unknown {
  return lookup(fields, path).value;
}

/** Sets (or, with `undefined`, removes) a key path inside an object, making the objects on the way. */
function setAt(root: JsonObject, keys: readonly string[], value: unknown): void {
  let node = root;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (isObject(next)) node = next;
    else {
      const made: JsonObject = {};
      define(node, key, made);
      node = made;
    }
  }
  const last = keys[keys.length - 1];
  if (last === undefined) return;
  if (value === undefined) delete node[last];
  else define(node, last, value);
}

/**
 * A merged group object as text: its keys in the order the current text lists them (as
 * JSON.parse reads it) with new keys after them; two-space indentation when the current text spans
 * lines, one line otherwise. The same inputs always give the same text.
 */
function groupText(value: JsonObject, layoutOf: string): string {
  return layoutOf.includes('\n') ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** The site with each change's `after` written at its path (whatever the site holds there now). */
export function applyChanges(fields: SiteFields, changes: readonly PathChange[]): SiteFields {
  const next: SiteFields = { ...fields };
  const partner: Record<string, unknown> = { ...fields.partner_settings };
  const groups = new Map<SettingsField, JsonObject>();
  for (const change of changes) {
    const place = placeOf(change.path);
    if (place.kind === 'top') {
      if (typeof change.after === 'string') next[place.field] = change.after;
    } else if (place.kind === 'partner') {
      partner[place.field] = change.after ?? null;
    } else if (place.keys.length === 0) {
      if (typeof change.after === 'string') {
        next[place.field] = change.after;
        groups.delete(place.field);
      }
    } else {
      // Parsed afresh from the text: the caller's objects are never changed.
      const object = groups.get(place.field) ?? groupObject(next[place.field]) ?? {};
      groups.set(place.field, object);
      setAt(object, place.keys, change.after);
    }
  }
  for (const [field, object] of groups) next[field] = groupText(object, fields[field]);
  next.partner_settings = partner;
  return next;
}

/**
 * Merges a change (each path with its value at the change's base and the proposed one) onto a site
 * as it is now, path by path: a path that still holds its base value takes the proposal's; one
 * that already holds the proposal's value is equal (nothing to do); one that moved to a third
 * value, or cannot be reached any more (its group, or a setting above it, was removed or is no
 * longer an object), is a conflict unless `resolve` settles it ("proposed" writes the proposal's value, "current" keeps the
 * site's). A whole-group change of layout alone never conflicts: it is dropped if the group moved.
 * Paths the change leaves out keep the site's value.
 */
export function mergeChanges(
  current: SiteFields,
  changes: readonly PathChange[],
  resolve: Readonly<Record<string, PathResolution>> = {},
): { merged: SiteFields; conflicts: PathConflict[]; taken: PathChange[] } {
  const conflicts: PathConflict[] = [];
  const taken: PathChange[] = [];
  for (const change of changes) {
    const now = lookup(current, change.path);
    // Already as proposed (a setting removed is also gone when what held it is).
    if (sameValue(now.value, change.after) && (now.reachable || change.after === undefined)) continue;
    if (layoutOnly(change) && GROUPS.includes(change.path.slice(1))) {
      if (now.value === change.before) taken.push(change);
      continue;
    }
    if (!now.reachable || !sameValue(now.value, change.before)) {
      const resolution = resolve[change.path];
      if (resolution === 'current') continue;
      if (resolution !== 'proposed') {
        const conflict: PathConflict = { path: change.path };
        if (change.before !== undefined) conflict.base = change.before;
        if (now.value !== undefined) conflict.current = now.value;
        if (change.after !== undefined) conflict.proposed = change.after;
        conflicts.push(conflict);
        continue;
      }
    }
    taken.push(change);
  }
  return { merged: applyChanges(current, taken), conflicts, taken };
}

/**
 * The three-way merge of two sides made from one base (an editor's draft onto a save made
 * meanwhile): the proposal's changes from the base merged onto the current side. A group the
 * current side left as it was keeps the proposal's own text, layout included.
 */
export function mergeSites(
  base: SiteFields,
  current: SiteFields,
  proposed: SiteFields,
  resolve: Readonly<Record<string, PathResolution>> = {},
): { merged: SiteFields; conflicts: PathConflict[]; changes: PathChange[] } {
  const changes = siteFieldChanges(base, proposed);
  const { merged, conflicts } = mergeChanges(current, changes, resolve);
  for (const field of SETTINGS_FIELDS) {
    if (current[field] === base[field]) merged[field] = proposed[field];
  }
  return { merged, conflicts, changes };
}
