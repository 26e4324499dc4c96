import type { Transaction } from 'kysely';
import { type AuditEventRow, insertEventQuery, recordEvent } from '../audit/queries.js';
import type { DialectName } from '../db/connect.js';
import { type Prefixed, PreparedQuery, prefixed, unprefixed } from '../db/prepared-query.js';
import type { Database } from '../db/schema.js';
import { type SiteRow, siteSaveQuery } from './queries.js';
import { insertSiteVersion, insertVersionQuery, type SiteVersionRow } from './versions.js';

const siteSave = new PreparedQuery(siteSaveQuery);

type SiteChangeParams = Prefixed<'site_', SiteRow> & Prefixed<'version_', SiteVersionRow> & Prefixed<'event_', AuditEventRow>;

// PostgreSQL: the row, its version and its audit event in one statement (data-modifying WITH), so a
// change costs one round trip to the server instead of three (docs/performance.md).
const siteChangeAtOnce = new PreparedQuery((db, p: SiteChangeParams) =>
  insertEventQuery(
    db.with('saved_site', (creator) => siteSaveQuery(creator, unprefixed('site_', p))).with('saved_version', (creator) => insertVersionQuery(creator, unprefixed('version_', p))),
    unprefixed('event_', p),
  ),
);

/**
 * Writes a site read with findSiteForUpdate and merged, with its version and its audit event, in
 * the same transaction: every column a client may change is written, so a change made by another
 * writer in between would be lost, were the row not locked since it was read. SQLite has no round
 * trips to save and no data-modifying WITH: three statements there.
 */
export async function saveSiteChange(trx: Transaction<Database>, dialect: DialectName, change: { site: SiteRow; version: SiteVersionRow; event: AuditEventRow }): Promise<void> {
  if (dialect === 'postgres') {
    await siteChangeAtOnce.execute(trx, { ...prefixed('site_', change.site), ...prefixed('version_', change.version), ...prefixed('event_', change.event) });
    return;
  }
  await siteSave.execute(trx, change.site);
  await insertSiteVersion(trx, change.version);
  await recordEvent(trx, change.event);
}
