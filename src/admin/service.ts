import type { Kysely } from 'kysely';
import type { Cache } from '../cache/cache.js';
import { userTag } from '../cache/change-feed.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { USER_ERRORS } from '../users/errors.js';
import { normalizeEmail } from '../users/service.js';
import { ADMIN_ERRORS } from './errors.js';
import { type AdminUserRow, disableUser, enableUser, findAdminUser, lockEnabledAdministrators, searchUsers, setInstanceAdmin } from './queries.js';

export interface AdminServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  /** Told of every change to a users row this service commits, so no app server answers from what it held. */
  cache: Cache;
}

export interface AdminUserPageRows {
  users: AdminUserRow[];
  nextCursor: string | null;
}

const userNotFound = () => new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'No user with this id.');
const lastAdministrator = () =>
  new AppError(409, ADMIN_ERRORS.LAST_ADMINISTRATOR, 'This is the last enabled instance administrator: promote another one first (npm run cli -- users:promote --email E).');

/**
 * What an instance administrator does to accounts (the admin API) and what the operator does to
 * administrators (the CLI). The rules: no one disables themselves, and the last enabled
 * administrator can be neither disabled nor demoted, so the instance is never left without one
 * who can undo a mistake. Signed-in rights are checked by the routes; this holds the rules.
 */
export class AdminService {
  constructor(private readonly deps: AdminServiceDeps) {}

  async search(query: string, cursor: string | undefined, limit: number): Promise<AdminUserPageRows> {
    // One row more than asked says whether another page follows.
    const rows = await searchUsers(this.deps.db, { query: query.trim(), afterId: cursor, limit: limit + 1 });
    const users = rows.slice(0, limit);
    const last = users.at(-1);
    return { users, nextCursor: rows.length > limit && last !== undefined ? last.id : null };
  }

  async find(userId: string): Promise<AdminUserRow> {
    const row = await findAdminUser(this.deps.db, userId);
    if (row === undefined) throw userNotFound();
    return row;
  }

  /**
   * Disables the account: its sessions end, its JWTs and access tokens are refused, and it signs in
   * nowhere until enabled. Resolves the user and whether this call changed it (false: it was already
   * disabled).
   */
  async disable(actorId: string, userId: string): Promise<{ user: AdminUserRow; changed: boolean }> {
    if (actorId === userId) throw new AppError(409, ADMIN_ERRORS.CANNOT_DISABLE_SELF, 'You cannot disable your own account.');
    const now = this.deps.clock.now().toISOString();
    const changed = await this.deps.db.transaction().execute(async (trx) => {
      const administrators = await lockEnabledAdministrators(trx, this.deps.dialect);
      const target = await trx.selectFrom('users').select(['id', 'disabled_at']).where('id', '=', userId).executeTakeFirst();
      if (target === undefined) throw userNotFound();
      if (target.disabled_at !== null) return false;
      if (administrators.length === 1 && administrators[0] === userId) throw lastAdministrator();
      return disableUser(trx, userId, now);
    });
    this.#changed(userId);
    return { user: await this.find(userId), changed };
  }

  async enable(userId: string): Promise<{ user: AdminUserRow; changed: boolean }> {
    const changed = await enableUser(this.deps.db, userId, this.deps.clock.now().toISOString());
    this.#changed(userId);
    return { user: await this.find(userId), changed };
  }

  /** Makes the account with this address an instance administrator; resolves whether it was not one already. */
  async promote(email: string): Promise<{ userId: string; changed: boolean }> {
    const user = await this.#byEmail(email);
    const changed = await setInstanceAdmin(this.deps.db, user.id, true, this.deps.clock.now().toISOString());
    this.#changed(user.id);
    return { userId: user.id, changed };
  }

  /** Takes the administrator's rights; the last enabled administrator keeps them. */
  async demote(email: string): Promise<{ userId: string; changed: boolean }> {
    const user = await this.#byEmail(email);
    const now = this.deps.clock.now().toISOString();
    const changed = await this.deps.db.transaction().execute(async (trx) => {
      const administrators = await lockEnabledAdministrators(trx, this.deps.dialect);
      if (administrators.length === 1 && administrators[0] === user.id) throw lastAdministrator();
      return setInstanceAdmin(trx, user.id, false, now);
    });
    this.#changed(user.id);
    return { userId: user.id, changed };
  }

  async #byEmail(email: string): Promise<{ id: string }> {
    const user = await this.deps.db.selectFrom('users').select('id').where('email', '=', normalizeEmail(email)).executeTakeFirst();
    if (user === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, `No user with the e-mail address ${normalizeEmail(email)}.`);
    return user;
  }

  /** This process's own write: every principal held for the user depends on its row. */
  #changed(userId: string): void {
    this.deps.cache.invalidate([userTag(userId)]);
  }
}
