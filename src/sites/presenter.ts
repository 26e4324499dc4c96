import { originJson } from '../audit/origin.js';
import { versionEtag } from '../http/etag.js';
import { DEFAULT_PARTNER_SETTINGS, type StoredPartnerSettings } from './defaults.js';
import type { SiteChange } from './diff.js';
import type { SiteRow } from './queries.js';
import type { SiteJson, SiteVersionJson, SiteVersionSiteJson, TrashEntryJson } from './schema.js';
import type { SiteVersionRow, VersionReview } from './versions.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The site as responses show it. The partner access token never leaves the server. */
export function siteToJson(row: SiteRow): SiteJson {
  // Parsed and merged in one object literal: this runs for every site of every page listed.
  const stored = JSON.parse(row.partner_settings) as Partial<StoredPartnerSettings>;
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    color: row.color,
    ai_settings: row.ai_settings,
    email_settings: row.email_settings,
    widget: row.widget,
    portal: row.portal,
    branding: row.branding,
    public_theme: row.public_theme,
    knowledge_sources: row.knowledge_sources,
    partner_settings: { ...DEFAULT_PARTNER_SETTINGS, ...stored, access_token_configured: row.partner_access_token !== null },
    public_key: row.public_key,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function siteEtag(row: SiteRow): string {
  return versionEtag(row.version);
}

/** A site as the audit log names it. */
export function siteTarget(row: Pick<SiteRow, 'id' | 'name'>): { type: 'site'; id: string; name: string } {
  return { type: 'site', id: row.id, name: row.name };
}

/** A trashed site as the trash lists it; the site as it was when deleted, without its token. */
export function trashEntryToJson(row: SiteRow, retentionDays: number): TrashEntryJson {
  const deletedAt = row.deleted_at ?? row.updated_at;
  return {
    site: siteToJson(row),
    deleted_at: deletedAt,
    deleted_by: row.deleted_by === null ? null : (JSON.parse(row.deleted_by) as TrashEntryJson['deleted_by']),
    purge_at: new Date(Date.parse(deletedAt) + retentionDays * DAY_MS).toISOString(),
  };
}

/** A version as the history shows it; `withSite` adds the site as it was then (one version, not a page of them). */
export function siteVersionToJson(row: SiteVersionRow, withSite: boolean): SiteVersionJson {
  const recorded = JSON.parse(row.changes) as { changes: SiteChange[]; restored_from: number | null } & VersionReview;
  const origin = originJson(row);
  const json: SiteVersionJson = {
    version: row.version,
    created_at: row.created_at,
    actor: origin.actor,
    via: {
      ...origin.via,
      ...(recorded.change_request === undefined ? {} : { change_request: recorded.change_request }),
      ...(recorded.review_bypassed === true ? { review_bypassed: true } : {}),
    },
    changes: recorded.changes,
    restored_from: recorded.restored_from,
  };
  if (withSite) json.site = JSON.parse(row.site) as SiteVersionSiteJson;
  return json;
}
