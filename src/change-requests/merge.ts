import type { PublicSiteRow } from '../delivery/queries.js';
import type { SiteRow } from '../sites/service.js';
import { readPartnerSettings } from '../sites/partner-settings.js';
import { PARTNER_EDITABLE_FIELDS, type PartnerEditableField, SETTINGS_FIELDS, type SiteUpdate } from '../sites/schema.js';
import { applyChanges, mergeChanges, sameValue, type PathChange, type PathConflict, type SiteFields } from '../sites/site-merge.js';
import type { ConflictResolution } from './contract.js';

/**
 * One path a change request changes: its value at the request's base version, and the proposal's
 * (`before` absent where the setting was not there, `after` where the proposal removes it).
 */
export type ProposedChange = PathChange;

/** A path the site changed since the base to another value than the proposal's. */
export type MergeConflict = PathConflict;

/** The public configuration's fields a proposal may change, and so what its preview shows. */
const PREVIEWED_FIELDS = ['name', 'color', 'widget', 'portal', 'branding', 'public_theme'] as const;

/** A site's row as the merge reads it: the settings people change. */
export function siteFields(row: SiteRow): SiteFields {
  const { name, color, ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources } = row;
  return { name, color, ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources, partner_settings: { ...readPartnerSettings(row) } };
}

/**
 * Merges a proposal onto the site as it is now, path by path (sites/site-merge.ts): a path the
 * site still holds at its base value takes the proposal's; one that already holds the proposal's
 * value is left alone; one that moved to a third value is a conflict, unless `resolutions` settles
 * it. Paths the proposal leaves out are never touched, so two requests that change different
 * settings, of one group or not, both land, in either order. The input is the PUT body of what
 * the merge changes.
 */
export function mergeProposal(
  row: SiteRow,
  proposal: readonly ProposedChange[],
  resolutions: Readonly<Record<string, ConflictResolution>> = {},
): { input: SiteUpdate; conflicts: MergeConflict[] } {
  const current = siteFields(row);
  const { merged, conflicts } = mergeChanges(current, proposal, resolutions);
  return { input: updateOf(current, merged), conflicts };
}

/** The PUT body that turns `current` into `merged`: the fields that differ. */
function updateOf(current: SiteFields, merged: SiteFields): SiteUpdate {
  const input: Record<string, unknown> = {};
  if (merged.name !== current.name) input.name = merged.name;
  if (merged.color !== current.color) input.color = merged.color;
  for (const field of SETTINGS_FIELDS) {
    if (merged[field] !== current[field]) input[field] = merged[field];
  }
  const partner: Partial<Record<PartnerEditableField, unknown>> = {};
  for (const field of PARTNER_EDITABLE_FIELDS) {
    if (!sameValue(merged.partner_settings[field], current.partner_settings[field])) partner[field] = merged.partner_settings[field];
  }
  if (Object.keys(partner).length > 0) input.partner_settings = partner;
  return input as SiteUpdate;
}

/**
 * The public columns as the proposal would leave them: its values laid over the site, conflicts
 * included (what the request asks for, as reviewers judge it); settings inside a group are set in
 * the group's current text.
 */
export function previewedRow(site: PublicSiteRow, proposal: readonly ProposedChange[]): PublicSiteRow {
  const { name, color, widget, portal, branding, public_theme } = site;
  const fields: SiteFields = { name, color, widget, portal, branding, public_theme, ai_settings: '', email_settings: '', knowledge_sources: '', partner_settings: {} };
  const shown = proposal.filter((change) => (PREVIEWED_FIELDS as readonly string[]).includes(change.path.split('/')[1] ?? ''));
  const previewed = applyChanges(fields, shown);
  const row: PublicSiteRow = { ...site };
  for (const field of PREVIEWED_FIELDS) row[field] = previewed[field];
  return row;
}
