import type { Updateable } from 'kysely';
import type { SitesTable } from '../db/schema.js';
import type { SecretBox } from '../lib/crypto.js';
import { readPartnerSettings, type StoredPartnerSettings } from './defaults.js';
import { encodeTokenOrigins, partnerOrigins, type PartnerTokenOrigins, readTokenOrigins, sameOrigins } from './partner-token-binding.js';
import type { SiteRow } from './queries.js';
import { PARTNER_EDITABLE_FIELDS, type PartnerSettingsUpdate } from './schema.js';

/** Fields a client may change (the contract's list); the check results and the token flag belong to the server. */
const CLIENT_PARTNER_FIELDS: ReadonlyArray<keyof StoredPartnerSettings & keyof PartnerSettingsUpdate> = PARTNER_EDITABLE_FIELDS;

/** What a change of partner_settings does to the stored token. */
export type PartnerTokenChange =
  | { change: 'keep' }
  | { change: 'clear' }
  /** A token sent with the change, bound to the origins the change leaves in place. */
  | { change: 'replace'; value: string; origins: PartnerTokenOrigins };

export interface MergedPartnerSettings {
  settings: StoredPartnerSettings;
  token: PartnerTokenChange;
}

/** partner_settings merged field by field over the stored ones, as PUT does. */
export function mergePartnerSettings(row: SiteRow, partner: PartnerSettingsUpdate): MergedPartnerSettings {
  const settings: StoredPartnerSettings = readPartnerSettings(row);
  for (const field of CLIENT_PARTNER_FIELDS) {
    const value = partner[field];
    if (value !== undefined) (settings as Record<string, unknown>)[field] = value;
  }
  const origins = partnerOrigins(settings);
  if (partner.access_token === null || partner.access_token === '') return { settings, token: { change: 'clear' } };
  if (partner.access_token !== undefined) return { settings, token: { change: 'replace', value: partner.access_token, origins } };
  // Moving base_url or mcp_url to another origin must not take the stored token along:
  // whoever can edit the site could otherwise point the check at a host of their own.
  if (row.partner_access_token !== null && !sameOrigins(readTokenOrigins(row), origins)) return { settings, token: { change: 'clear' } };
  return { settings, token: { change: 'keep' } };
}

/** The columns a partner_settings update writes: the merged settings, and the token encrypted, cleared or left alone. */
export function partnerSettingsColumns(row: SiteRow, partner: PartnerSettingsUpdate, secrets: SecretBox): Updateable<SitesTable> {
  const merged = mergePartnerSettings(row, partner);
  const columns: Updateable<SitesTable> = { partner_settings: JSON.stringify(merged.settings) };
  if (merged.token.change === 'clear') {
    columns.partner_access_token = null;
    columns.partner_token_origins = null;
  } else if (merged.token.change === 'replace') {
    columns.partner_access_token = secrets.encrypt(merged.token.value, partnerTokenContext(row.id));
    columns.partner_token_origins = encodeTokenOrigins(merged.token.origins);
  }
  return columns;
}

/** The partner access token in clear, for the connection check only. */
export function decryptPartnerAccessToken(row: SiteRow, secrets: SecretBox): string | null {
  return row.partner_access_token === null ? null : secrets.decrypt(row.partner_access_token, partnerTokenContext(row.id));
}

/** Binds the ciphertext to its site: copied into another row it fails to decrypt. */
function partnerTokenContext(siteId: string): string {
  return `site:${siteId}:partner_access_token`;
}
