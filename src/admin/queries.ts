import { type Kysely, type SqlBool, sql } from 'kysely';
import { type DialectName, forUpdate } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { voidPendingLinks } from '../auth/queries.js';

/** A user as the admin list shows it: the row's public columns and the last sign-in from the security history. */
export interface AdminUserRow {
  id: string;
  email: string;
  name: string;
  email_verified_at: string | null;
  created_at: string;
  disabled_at: string | null;
  instance_admin: number;
  last_sign_in_at: string | null;
}

/** A search text as a LIKE pattern that finds it anywhere: its own `%`, `_` and `\\` match themselves. */
function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

function adminUsers(db: Kysely<Database>) {
  return db
    .selectFrom('users')
    .select(['users.id', 'users.email', 'users.name', 'users.email_verified_at', 'users.created_at', 'users.disabled_at', 'users.instance_admin'])
    .select((eb) =>
      eb
        .selectFrom('security_events')
        .select((inner) => inner.fn.max('security_events.at').as('at'))
        .whereRef('security_events.user_id', '=', 'users.id')
        .where('security_events.type', '=', 'sign_in.succeeded')
        .as('last_sign_in_at'),
    );
}

/**
 * Users whose address or name contains `query` (any case), oldest account first (ids are UUIDv7),
 * after the cursor's id. The last sign-in is read from the security history's index by user.
 */
export function searchUsers(db: Kysely<Database>, options: { query: string; afterId: string | undefined; limit: number }): Promise<AdminUserRow[]> {
  let select = adminUsers(db);
  if (options.query !== '') {
    const pattern = containsPattern(options.query);
    select = select.where(sql<SqlBool>`(lower(users.email) like lower(${pattern}) escape '\\' or lower(users.name) like lower(${pattern}) escape '\\')`);
  }
  if (options.afterId !== undefined) select = select.where('users.id', '>', options.afterId);
  return select.orderBy('users.id').limit(options.limit).execute();
}

export function findAdminUser(db: Kysely<Database>, id: string): Promise<AdminUserRow | undefined> {
  return adminUsers(db).where('users.id', '=', id).executeTakeFirst();
}

/**
 * The enabled administrators, locked until the transaction ends (PostgreSQL; SQLite serialises
 * writers): two administrators disabling or demoting each other at once are taken one after the
 * other, and the second sees the first's change, so the last enabled administrator always stays.
 */
export async function lockEnabledAdministrators(trx: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  const rows = await forUpdate(dialect, trx.selectFrom('users').select('id').where('instance_admin', '=', 1).where('disabled_at', 'is', null)).execute();
  return rows.map((row) => row.id);
}

/**
 * Disables the account and ends what it holds: its sessions and unused sign-in links go, and the
 * JWT generation moves on, so every JWT issued so far is refused. Its access tokens stay, refused
 * while the account is disabled. Resolves false when the user does not exist.
 */
export async function disableUser(trx: Kysely<Database>, userId: string, now: string): Promise<boolean> {
  const result = await trx
    .updateTable('users')
    .set((eb) => ({ disabled_at: now, jwt_generation: eb('jwt_generation', '+', 1), updated_at: now }))
    .where('id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await voidPendingLinks(trx, userId);
  return true;
}

export async function enableUser(db: Kysely<Database>, userId: string, now: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ disabled_at: null, updated_at: now }).where('id', '=', userId).where('disabled_at', 'is not', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sets or clears the administrator flag; resolves whether the row changed. */
export async function setInstanceAdmin(db: Kysely<Database>, userId: string, admin: boolean, now: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ instance_admin: admin ? 1 : 0, updated_at: now })
    .where('id', '=', userId)
    .where('instance_admin', '=', admin ? 0 : 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
