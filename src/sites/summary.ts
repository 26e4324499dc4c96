import build from 'fast-json-stringify';
import { ownBuffer } from '../cache/cache.js';
import type { SiteRow } from './queries.js';
import { SETTINGS_FIELDS, type SettingsField, SiteSummaryList, type SiteSummaryJson } from './schema.js';
import { readPartnerSettings } from './defaults.js';

/** A settings group holds something unless it is blank or an empty JSON object or array. */
function isConfigured(text: string): boolean {
  // Trimmed first: one pattern with whitespace on both sides would backtrack quadratically on 64 KiB of spaces.
  const trimmed = text.trim();
  return trimmed !== '' && !/^(?:\{\s*\}|\[\s*\])$/.test(trimmed);
}

/** The site as the list screen shows it: what is set, not the settings text itself. */
export function siteToSummary(row: SiteRow): SiteSummaryJson {
  const partner = readPartnerSettings(row);
  const configured: SettingsField[] = SETTINGS_FIELDS.filter((field) => isConfigured(row[field]));
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    color: row.color,
    created_at: row.created_at,
    updated_at: row.updated_at,
    configured,
    partner: {
      enabled: partner.enabled,
      access_token_configured: row.partner_access_token !== null,
      last_status: partner.last_status,
      last_checked_at: partner.last_checked_at,
    },
  };
}

const serializeSummaryList = build(SiteSummaryList);

/** The body of GET /api/v1/sites?fields=summary, in a buffer of its own: the cache keeps it (src/sites/reads.ts). */
export function encodeSummaryList(rows: readonly SiteRow[], nextCursor: string | null, total: number): Buffer {
  return ownBuffer(serializeSummaryList({ sites: rows.map(siteToSummary), next_cursor: nextCursor, total }));
}
