import { DEFAULT_PARTNER_SETTINGS } from './partner-settings.js';
import type { SiteRow } from './queries.js';

export const DEFAULT_COLOR = '#4f46e5';

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
