// Change requests and conflicts in the forms' own words, as pure functions: a proposal laid over
// the site (what the widget preview shows), the paths where two changes disagree and how each is
// settled ("keep the proposal / take the current value"), for a change request the reviewer applies
// and for the editor whose save met someone else's (412). Paths and the merge are the server's own
// (src/sites/site-merge.ts): /name, /color, /<group>/<setting> inside a group holding a JSON object,
// /<group> for one that does not, /partner_settings/<field>.
import type { ChangeRequestStatus, ConflictResolution } from '@server/change-requests/contract';
import { PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS, type SettingsField } from '@server/sites/contract';
import { applyChanges, mergeSites, type PathChange, type PathConflict as MergeConflict, sameValue, type SiteFields, siteFieldChanges } from '@server/sites/site-merge';
import type { Site, SiteUpdate } from './api/types';
import { colourOf, displayValue, objectChanges, SHOWN_LENGTH, type ValuePlace } from './historyText';
import { isPlainObject, type SettingsObject } from './settingsText';
import { draftOf, fieldLabel, type SiteDraft } from './siteDraft';

/** A path two changes set to different values: its value at the base, now, and in the proposal (or the editor's draft); absent where not set. */
export type PathConflict = MergeConflict;

/** How each conflicting path is settled: "proposed" keeps the proposal (or mine), "current" takes the site's value now (theirs). */
export type ConflictChoices = Readonly<Record<string, ConflictResolution>>;

/** One path of a proposal: its value at the request's base and the proposed one. */
export type ProposedChange = PathChange;

const GROUP_PATHS: ReadonlySet<string> = new Set(SETTINGS_FIELDS.map((field) => `/${field}`));

function settingsField(path: string): SettingsField | undefined {
  return GROUP_PATHS.has(path) ? (path.slice(1) as SettingsField) : undefined;
}

/** The settings group a path lies in, and the setting's pointer inside it ("" for the whole group). */
function groupPlace(path: string): { field: SettingsField; pointer: string } | undefined {
  const field = path.split('/')[1] ?? '';
  return GROUP_PATHS.has(`/${field}`) ? { field: field as SettingsField, pointer: path.slice(field.length + 1) } : undefined;
}

/** A draft as the merge reads it: the name trimmed and the colour lower-case, as the site stores them. */
export function draftFields(draft: SiteDraft): SiteFields {
  const { ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources } = draft;
  return { name: draft.name.trim(), color: draft.color.toLowerCase(), ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources, partner_settings: { ...draft.partner } };
}

/** A draft holding the merge's fields (a copy: the draft given is not changed). */
function withFields(draft: SiteDraft, fields: SiteFields): SiteDraft {
  const next: SiteDraft = { ...draft, name: fields.name, color: fields.color, partner: { ...draft.partner } };
  for (const field of SETTINGS_FIELDS) next[field] = fields[field];
  for (const field of PARTNER_EDITABLE_FIELDS) Object.assign(next.partner, { [field]: fields.partner_settings[field] });
  return next;
}

/** The site as a proposal would leave it, for the widget preview: each proposed value over the site as it is now. */
export function proposedDraft(site: Site, changes: readonly ProposedChange[]): SiteDraft {
  const draft = draftOf(site);
  return withFields(draft, applyChanges(draftFields(draft), changes));
}

/**
 * Where the editor's unsaved draft and a save made meanwhile disagree: settings both changed from
 * the base, to different values. A setting only one side changed is no conflict: it keeps that side's value.
 */
export function editorConflicts(base: Site, current: Site, draft: SiteDraft): PathConflict[] {
  return mergeSites(draftFields(draftOf(base)), draftFields(draftOf(current)), draftFields(draft)).conflicts;
}

/**
 * The editor's draft moved onto the site as it is now: their changes stay, mine are laid over them,
 * setting by setting, and a conflicting setting takes the side chosen for it. The access token
 * change (write-only) is kept.
 */
export function rebasedDraft(base: Site, current: Site, draft: SiteDraft, choices: ConflictChoices): SiteDraft {
  const { merged } = mergeSites(draftFields(draftOf(base)), draftFields(draftOf(current)), draftFields(draft), choices);
  const next = withFields({ ...draftOf(current), accessToken: draft.accessToken }, merged);
  // The draft's own text (untrimmed name, the colour as typed) where mine was kept, so the form shows what was typed.
  if (merged.name === draft.name.trim()) next.name = draft.name;
  if (merged.color === draft.color.toLowerCase()) next.color = draft.color;
  return next;
}

/** What the merge carries over from each side without asking: the settings only they, or only I, changed. */
export function carriedOver(base: Site, current: Site, draft: SiteDraft): { theirs: string[]; mine: string[] } {
  const baseFields = draftFields(draftOf(base));
  const theirs = siteFieldChanges(baseFields, draftFields(draftOf(current))).map((change) => change.path);
  const mine = siteFieldChanges(baseFields, draftFields(draft)).map((change) => change.path);
  const conflicting = new Set(editorConflicts(base, current, draft).map((conflict) => conflict.path));
  const onlyIn = (paths: string[], other: string[]) => paths.filter((path) => !conflicting.has(path) && !other.includes(path));
  return { theirs: onlyIn(theirs, mine), mine: onlyIn(mine, theirs) };
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
 * other path keeps its proposed value, set in the site's current text. Empty when nothing of the
 * proposal is left.
 */
export function reproposal(site: Site, changes: readonly ProposedChange[], conflicts: readonly PathConflict[], choices: ConflictChoices): SiteUpdate {
  const dropped = new Set(conflicts.filter((conflict) => choices[conflict.path] === 'current').map((conflict) => conflict.path));
  const now = draftFields(draftOf(site));
  const after = applyChanges(
    now,
    changes.filter((change) => !dropped.has(change.path)),
  );
  const body: Record<string, unknown> = {};
  if (after.name !== now.name) body.name = after.name;
  if (after.color !== now.color) body.color = after.color;
  for (const field of SETTINGS_FIELDS) if (after[field] !== now[field]) body[field] = after[field];
  const partner: Record<string, unknown> = {};
  for (const field of PARTNER_EDITABLE_FIELDS) if (!sameValue(after.partner_settings[field], now.partner_settings[field])) partner[field] = after.partner_settings[field];
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
 * A conflict as people read it. A setting inside a group is one line in the form's words ("Chat
 * widget › Greeting"). A whole settings group holding JSON objects (as older requests name them)
 * is told key by key, only the keys where the current value and the proposal differ; any other
 * path is one line. Values read as the forms show them.
 */
export function conflictLines(conflict: PathConflict): ConflictLine[] {
  const place = groupPlace(conflict.path);
  if (place !== undefined && place.pointer !== '') {
    return [conflictLine(fieldLabel(conflict.path), conflict.base, conflict.current, conflict.proposed, place)];
  }
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
