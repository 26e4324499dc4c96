import type { SiteRow } from './queries.js';
import { PARTNER_EDITABLE_FIELDS, SETTINGS_FIELDS } from './contract.js';

/** How the partner access token changed, named without its value. */
export type TokenChange = 'set' | 'replaced' | 'cleared';

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
 * The JSON Pointer paths a change touched (`/name`, `/ai_settings`, `/partner_settings/base_url`),
 * in the site's field order; the partner token as `/partner_settings/access_token` with how it
 * changed, never its value. The server's own partner fields (check results) are not a person's change.
 */
export function changedPaths(before: SiteRow, after: SiteRow): { paths: string[]; token?: TokenChange } {
  const paths: string[] = TOP_FIELDS.filter((field) => before[field] !== after[field]).map((field) => `/${field}`);
  const partnerBefore = partnerFields(before);
  const partnerAfter = partnerFields(after);
  for (const field of PARTNER_EDITABLE_FIELDS) {
    if (JSON.stringify(partnerBefore[field]) !== JSON.stringify(partnerAfter[field])) paths.push(`/partner_settings/${field}`);
  }
  if (before.partner_access_token === after.partner_access_token) return { paths };
  paths.push('/partner_settings/access_token');
  const token: TokenChange = after.partner_access_token === null ? 'cleared' : before.partner_access_token === null ? 'set' : 'replaced';
  return { paths, token };
}
