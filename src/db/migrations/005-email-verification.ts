import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_verified_at', 'text').execute();

  // Existing accounts count as verified only where the database proves their holder read the
  // mailbox: a redeemed sign-in link. A sign-up alone proves nothing (pre-account hijacking).
  await sql`
    update users set email_verified_at = (
      select min(one_time_tokens.used_at) from one_time_tokens
      where one_time_tokens.user_id = users.id and one_time_tokens.purpose = 'magic_link' and one_time_tokens.used_at is not null
    )
    where exists (
      select 1 from one_time_tokens
      where one_time_tokens.user_id = users.id and one_time_tokens.purpose = 'magic_link' and one_time_tokens.used_at is not null
    )
  `.execute(db);

  // 1 while a magic-link sign-in waits for the mailbox holder's choice about an unverified account.
  await db.schema
    .alterTable('sessions')
    .addColumn('claim_pending', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('claim_pending').execute();
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
}
