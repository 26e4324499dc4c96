import type { SiteRow } from './queries.js';
import { PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS } from './contract.js';

/** How the partner access token changed, named without its value. */
export type TokenChange = 'set' | 'replaced' | 'cleared';

/** One field a change touched, by JSON Pointer; the partner token says how it changed, never its value. */
export type SiteChange = { path: string; before: unknown; after: unknown } | { path: '/partner_settings/access_token'; change: TokenChange };

const TOP_FIELDS = ['name', 'color', ...SETTINGS_FIELDS] as const;

function partnerFields(row: SiteRow): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(row.partner_settings);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * What a change did to a site, field by field, in the site's field order (`/name`, `/ai_settings`,
 * `/partner_settings/base_url`). The server's own partner fields (check results) are not a
 * person's change and are left out.
 */
export function siteChanges(before: SiteRow, after: SiteRow): SiteChange[] {
  const changes: SiteChange[] = [];
  for (const field of TOP_FIELDS) {
    if (before[field] !== after[field]) changes.push({ path: `/${field}`, before: before[field], after: after[field] });
  }
  const partnerBefore = partnerFields(before);
  const partnerAfter = partnerFields(after);
  for (const field of PARTNER_EDITABLE_FIELDS) {
    if (JSON.stringify(partnerBefore[field]) !== JSON.stringify(partnerAfter[field])) {
      changes.push({ path: `/partner_settings/${field}`, before: partnerBefore[field] ?? null, after: partnerAfter[field] ?? null });
    }
  }
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
