import type { Kysely } from 'kysely';
import type { ChangeOrigin } from '../audit/origin.js';
import { recordAuditEvent } from '../audit/queries.js';
import type { Cache } from '../cache/cache.js';
import { type DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { assertCan } from '../memberships/permissions.js';
import { invalidatingAfter } from '../sites/changes.js';
import { findSiteForUpdate, type SiteCaller, type SiteRow } from '../sites/queries.js';
import { siteNotFound } from '../sites/service.js';
import { generatePublicKey } from '../lib/public-keys.js';
import { PREVIOUS_KEY_OVERLAP_MS } from './contract.js';
import { replacePublicKey } from './queries.js';

export interface PublicKeyRotationDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told after the rotation commits, so that no process answers for the replaced key as if it were current. */
  cache: Cache;
}

/**
 * Replaces a site's publishable key (editors and above, as for any change to the site). The
 * replaced key answers for PREVIOUS_KEY_OVERLAP_MS more, so pages that still carry it keep working
 * while they are updated; the key it had replaced before stops at once.
 *
 * A rotation is no change of the site's configuration: it records no version in the site's history
 * and sends no webhook event (what a receiver would act on is unchanged). It is an audit event of
 * the workspace, since who rotated a key, and when, matters when pages stop loading.
 */
export class PublicKeyRotation {
  constructor(private readonly deps: PublicKeyRotationDeps) {}

  async rotate(caller: SiteCaller, origin: ChangeOrigin, siteId: string): Promise<SiteRow> {
    return invalidatingAfter(this.deps.cache, { siteId }, (touched) =>
      this.deps.db.transaction().execute(async (trx) => {
        const found = await findSiteForUpdate(trx, this.deps.dialect, caller, siteId);
        assertCan(found?.role, 'site.update', siteNotFound);
        if (found === undefined) throw siteNotFound();
        touched.workspaceId = found.site.workspace_id;
        const expiresAt = new Date(this.deps.clock.now().getTime() + PREVIOUS_KEY_OVERLAP_MS).toISOString();
        const site = await replacePublicKey(trx, found.site, generatePublicKey(), expiresAt);
        await recordAuditEvent(trx, this.deps.clock, origin, {
          workspaceId: site.workspace_id,
          action: 'site.public_key_rotated',
          target: { type: 'site', id: site.id, name: site.name },
          details: { version: site.version, previous_key_expires_at: expiresAt },
        });
        return site;
      }),
    );
  }
}
