import type { Transaction } from 'kysely';
import { type ChangeOrigin, originColumns } from '../audit/origin.js';
import { auditEventRow, recordAuditEvent, recordEvent } from '../audit/queries.js';
import type { Cache } from '../cache/cache.js';
import { siteTag, workspaceSitesTag } from '../cache/change-feed.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { WebhookEventType } from '../webhooks/contract.js';
import { eventActor, publishWebhookEvent } from '../webhooks/outbox.js';
import { siteTarget, siteToJson } from './presenter.js';
import { insertSite, insertSiteVersion, saveSite, type SiteRow, type SiteVersionRow } from './queries.js';
import type { SiteJson, SiteVersionSiteJson } from './schema.js';
import { type PathChange, type SiteFields, siteFieldChanges } from './site-merge.js';

/*
 * Writing a site: what a change did to it, path by path; the change written as its next version
 * (the row, its entry in the history, its audit event and its webhook event, in one transaction);
 * and the cache tags the write reports once it ends. The rules that decide whether a change may be
 * made are the service's (service.ts); the SQL is in queries.ts.
 */

/** How review saw a version: made by applying a change request, or directly by an owner while review is required. */
export interface VersionReview {
  change_request?: { id: string; title: string };
  review_bypassed?: true;
}

/**
 * Writes `after`, the locked row `before` with a change merged in, as the site's next version, in
 * the caller's transaction: the row, its version in the history and its audit event commit
 * together or not at all, and its webhook event with them when the workspace has webhooks.
 */
export async function writeNextVersion(
  trx: Transaction<Database>,
  clock: Clock,
  origin: ChangeOrigin,
  site: { before: SiteRow; after: SiteRow; webhooks: number },
  how: { restoredFrom?: number; review?: VersionReview | undefined } = {},
): Promise<void> {
  const { before, after, webhooks } = site;
  const { restoredFrom, review } = how;
  const changes = siteChanges(before, after);
  const version = siteVersionRow(origin, {
    site: siteToJson(after),
    version: after.version,
    changes,
    ...(restoredFrom === undefined ? {} : { restoredFrom }),
    ...(review === undefined ? {} : { review }),
  });
  const { paths, token } = changedPaths(changes);
  const facts = {
    changed: paths,
    ...(token === undefined ? {} : { access_token: token }),
    ...(restoredFrom === undefined ? {} : { restored_from: restoredFrom }),
    ...review,
  };
  const action = restoredFrom === undefined ? 'site.updated' : 'site.restored';
  const event = auditEventRow(clock, origin, { workspaceId: before.workspace_id, action, target: siteTarget(after), details: { version: after.version, ...facts } });
  // The row was read with findSiteForUpdate and is still locked: writing every column loses no one's change.
  await saveSite(trx, after);
  await insertSiteVersion(trx, version);
  await recordEvent(trx, event);
  if (webhooks > 0) await publishSiteEvent(trx, clock, origin, action, after, facts);
}

/** A new site, its first version, its audit event and its webhook event, in the caller's transaction. */
export async function writeNewSite(trx: Transaction<Database>, clock: Clock, origin: ChangeOrigin, site: { empty: SiteRow; row: SiteRow }, review?: VersionReview): Promise<void> {
  const { empty, row } = site;
  await insertSite(trx, row);
  const changes = siteChanges({ ...empty, name: '' }, row);
  await insertSiteVersion(trx, siteVersionRow(origin, { site: siteToJson(row), version: row.version, changes, ...(review === undefined ? {} : { review }) }));
  await recordAuditEvent(trx, clock, origin, { workspaceId: row.workspace_id, action: 'site.created', target: siteTarget(row), details: { version: row.version, ...review } });
  await publishSiteEvent(trx, clock, origin, 'site.created', row, { changed: changedPaths(changes).paths, ...review });
}

/**
 * Queues a site's change for its workspace's webhooks, in the change's transaction. The site is
 * shown as the API shows it (no token); the site's id orders its events.
 */
export function publishSiteEvent(trx: Transaction<Database>, clock: Clock, origin: ChangeOrigin, type: WebhookEventType, site: SiteRow, facts: Record<string, unknown>): Promise<void> {
  return publishWebhookEvent(trx, clock, {
    workspaceId: site.workspace_id,
    type,
    orderKey: site.id,
    data: () => ({ site: siteToJson(site), version: site.version, ...facts, ...eventActor(origin) }),
  });
}

// What a change did.

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
function changedPaths(changes: readonly SiteChange[]): { paths: string[]; token?: TokenChange } {
  const token = changes.find((change) => 'change' in change);
  const paths = changes.map((change) => change.path);
  return token !== undefined && 'change' in token ? { paths, token: token.change } : { paths };
}

/** A site's version as stored: who made it and how, the site as the API shows it, what changed. */
function siteVersionRow(
  origin: ChangeOrigin,
  entry: { site: SiteJson; version: number; changes: readonly SiteChange[]; restoredFrom?: number; review?: VersionReview },
): SiteVersionRow {
  return {
    site_id: entry.site.id,
    version: entry.version,
    created_at: entry.site.updated_at,
    ...originColumns(origin),
    changes: JSON.stringify({ changes: entry.changes, restored_from: entry.restoredFrom ?? null, ...entry.review }),
    site: JSON.stringify(versionedSite(entry.site)),
  };
}

/** The site as a version keeps it: its publishable key is no part of its history. */
function versionedSite(site: SiteJson): SiteVersionSiteJson {
  const { public_key: _publicKey, ...rest } = site;
  return rest;
}

// What a write tells the cache.

/**
 * What a committed write to a site touched, as this process reports it to the cache: the same tags
 * the trigger of migration 011 announces to the other processes on PostgreSQL.
 */
export function siteChangeTags(workspaceId: string | undefined, siteId?: string): string[] {
  const tags = siteId === undefined ? [] : [siteTag(siteId)];
  if (workspaceId !== undefined) tags.push(workspaceSitesTag(workspaceId));
  return tags;
}

/** What a write to a site has learnt of it so far; the write fills it in as it reads the site. */
export interface TouchedSite {
  workspaceId?: string | undefined;
  siteId?: string | undefined;
}

/**
 * Runs a write to a site, then reports what it touched to the cache whether or not the write
 * claims success: a commit whose answer was lost still changed the pages. Forgetting too much
 * only costs a read.
 */
export async function invalidatingAfter<T>(cache: Pick<Cache, 'invalidate'>, touched: TouchedSite, write: (touched: TouchedSite) => Promise<T>): Promise<T> {
  try {
    return await write(touched);
  } finally {
    cache.invalidate(siteChangeTags(touched.workspaceId, touched.siteId));
  }
}
