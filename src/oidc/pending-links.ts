import type { Kysely } from 'kysely';
import type { SessionService } from '../auth/sessions.js';
import type { Database } from '../db/schema.js';
import type { PendingClaimSignIn, PendingClaimSignIns } from '../email-verification/claim.js';
import type { Clock } from '../lib/clock.js';
import type { SecretBox } from '../lib/crypto.js';
import type { SecurityEvents } from '../security/events.js';
import type { OidcProviders } from './providers.js';
import { findPendingLink, insertPendingLink } from './queries.js';
import type { VerifiedIdentity } from './contract.js';
import type { SingleSignOn } from './sign-in.js';

interface SealedLink {
  provider: string;
  subject: string;
  email: string | null;
  name: string;
  next: string;
}

/**
 * Identities whose sign-in met an unverified account with credentials: they wait with the
 * claim-pending session (oidc_pending_links) and are linked once its holder has kept or reset the
 * account. Never before: linked at once, the identity would open the account next time without
 * the claim, and a squatter's password would stay.
 */
export class PendingIdentityLinks implements PendingClaimSignIns {
  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      secrets: SecretBox;
      sessions: SessionService;
      singleSignOn: SingleSignOn;
      securityEvents: SecurityEvents;
      providers: OidcProviders;
    },
  ) {}

  async remember(sessionId: string, userId: string, provider: string, identity: VerifiedIdentity, next: string): Promise<void> {
    const sealed: SealedLink = { provider, subject: identity.subject, email: identity.email, name: identity.name, next };
    await insertPendingLink(this.deps.db, {
      session_id: sessionId,
      user_id: userId,
      sealed: this.deps.secrets.encrypt(JSON.stringify(sealed), sessionId),
      created_at: this.deps.clock.now().toISOString(),
    });
  }

  async find(cookieValue: string): Promise<PendingClaimSignIn | undefined> {
    const pending = await this.deps.sessions.findPendingClaim(cookieValue);
    if (pending === undefined) return undefined;
    const row = await findPendingLink(this.deps.db, pending.session.id);
    if (row === undefined || row.user_id !== pending.user.id) return undefined;
    const link = JSON.parse(this.deps.secrets.decrypt(row.sealed, row.session_id)) as SealedLink;
    return {
      method: 'oidc',
      next: link.next,
      // The provider owns the second factor of its sign-ins.
      secondFactor: false,
      finish: async (user, origin) => {
        const identity: VerifiedIdentity = { subject: link.subject, email: link.email, emailVerified: true, name: link.name };
        const linked = await this.deps.singleSignOn.linkAfterClaim(user.id, link.provider, identity);
        if (linked === undefined) return;
        const name = this.deps.providers.find(link.provider)?.name ?? link.provider;
        await this.deps.securityEvents.record({ type: 'identity.linked', user, origin, method: 'oidc', details: { provider: link.provider, name } });
      },
    };
  }
}
