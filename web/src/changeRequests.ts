// Change requests and conflicts in the forms' own words, as pure functions: a proposal laid over
// the site (what the widget preview shows), the paths where two changes disagree and how each is
// settled ("keep the proposal / take the current value"), for a change request the reviewer applies
// and for the editor whose save met someone else's (412). Paths are the history's JSON Pointers:
// /name, /color, /<settings group>, /partner_settings/<field>.
import type { ChangeRequestStatus, ConflictResolution } from '@server/change-requests/contract';
import { PARTNER_EDITABLE_FIELDS, type PartnerEditableField, SETTINGS_FIELDS, type SettingsField } from '@server/sites/contract';
import type { SiteUpdate } from '@server/sites/schema';
import type { Site } from './api/types';
import { colourOf, displayValue, objectChanges, SHOWN_LENGTH, type ValuePlace } from './historyText';
import { isPlainObject, type SettingsObject } from './settingsText';
import { draftOf, fieldLabel, type SiteDraft } from './siteDraft';

/** A path two changes set to different values: its value at the base, now, and in the proposal (or the editor's draft). */
export interface PathConflict {
  path: string;
  base: unknown;
  current: unknown;
  proposed: unknown;
}

/** How each conflicting path is settled: "proposed" keeps the proposal (or mine), "current" takes the site's value now (theirs). */
export type ConflictChoices = Readonly<Record<string, ConflictResolution>>;

/** One path of a proposal: its value at the request's base and the proposed one. */
export interface ProposedChange {
  path: string;
  before: unknown;
  after: unknown;
}

const PARTNER_PREFIX = '/partner_settings/';
const GROUP_PATHS: ReadonlySet<string> = new Set(SETTINGS_FIELDS.map((field) => `/${field}`));

/** Every path the editor's form sets (the partner access token is write-only and never compared). */
export const SITE_PATHS: readonly string[] = ['/name', '/color', ...SETTINGS_FIELDS.map((field) => `/${field}`), ...PARTNER_EDITABLE_FIELDS.map((field) => `${PARTNER_PREFIX}${field}`)];

function partnerField(path: string): PartnerEditableField | undefined {
  if (!path.startsWith(PARTNER_PREFIX)) return undefined;
  const field = path.slice(PARTNER_PREFIX.length);
  return (PARTNER_EDITABLE_FIELDS as readonly string[]).includes(field) ? (field as PartnerEditableField) : undefined;
}

function settingsField(path: string): SettingsField | undefined {
  return GROUP_PATHS.has(path) ? (path.slice(1) as SettingsField) : undefined;
}

/** The value a draft holds at a path, as the site would store it (the name trimmed, the colour lower-case). */
export function draftValue(draft: SiteDraft, path: string): unknown {
  if (path === '/name') return draft.name.trim();
  if (path === '/color') return draft.color.toLowerCase();
  const group = settingsField(path);
  if (group !== undefined) return draft[group];
  const partner = partnerField(path);
  return partner === undefined ? undefined : draft.partner[partner];
}

