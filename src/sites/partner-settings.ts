import type { Updateable } from 'kysely';
import type { SitesTable } from '../db/schema.js';
import type { SecretBox } from '../lib/crypto.js';
import type { SiteRow } from './queries.js';
import { PARTNER_EDITABLE_FIELDS, type PartnerSettings, type PartnerSettingsUpdate } from './schema.js';

/*
 * A site's partner settings: as stored and their defaults, an update merged field by field over
 * them on a write, and the partner access token, encrypted to its site and bound to the origins it
 * was saved for.
 */

/** partner_settings as stored: everything but the token (its own encrypted column) and the derived flag. */
export type StoredPartnerSettings = Omit<PartnerSettings, 'access_token_configured'>;

export const DEFAULT_PARTNER_SETTINGS: StoredPartnerSettings = {
  enabled: false,
  base_url: '',
  mcp_url: '',
  project_id: '',
  auth_type: 'bearer',
  read_enabled: true,
  write_enabled: false,
  collections: [],
  widget_project_id: '',
  widget_search_sources: [],
  last_status: 'unchecked',
  last_error: null,
  last_checked_at: null,
};

/** The stored partner settings over the defaults: a field added since the row was written reads as its default. */
export function readPartnerSettings(row: SiteRow): StoredPartnerSettings {
  const stored = JSON.parse(row.partner_settings) as Partial<StoredPartnerSettings>;
  return { ...DEFAULT_PARTNER_SETTINGS, ...stored };
}

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

// The token's binding to origins.

/**
 * The partner access token is bound to the origins of base_url and mcp_url it was saved with.
 *
 * The threat: anyone who may edit a site (an access token with sites:write, a compromised
 * session) points mcp_url at a host of their own and runs the connection check, which would send
 * the stored token there. The token was given to us for one partner, not for whatever URL the
 * site names later. So a change of either origin clears the token unless the same request sends a
 * new one, and the check sends it only to the origin it is bound to. Paths may change freely: the
 * partner is the same server.
 */
export interface PartnerTokenOrigins {
  /** The origin of base_url when the token was saved, "" when base_url was empty. */
  base_url: string;
  /** The origin of mcp_url when the token was saved, "" when mcp_url was empty. */
  mcp_url: string;
}

/** "https://partner.example" for "https://Partner.example:443/mcp"; "" for an empty or invalid URL. */
export function originOf(url: string): string {
  if (url === '') return '';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : '';
  } catch {
    return '';
  }
}

export function partnerOrigins(settings: { base_url: string; mcp_url: string }): PartnerTokenOrigins {
  return { base_url: originOf(settings.base_url), mcp_url: originOf(settings.mcp_url) };
}

export function encodeTokenOrigins(origins: PartnerTokenOrigins): string {
  return JSON.stringify({ base_url: origins.base_url, mcp_url: origins.mcp_url });
}

/**
 * The origins the stored token is bound to. A token without a readable binding (written by a
 * version that predates it, or edited by hand) is bound to nothing: it is sent nowhere and the
 * next change of partner settings clears it.
 */
export function readTokenOrigins(row: Pick<SiteRow, 'partner_token_origins'>): PartnerTokenOrigins | null {
  if (row.partner_token_origins === null) return null;
  try {
    const parsed: unknown = JSON.parse(row.partner_token_origins);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { base_url: baseUrl, mcp_url: mcpUrl } = parsed as Record<string, unknown>;
    return typeof baseUrl === 'string' && typeof mcpUrl === 'string' ? { base_url: baseUrl, mcp_url: mcpUrl } : null;
  } catch {
    return null;
  }
}

/** Whether the token bound to `bound` may stay with settings whose URLs have these origins. */
export function sameOrigins(bound: PartnerTokenOrigins | null, now: PartnerTokenOrigins): boolean {
  return bound !== null && bound.base_url === now.base_url && bound.mcp_url === now.mcp_url;
}
