import type { Kysely } from 'kysely';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import { NO_PASSWORD } from '../passwords/passwords.js';
import { OIDC_ERRORS } from './errors.js';
import { identityToJson } from './presenter.js';
import { countOtherWaysIn, deleteIdentity, type IdentityRow, listIdentities, lockUser } from './queries.js';
import type { IdentityJson } from './schema.js';

/**
 * The identities linked to an account, and unlinking them. An identity is not unlinked when it is
 * the account's last way in: no password, no passkey, no other identity. A sign-in link by e-mail
 * does not count as one (docs/decisions/auth-single-sign-on.md): it is the way back in for a person who forgot
 * everything else, not a sign-in method anyone chose, and an account must keep one of those.
 */
export class IdentityService {
  constructor(private readonly deps: { db: Kysely<Database>; dialect: DialectName }) {}

  async list(userId: string): Promise<IdentityJson[]> {
    return (await listIdentities(this.deps.db, userId)).map(identityToJson);
  }

  /** Unlinks the user's identity at the provider; the identity it was. */
  async unlink(userId: string, provider: string): Promise<IdentityRow> {
    return this.deps.db.transaction().execute(async (trx) => {
      // The user's row locked first: two unlinks of an account's last two identities run one after
      // the other, so the second sees the first's and refuses.
      const user = await lockUser(trx, this.deps.dialect, userId);
      const others = await countOtherWaysIn(trx, userId, provider);
      const removed = await deleteIdentity(trx, userId, provider);
      if (user === undefined || removed === undefined) throw new AppError(404, OIDC_ERRORS.IDENTITY_NOT_FOUND, 'No identity at this provider is linked to your account.');
      if (user.password_hash === NO_PASSWORD && others.passkeys === 0 && others.identities === 0) {
        throw new AppError(409, OIDC_ERRORS.LAST_SIGN_IN_METHOD, 'This is the last way to sign in to your account: set a password or add a passkey first.');
      }
      return removed;
    });
  }
}
