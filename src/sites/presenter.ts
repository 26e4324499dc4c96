import build from 'fast-json-stringify';
import { originJson } from '../audit/origin.js';
import { ownBuffer } from '../cache/cache.js';
import { versionEtag } from '../http/etag.js';
import { DEFAULT_PARTNER_SETTINGS, readPartnerSettings, type StoredPartnerSettings } from './partner-settings.js';
import type { SiteRow, SiteVersionRow } from './queries.js';
import {
  SETTINGS_FIELDS,
  type SettingsField,
  SiteEnvelope,
  type SiteEnvelopeJson,
  type SiteJson,
  SiteList,
  type SiteListJson,
  type SiteSummaryJson,
  SiteSummaryList,
  type SiteSummaryListJson,
  type SiteVersionJson,
  type SiteVersionSiteJson,
  type TrashEntryJson,
} from './schema.js';

/*
 * Every rendering of a site: the objects (siteToJson, siteToSummary) and the bytes the site routes
 * send and the cache keeps (encode*). Each encoder is compiled from the response schema its route
 * declares (schema.ts), by the serialiser Fastify compiles response schemas with, and takes the
 * type of that schema: the bytes are what the schema says by construction, and what the schema
 * does not name (a stray key in stored partner settings, say) is left out, as from any answer.
 * The site routes that let Fastify serialise declare the same schemas.
 */

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

/** The site as the list screen shows it (`fields=summary`): what is set, not the settings text itself. */
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

/** A settings group holds something unless it is blank or an empty JSON object or array. */
function isConfigured(text: string): boolean {
  // Trimmed first: one pattern with whitespace on both sides would backtrack quadratically on 64 KiB of spaces.
  const trimmed = text.trim();
  return trimmed !== '' && !/^(?:\{\s*\}|\[\s*\])$/.test(trimmed);
}

const serializeSiteEnvelope: (answer: SiteEnvelopeJson) => string = build(SiteEnvelope);
const serializeSiteList: (answer: SiteListJson) => string = build(SiteList);
const serializeSummaryList: (answer: SiteSummaryListJson) => string = build(SiteSummaryList);

/** The body of GET and PUT /api/v1/sites/{id} (SiteEnvelope). */
export function encodeSiteEnvelope(row: SiteRow): Buffer {
  return ownBuffer(serializeSiteEnvelope({ site: siteToJson(row) }));
}

/** The body of GET /api/v1/sites (SiteList). */
export function encodeSiteList(rows: readonly SiteRow[], nextCursor: string | null): Buffer {
  return ownBuffer(serializeSiteList({ sites: rows.map(siteToJson), next_cursor: nextCursor }));
}

/** The body of GET /api/v1/sites?fields=summary (SiteSummaryList). */
export function encodeSummaryList(rows: readonly SiteRow[], nextCursor: string | null, total: number): Buffer {
  return ownBuffer(serializeSummaryList({ sites: rows.map(siteToSummary), next_cursor: nextCursor, total }));
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
  // As writes.ts records it: the changes, the version restored from, and how review saw it.
  const recorded = JSON.parse(row.changes) as Pick<SiteVersionJson, 'changes' | 'restored_from'> & Pick<SiteVersionJson['via'], 'change_request' | 'review_bypassed'>;
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