/** Sets a draft's value at a path (a copy: the draft given is not changed). */
export function withDraftValue(draft: SiteDraft, path: string, value: unknown): SiteDraft {
  const next: SiteDraft = { ...draft, partner: { ...draft.partner } };
  if ((path === '/name' || path === '/color') && typeof value === 'string') next[path.slice(1) as 'name' | 'color'] = value;
  const group = settingsField(path);
  if (group !== undefined && typeof value === 'string') next[group] = value;
  const partner = partnerField(path);
  if (partner !== undefined) Object.assign(next.partner, { [partner]: value });
  return next;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The site as a proposal would leave it, for the widget preview: each proposed value over the site as it is now. */
export function proposedDraft(site: Site, changes: readonly ProposedChange[]): SiteDraft {
  return changes.reduce((draft, change) => withDraftValue(draft, change.path, change.after), draftOf(site));
}

/**
 * Where the editor's unsaved draft and a save made meanwhile disagree: paths both changed from the
 * base, to different values. A path only one side changed is no conflict: it keeps that side's value.
 */
export function editorConflicts(base: Site, current: Site, draft: SiteDraft): PathConflict[] {
  const baseDraft = draftOf(base);
  const currentDraft = draftOf(current);
  const conflicts: PathConflict[] = [];
  for (const path of SITE_PATHS) {
    const was = draftValue(baseDraft, path);
    const mine = draftValue(draft, path);
    const theirs = draftValue(currentDraft, path);
    if (same(mine, was) || same(theirs, was) || same(mine, theirs)) continue;
    conflicts.push({ path, base: was, current: theirs, proposed: mine });
  }
  return conflicts;
}

/**
 * The editor's draft moved onto the site as it is now: their changes stay, mine are laid over them,
 * and a conflicting path takes the side chosen for it. The access token change (write-only) is kept.
 */
export function rebasedDraft(base: Site, current: Site, draft: SiteDraft, choices: ConflictChoices): SiteDraft {
  const baseDraft = draftOf(base);
  const conflicting = new Set(editorConflicts(base, current, draft).map((conflict) => conflict.path));
  let next: SiteDraft = { ...draftOf(current), accessToken: draft.accessToken };
  for (const path of SITE_PATHS) {
    const mine = draftValue(draft, path);
    if (same(mine, draftValue(baseDraft, path))) continue;
    if (conflicting.has(path) && choices[path] !== 'proposed') continue;
    // The draft's own text (untrimmed name, the colour as typed), so the form shows what was typed.
    const typed = path === '/name' ? draft.name : path === '/color' ? draft.color : mine;
    next = withDraftValue(next, path, typed);
  }
  return next;
}

/** Whether every conflicting path has its choice. */
export function allSettled(conflicts: readonly PathConflict[], choices: ConflictChoices): boolean {
  return conflicts.every((conflict) => choices[conflict.path] === 'proposed' || choices[conflict.path] === 'current');
}

/** The choices for the API's `resolve`: only the conflicting paths, each with its side. */
export function resolutionOf(conflicts: readonly PathConflict[], choices: ConflictChoices): Record<string, ConflictResolution> {
  const resolve: Record<string, ConflictResolution> = {};
  for (const conflict of conflicts) {
    const choice = choices[conflict.path];
    if (choice !== undefined) resolve[conflict.path] = choice;
  }
  return resolve;
}

/**
 * A request's proposal again, settled: the PUT body its author sends to propose it anew against the
 * site as it is now (PATCH changes). A conflicting path settled as "current" is left out; every
 * other path keeps its proposed value. Empty when nothing of the proposal is left.
 */
export function reproposal(changes: readonly ProposedChange[], conflicts: readonly PathConflict[], choices: ConflictChoices): SiteUpdate {
  const dropped = new Set(conflicts.filter((conflict) => choices[conflict.path] === 'current').map((conflict) => conflict.path));
  const body: Record<string, unknown> = {};
  const partner: Record<string, unknown> = {};
  for (const change of changes) {
    if (dropped.has(change.path)) continue;
    const field = partnerField(change.path);
    if (field !== undefined) partner[field] = change.after;
    else if (change.path === '/name' || change.path === '/color' || settingsField(change.path) !== undefined) body[change.path.slice(1)] = change.after;
  }
  if (Object.keys(partner).length > 0) body.partner_settings = partner;
  return body as SiteUpdate;
}

/** One line of a conflict in words: what a setting was, is now, and what the proposal (or your draft) says. */
export interface ConflictLine {
  label: string;
  base: string;
  current: string;
  proposed: string;
  /** Colours the values are, for a swatch beside each. */
  swatch: { base?: string; current?: string; proposed?: string };
}

function groupObject(value: unknown): SettingsObject | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The value at a JSON Pointer inside an object; undefined where there is none. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isPlainObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function shown(value: unknown, place: ValuePlace): string {
  if (value === undefined) return '(not set)';
  const text = displayValue(value, place);
  return text.length <= SHOWN_LENGTH ? text : `${text.slice(0, SHOWN_LENGTH)}…`;
}

function conflictLine(label: string, base: unknown, current: unknown, proposed: unknown, place: ValuePlace): ConflictLine {
  const swatch: ConflictLine['swatch'] = {};
  for (const [side, value] of [['base', base], ['current', current], ['proposed', proposed]] as const) {
    const colour = colourOf(value, place);
    if (colour !== undefined) swatch[side] = colour;
  }
  return { label, base: shown(base, place), current: shown(current, place), proposed: shown(proposed, place), swatch };
}

/**
 * A conflict as people read it. A settings group (stored as JSON text) is told key by key, only the
 * keys where the current value and the proposal differ ("Chat widget › Greeting: was …, now …,
 * proposed …"); any other path is one line. Values read as the forms show them.
 */
export function conflictLines(conflict: PathConflict): ConflictLine[] {
  const field = settingsField(conflict.path);
  if (field !== undefined) {
    const base = groupObject(conflict.base);
    const current = groupObject(conflict.current);
    const proposed = groupObject(conflict.proposed);
    if (base !== undefined && current !== undefined && proposed !== undefined) {
      const keys = objectChanges(current, proposed);
      if (keys.length > 0) {
        return keys.map((key) => conflictLine(fieldLabel(`${conflict.path}${key.pointer}`), valueAt(base, key.pointer), valueAt(current, key.pointer), valueAt(proposed, key.pointer), { field, pointer: key.pointer }));
      }
    }
  }
  return [conflictLine(fieldLabel(conflict.path), conflict.base, conflict.current, conflict.proposed, { pointer: conflict.path })];
}

/** A datetime-local input's value (the person's own time zone) as an ISO 8601 instant; undefined when it is not a time. */
export function localTimeToIso(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  // Without an offset, a date-time is read in the local time zone.
  const when = new Date(value);
  return Number.isNaN(when.getTime()) ? undefined : when.toISOString();
}

/** An instant as a datetime-local input's value, in the person's time zone, to the minute. */
export function isoToLocalTime(iso: string): string {
  const when = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}T${pad(when.getHours())}:${pad(when.getMinutes())}`;
}

/** A server field error's path inside a proposal ("/changes/widget/greeting") as the form's path ("/widget/greeting"). */
export function proposalFieldPath(path: string): string {
  return path.startsWith('/changes/') ? path.slice('/changes'.length) : path;
}

/** The change request's own screen. */
export function changeRequestPath(siteId: string, changeRequestId: string): string {
  return `/sites/${encodeURIComponent(siteId)}/change-requests/${encodeURIComponent(changeRequestId)}`;
}

/** A request's status in words, as the lists and its page show it. */
export const STATUS_LABELS: Readonly<Record<ChangeRequestStatus, string>> = {
  open: 'Waiting for review',
  scheduled: 'Scheduled',
  applied: 'Applied',
  declined: 'Declined',
  closed: 'Withdrawn',
  failed: 'Failed',
};

/**
 * A request's status in words where its approvals are known: an open request with every approval it
 * needs (one, where review is not required) is no longer waiting for anyone's review.
 */
export function statusLabel(request: { status: ChangeRequestStatus; approvals: readonly unknown[] }, approvalsNeeded: number | undefined): string {
  if (request.status === 'open' && request.approvals.length > 0 && request.approvals.length >= (approvalsNeeded ?? 1)) return 'Approved — ready to apply';
  return STATUS_LABELS[request.status];
}

/** Whether a request can still go live (open or scheduled). */
export function isPending(status: ChangeRequestStatus): boolean {
  return status === 'open' || status === 'scheduled';
}

/** "1 of 2 approvals"; without required review, just how many there are. */
export function approvalsText(count: number, needed: number | undefined): string {
  if (needed === undefined) return count === 1 ? '1 approval' : `${count} approvals`;
  return `${count} of ${needed} ${needed === 1 ? 'approval' : 'approvals'}`;
}

/** A person as the lists name them: their name, else their address; someone whose account is gone. */
export function personName(person: { name: string; email: string } | null): string {
  if (person === null) return 'a deleted account';
  return person.name.trim() === '' ? person.email : person.name;
}
