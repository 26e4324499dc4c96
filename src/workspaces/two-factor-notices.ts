import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Mailer } from '../mail/mailer.js';
import { twoFactorRequiredMessage } from '../mail/templates.js';
import { findMembersWithoutSecondFactor } from '../memberships/queries.js';
import type { WorkspaceJson } from './schema.js';

/**
 * When a workspace starts requiring two-factor authentication, the members who have neither TOTP
 * nor a passkey are shut out of it from their next request: each is mailed what changed and where
 * to set one up, so they learn it before they meet the refusal.
 */
export class TwoFactorRequirementNotices {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly mailer: Mailer,
    private readonly publicUrl: string,
  ) {}

  async send(workspace: WorkspaceJson): Promise<void> {
    const link = `${this.publicUrl}/settings/security`;
    for (const member of await findMembersWithoutSecondFactor(this.db, workspace.id)) {
      this.mailer.send(twoFactorRequiredMessage(member.email, { workspaceName: workspace.name, link }));
    }
  }
}
