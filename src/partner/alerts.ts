import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Mailer } from '../mail/mailer.js';
import { partnerStatusMessage } from '../mail/templates.js';
import { findAdminEmails, findWorkspaceName } from '../memberships/queries.js';
import type { SiteRow } from '../sites/queries.js';
import { readPartnerSettings } from '../sites/partner-settings.js';
import type { PartnerStatusChange } from './check-recording.js';

/**
 * Mails a workspace's owners and admins when a site's partner connection stops working or works
 * again: one message per change, never one per failed check (the check that saw the change is the
 * only one that reports it, under the site's row lock).
 */
export class PartnerAlerts {
  constructor(private readonly deps: { db: Kysely<Database>; mailer: Mailer; publicUrl: string }) {}

  async statusChanged(site: SiteRow, change: PartnerStatusChange): Promise<void> {
    const { db, mailer, publicUrl } = this.deps;
    const [admins, workspaceName] = await Promise.all([findAdminEmails(db, site.workspace_id), findWorkspaceName(db, site.workspace_id)]);
    const link = new URL(`/sites/${site.id}`, publicUrl).href;
    const error = readPartnerSettings(site).last_error;
    for (const to of admins) {
      mailer.send(partnerStatusMessage(to, { siteName: site.name, workspaceName: workspaceName ?? '', status: change.after, error, link }));
    }
  }
}
