import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { type SecretBox, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { consumeAuthorizationRequest, insertAuthorizationRequest } from './queries.js';
import type { AuthorizationChecks } from './contract.js';

/** Long enough to sign in at a provider (a password, its own second factor); short enough to be useless later. */
export const AUTHORIZATION_REQUEST_LIFETIME_MS = 10 * 60 * 1000;

/** What the callback gets back from a request the same browser started. */
export interface StartedRequest {
  checks: AuthorizationChecks;
  /** Where to go once signed in: a path of this site (src/lib/next-path.ts). */
  next: string;
  /** The account to link the identity to; null for a sign-in. */
  linkUserId: string | null;
}

interface SealedFields {
  nonce: string;
  code_verifier: string;
  next: string;
}

/**
 * The authorization requests under way. Each click on a provider's button makes one row: the state
 * (stored as its hash) names it in the callback, and it is bound to the browser by the hash of a
 * random value in that browser's cookie, so a callback carried to another browser (login CSRF, a
 * code injected into someone else's session) finds nothing. The nonce and PKCE verifier are kept
 * encrypted: a copy of the database does not complete anyone's sign-in. Rows live in the database,
 * not in memory, so the callback may reach another app server than the start did.
 */
export class AuthorizationRequests {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
  ) {}

  /** Keeps a new request of the browser, with the checks that go into the provider's URL. */
  async begin(request: { provider: string; browserValue: string; next: string; linkUserId: string | null; checks: AuthorizationChecks }): Promise<void> {
    const { checks } = request;
    const now = this.clock.now();
    const id = newId(now);
    const sealed: SealedFields = { nonce: checks.nonce, code_verifier: checks.codeVerifier, next: request.next };
    await insertAuthorizationRequest(this.db, {
      id,
      provider: request.provider,
      state_hash: sha256(checks.state),
      browser_hash: sha256(request.browserValue),
      link_user_id: request.linkUserId,
      sealed: this.secrets.encrypt(JSON.stringify(sealed), id),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + AUTHORIZATION_REQUEST_LIFETIME_MS).toISOString(),
    });
  }

  /**
   * Takes the request named by the callback's state, once, if this browser started it for this
   * provider and it has not expired; undefined otherwise (forged, replayed, late or elsewhere).
   */
  async finish(request: { provider: string; state: string; browserValue: string }): Promise<StartedRequest | undefined> {
    const row = await consumeAuthorizationRequest(this.db, {
      provider: request.provider,
      stateHash: sha256(request.state),
      browserHash: sha256(request.browserValue),
      now: this.clock.now().toISOString(),
    });
    if (row === undefined) return undefined;
    const sealed = JSON.parse(this.secrets.decrypt(row.sealed, row.id)) as SealedFields;
    return { checks: { state: request.state, nonce: sealed.nonce, codeVerifier: sealed.code_verifier }, next: sealed.next, linkUserId: row.link_user_id };
  }
}
