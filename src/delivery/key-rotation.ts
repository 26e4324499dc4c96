import type { Kysely } from 'kysely';
import type { ChangeOrigin } from '../audit/origin.js';
import { recordAuditEvent } from '../audit/queries.js';
import type { Cache } from '../cache/cache.js';
import { type DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { AppError } from '../errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { assertCan, assertTwoFactorMet, can } from '../memberships/permissions.js';
import { invalidatingAfter } from '../sites/writes.js';
import { findSiteForUpdate, type SiteCaller, type SiteRow } from '../sites/queries.js';
import { siteNotFound } from '../sites/service.js';
import { generatePublicKey } from '../lib/public-keys.js';
import { PREVIOUS_KEY_OVERLAP_MS } from './contract.js';
import { DELIVERY_ERRORS } from './errors.js';
import { replacePublicKey } from './queries.js';

export interface PublicKeyRotationDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told after the rotation commits, so that no process answers for the replaced key as if it were current. */
  cache: Cache;
}

/**
 * Replaces a site's publishable key: editors and above, as for any change to the site; while the
 * workspace requires review, admins and owners only, since a rotation cannot go through a change
 * request and moves every page that embeds the site. The replaced key answers for
 * PREVIOUS_KEY_OVERLAP_MS more, so pages that still carry it keep working while they are updated.
 * Only one previous key is kept: while it still answers, another rotation would end it at once and
 * break the pages not yet updated without warning, so it is refused (409
 * previous_key_still_answering) until the previous key has stopped.
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
        if (found === undefined) throw siteNotFound();
        assertTwoFactorMet(caller.twoFactorMissingIn, found.site.workspace_id);
        assertCan(found.role, 'site.update', siteNotFound);
        if (found.reviewRequired && !can(found.role, 'public_key.rotate_under_review')) {
          throw new AppError(403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE, `While this workspace requires review, rotating a public key is for admins and owners; your role is ${found.role}.`);
        }
        touched.workspaceId = found.site.workspace_id;
        const now = this.deps.clock.now();
        assertPreviousKeyStopped(found.site, now);
        const expiresAt = new Date(now.getTime() + PREVIOUS_KEY_OVERLAP_MS).toISOString();
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

/** Refuses a rotation while the key the last rotation replaced still answers (see PublicKeyRotation). */
function assertPreviousKeyStopped(site: SiteRow, now: Date): void {
  const expiresAt = site.previous_public_key_expires_at;
  if (site.previous_public_key === null || expiresAt === null || Date.parse(expiresAt) <= now.getTime()) return;
  throw new AppError(
    409,
    DELIVERY_ERRORS.PREVIOUS_KEY_STILL_ANSWERING,
    `The key the last rotation replaced still answers until ${expiresAt}, for pages not yet updated; another rotation would stop it at once. Rotate again after that time.`,
  );
}
