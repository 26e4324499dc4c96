import type { Transaction } from 'kysely';
import { type AuditEventRow, recordEvent } from '../audit/queries.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database } from '../db/schema.js';
import { type SiteRow, siteSaveQuery } from './queries.js';
import { insertSiteVersion, type SiteVersionRow } from './versions.js';

const siteSave = new PreparedQuery(siteSaveQuery);

/**
 * Writes a site read with findSiteForUpdate and merged, with its version and its audit event, in
 * the same transaction: every column a client may change is written, so a change made by another
 * writer in between would be lost, were the row not locked since it was read.
 */
export async function saveSiteChange(trx: Transaction<Database>, change: { site: SiteRow; version: SiteVersionRow; event: AuditEventRow }): Promise<void> {
  await siteSave.execute(trx, change.site);
  await insertSiteVersion(trx, change.version);
  await recordEvent(trx, change.event);
}
