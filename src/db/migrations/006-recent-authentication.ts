import { type Kysely, sql } from 'kysely';

/**
 * Sessions remember when their person last proved who they are (sign-in or re-authentication), so
 * changes that could lock the owner out can ask for a recent proof. A session from before this
 * migration was made by a sign-in at its creation, so that is its time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The default only lets the column be added to existing rows (SQLite cannot add a NOT NULL column
  // without one); they are set just below, and every new row names its time.
  await db.schema
    .alterTable('sessions')
    .addColumn('authenticated_at', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  await sql`update sessions set authenticated_at = created_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('authenticated_at').execute();
}
