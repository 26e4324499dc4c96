import type { Kysely } from 'kysely';

/**
 * A change of an account's address waits, as a one-time token mailed to the new address, until
 * that address's holder confirms it: the address lives beside the token, not in users, so it
 * cannot sign in or be shown as the account's before then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('one_time_tokens').addColumn('new_email', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('one_time_tokens').dropColumn('new_email').execute();
}
