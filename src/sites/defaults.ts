import type { SiteRow } from './queries.js';
import type { PartnerSettings } from './schema.js';

/** partner_settings as stored: everything but the token (its own encrypted column) and the derived flag. */
export type StoredPartnerSettings = Omit<PartnerSettings, 'access_token_configured'>;

export const DEFAULT_COLOR = '#4f46e5';

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

/** A new site before its input is applied: every setting empty, the partner connection off, version 1. */
export function newSiteRow(site: { id: string; workspaceId: string; userId: string | null; name: string; now: string; publicKey: string }): SiteRow {
  return {
    id: site.id,
    workspace_id: site.workspaceId,
    user_id: site.userId,
    name: site.name,
    color: DEFAULT_COLOR,
    ai_settings: '',
    email_settings: '',
    widget: '',
    portal: '',
    branding: '',
    public_theme: '',
    knowledge_sources: '',
    partner_settings: JSON.stringify(DEFAULT_PARTNER_SETTINGS),
    partner_access_token: null,
    partner_token_origins: null,
    version: 1,
    created_at: site.now,
    updated_at: site.now,
    deleted_at: null,
    deleted_by: null,
    public_key: site.publicKey,
    previous_public_key: null,
    previous_public_key_expires_at: null,
  };
}
