import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { announceChanges } from './008-change-notifications.js';

/**
 * A workspace may require two-factor authentication of its members (`require_two_factor`, 0 or 1).
 * Whether a member meets it depends on their TOTP and passkeys, which each app server keeps with
 * the member's principal: on PostgreSQL their changes are announced too (SQLite's data_version
 * tells every other connection of any change). Uses that change nothing about having a second
 * factor (the last TOTP step, a passkey's counter and last use) are not announced.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table workspaces add column require_two_factor integer not null default 0`.execute(db);
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await announceChanges(db, 'user_totp', ['user_id'], ['last_used_step']);
  await announceChanges(db, 'passkeys', ['user_id'], ['counter', 'last_used_at', 'backed_up']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger user_totp_announce_write on user_totp`.execute(db);
    await sql`drop trigger user_totp_announce_update on user_totp`.execute(db);
    await sql`drop trigger passkeys_announce_write on passkeys`.execute(db);
    await sql`drop trigger passkeys_announce_update on passkeys`.execute(db);
  }
  await sql`alter table workspaces drop column require_two_factor`.execute(db);
}
