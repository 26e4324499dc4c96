import type { Kysely } from 'kysely';
import type { SessionService } from '../auth/sessions.js';
import type { Cache } from '../cache/cache.js';
import { membershipsTag, workspaceSitesTag } from '../cache/change-feed.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { countOwners, deleteWorkspace, findRole, listMemberIds, listWorkspaceIdsOf, lockWorkspace } from '../memberships/queries.js';
import { USER_ERRORS } from '../users/errors.js';
import { deleteUser } from '../users/queries.js';
import { revokeEveryPendingSentBy } from '../workspaces/invitation-queries.js';
import { ACCOUNT_ERRORS } from './errors.js';

export interface AccountDeletionDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told once the account is gone, so this process stops honouring its JWTs and tokens at once. */
  sessions: SessionService;
  cache: Cache;
}

const ownershipTransferRequired = (workspaces: Array<{ id: string; name: string }>) =>
  new AppError(
    409,
    ACCOUNT_ERRORS.OWNERSHIP_TRANSFER_REQUIRED,
    `You are the only owner of ${workspaces.map((workspace) => `"${workspace.name}"`).join(', ')}, which other members use: make one of them an owner (or remove them) first, then delete your account.`,
    { extensions: { workspaces } },
  );

const accountGone = () => new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');

/**
 * Deleting one's own account. In one transaction: the personal workspace and every workspace the
 * person is the only member of go, with their sites; then the user row, whose credentials and
 * memberships go with it by cascade. Sites of workspaces shared with others stay (their creator
 * becomes null). A workspace whose only owner is this person while others are members would be
 * left without an owner: the whole deletion is refused until ownership is handed over.
 */
export class AccountDeletionService {
  constructor(private readonly deps: AccountDeletionDeps) {}

  async delete(userId: string): Promise<void> {
    // Every member of a deleted workspace loses it: their principals and site lists are out of date.
    const touched: string[] = [membershipsTag(userId)];
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        const blocking: Array<{ id: string; name: string }> = [];
        const doomed: string[] = [];
        // Locked one by one in id order, each before anything else of it is read, in the lock order
        // every member change follows (workspace, membership, site): a concurrent role change or
        // invitation either ran before (its result is counted here) or waits and then finds the
        // workspace gone or its owners counted without this person.
        for (const workspaceId of await listWorkspaceIdsOf(trx, userId)) {
          const workspace = await lockWorkspace(trx, this.deps.dialect, workspaceId);
          if (workspace === undefined) continue;
          const role = await findRole(trx, workspaceId, userId);
          if (role === undefined) continue;
          const members = await listMemberIds(trx, workspaceId);
          // The personal workspace goes with its account even when others were let in: nobody else
          // can hold it, and DESIGN promises its sites go.
          if (workspace.personal_user_id === userId || members.length === 1) {
            doomed.push(workspaceId);
            touched.push(workspaceSitesTag(workspaceId), ...members.map(membershipsTag));
          } else if (role === 'owner' && (await countOwners(trx, workspaceId)) === 1) {
            blocking.push({ id: workspace.id, name: workspace.name });
          }
        }
        if (blocking.length > 0) throw ownershipTransferRequired(blocking);
        for (const workspaceId of doomed) await deleteWorkspace(trx, workspaceId);
        // Invitations it sent to the workspaces that stay would outlive the sender's right to send them.
        await revokeEveryPendingSentBy(trx, userId, this.deps.clock.now().toISOString());
        // A parallel deletion that committed first leaves nothing to delete: the account is gone.
        if (!(await deleteUser(trx, userId))) throw accountGone();
      });
    } finally {
      // Reported whether or not it committed: a commit whose answer was lost still changed the rows.
      this.deps.cache.invalidate(touched);
      this.deps.sessions.credentialsEnded(userId);
    }
  }
}
