import type { Kysely } from 'kysely';
import { SYSTEM } from '../audit/origin.js';
import { recordAuditEvent } from '../audit/queries.js';
import type { Cache } from '../cache/cache.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { invalidatingAfter } from '../sites/writes.js';
import { readPartnerSettings, type StoredPartnerSettings } from '../sites/partner-settings.js';
import { siteTarget } from '../sites/presenter.js';
import { lockSiteInWorkspace, type SiteRow, updateSite } from '../sites/queries.js';
import { siteNotFound } from '../sites/service.js';
import { eventActor, publishWebhookEvent } from '../webhooks/outbox.js';
import { insertPartnerCheck } from './queries.js';
import { CHECK_HISTORY_LENGTH, type PartnerCheckJson } from './schema.js';

/** A partner connection that stopped working, or works again: what its workspace's admins are told. */
export interface PartnerStatusChange {
  before: 'ok' | 'error';
  after: 'ok' | 'error';
}

/** Only a move between ok and error is a change worth telling; the first check of a site is not. */
function partnerStatusChange(before: string, after: string): PartnerStatusChange | null {
  if (before === 'ok' && after === 'error') return { before, after };
  if (before === 'error' && after === 'ok') return { before, after };
  return null;
}

export interface PartnerCheckRecordingDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told of every write after it commits, so that it never serves what the write replaced. */
  cache: Cache;
}

/**
 * Stores a partner connection check of a saved site: its details in the site's check history and
 * its result in the three last_* fields of the site's partner settings, in one transaction under
 * the site's row lock. Only those three fields are merged into the stored settings, so a PUT that
 * landed while the check ran keeps its changes. The version (ETag) moves because the
 * representation changed; updated_at does not, since it records changes to the configuration. A
 * change between ok and error is recorded once, by the check that saw it: an audit event and a
 * partner.status_changed webhook event, by Siteward.
 */
export function recordPartnerCheck(deps: PartnerCheckRecordingDeps, site: Pick<SiteRow, 'id' | 'workspace_id'>, check: PartnerCheckJson): Promise<{ site: SiteRow; statusChange: PartnerStatusChange | null }> {
  const { id, workspace_id: workspaceId } = site;
  const result = { last_status: check.status, last_error: check.status === 'ok' ? null : check.message, last_checked_at: check.at };
  return invalidatingAfter(deps.cache, { workspaceId, siteId: id }, () =>
    deps.db.transaction().execute(async (trx) => {
      const row = await lockSiteInWorkspace(trx, deps.dialect, workspaceId, id);
      if (row === undefined) throw siteNotFound();
      await insertPartnerCheck(trx, id, check, CHECK_HISTORY_LENGTH);
      const stored = readPartnerSettings(row);
      const settings: StoredPartnerSettings = { ...stored, ...result };
      const changes = { partner_settings: JSON.stringify(settings), version: row.version + 1 };
      await updateSite(trx, workspaceId, id, changes);
      const saved = { ...row, ...changes };
      const statusChange = partnerStatusChange(stored.last_status, result.last_status);
      if (statusChange !== null) {
        const facts = { status: statusChange, error: result.last_error, checked_at: result.last_checked_at };
        await recordAuditEvent(trx, deps.clock, SYSTEM, { workspaceId, action: 'partner.status_changed', target: siteTarget(saved), details: facts });
        await publishWebhookEvent(trx, deps.clock, {
          workspaceId,
          type: 'partner.status_changed',
          orderKey: id,
          data: () => ({ site: { id, workspace_id: workspaceId, name: saved.name }, ...facts, ...eventActor(SYSTEM) }),
        });
      }
      return { site: saved, statusChange };
    }),
  );
}
