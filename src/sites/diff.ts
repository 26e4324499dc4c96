import type { SiteRow } from './queries.js';
import { type PathChange, type SiteFields, siteFieldChanges } from './site-merge.js';

/** How the partner access token changed, named without its value. */
export type TokenChange = 'set' | 'replaced' | 'cleared';

/**
 * One setting a change touched, by JSON Pointer (sites/site-merge.ts: inside a settings group that
 * holds a JSON object, one per setting); `before` is absent for a setting added, `after` for one
 * removed. The partner token says how it changed, never its value.
 */
export type SiteChange = PathChange | { path: '/partner_settings/access_token'; change: TokenChange };

function partnerFields(row: SiteRow): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(row.partner_settings);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function fieldsOf(row: SiteRow): SiteFields {
  const { name, color, ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources } = row;
  return { name, color, ai_settings, email_settings, widget, portal, branding, public_theme, knowledge_sources, partner_settings: partnerFields(row) };
}

/**
 * What a change did to a site, setting by setting, in the site's field order (`/name`,
 * `/ai_settings/tone`, `/branding`, `/partner_settings/base_url`). The server's own partner fields
 * (check results) are not a person's change and are left out.
 */
export function siteChanges(before: SiteRow, after: SiteRow): SiteChange[] {
  const changes: SiteChange[] = siteFieldChanges(fieldsOf(before), fieldsOf(after));
  if (before.partner_access_token !== after.partner_access_token) {
    const change: TokenChange = after.partner_access_token === null ? 'cleared' : before.partner_access_token === null ? 'set' : 'replaced';
    changes.push({ path: '/partner_settings/access_token', change });
  }
  return changes;
}

/** The paths alone, and how the token changed: what the audit log says of a change. */
export function changedPaths(changes: readonly SiteChange[]): { paths: string[]; token?: TokenChange } {
  const token = changes.find((change) => 'change' in change);
  const paths = changes.map((change) => change.path);
  return token !== undefined && 'change' in token ? { paths, token: token.change } : { paths };
}
