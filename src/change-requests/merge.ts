import { isDeepStrictEqual } from 'node:util';
import type { SiteRow } from '../sites/queries.js';
import { readPartnerSettings } from '../sites/defaults.js';
import { PARTNER_EDITABLE_FIELDS, type PartnerEditableField, SETTINGS_FIELDS, type SiteUpdate } from '../sites/schema.js';
import type { ConflictResolution } from './contract.js';

/** One path a change request changes: its value at the request's base version, and the proposal's. */
export interface ProposedChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** A path the site changed since the base to another value than the proposal's. */
export interface MergeConflict {
  path: string;
  base: unknown;
  current: unknown;
  proposed: unknown;
}

const TOP_FIELDS: readonly string[] = ['name', 'color', ...SETTINGS_FIELDS];
const PARTNER_PREFIX = '/partner_settings/';

/** The site's value at a path of the history's diff (sites/diff.ts), as the diff records it. */
export function currentValue(row: SiteRow, path: string): unknown {
  const field = path.slice(1);
  if (TOP_FIELDS.includes(field)) return row[field as 'name'];
  if (path.startsWith(PARTNER_PREFIX)) {
    const partner = readPartnerSettings(row) as Record<string, unknown>;
    return partner[path.slice(PARTNER_PREFIX.length)] ?? null;
  }
  throw new Error(`not a path a change request changes: ${path}`);
}

/**
 * Merges a proposal onto the site as it is now, path by path. A path the site still holds at its
 * base value takes the proposal's; one that already holds the proposal's value is left alone; one
 * that moved to a third value is a conflict, unless `resolutions` settles it (the proposal's value,
 * or the current one, which drops the path). Paths the proposal leaves out are never touched, so
 * two requests that change different paths both land, in either order.
 */
export function mergeProposal(
  row: SiteRow,
  proposal: readonly ProposedChange[],
  resolutions: Readonly<Record<string, ConflictResolution>> = {},
): { input: SiteUpdate; conflicts: MergeConflict[] } {
  const conflicts: MergeConflict[] = [];
  const taken: ProposedChange[] = [];
  for (const change of proposal) {
    const current = currentValue(row, change.path);
    if (isDeepStrictEqual(current, change.after)) continue;
    if (!isDeepStrictEqual(current, change.before)) {
      const resolution = resolutions[change.path];
      if (resolution === 'current') continue;
      if (resolution !== 'proposed') {
        conflicts.push({ path: change.path, base: change.before, current, proposed: change.after });
        continue;
      }
    }
    taken.push(change);
  }
  return { input: updateOf(taken), conflicts };
}

/** The PUT body that sets each path to its proposed value. */
export function updateOf(changes: readonly ProposedChange[]): SiteUpdate {
  const input: Record<string, unknown> = {};
  const partner: Record<string, unknown> = {};
  for (const change of changes) {
    if (change.path.startsWith(PARTNER_PREFIX)) {
      const field = change.path.slice(PARTNER_PREFIX.length);
      if ((PARTNER_EDITABLE_FIELDS as readonly string[]).includes(field)) partner[field as PartnerEditableField] = change.after;
    } else if (TOP_FIELDS.includes(change.path.slice(1))) {
      input[change.path.slice(1)] = change.after;
    }
  }
  if (Object.keys(partner).length > 0) input.partner_settings = partner;
  return input as SiteUpdate;
}
