import { type Kysely, sql } from 'kysely';

/**
 * Instance administrators and disabled accounts. `instance_admin` (0 or 1) is granted and taken
 * only from the command line (users:promote, users:demote). `disabled_at` set: the account signs
 * in nowhere and none of its credentials is honoured until an administrator enables it. Both live
 * on the users row, which the change feed already announces (migration 008), so every app server
 * drops what it remembers of the user when either changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column instance_admin integer not null default 0`.execute(db);
  await sql`alter table users add column disabled_at text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users drop column disabled_at`.execute(db);
  await sql`alter table users drop column instance_admin`.execute(db);
}
