import type { Kysely } from 'kysely';

/**
 * The trash: a deleted site keeps its row, versions and checks, marked with when and by whom, until
 * retention purges it (TRASH_RETENTION_DAYS). Every member-facing query reads live rows only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('deleted_at', 'text').execute();
  // JSON {id, email, name} of who deleted it, as they were then; null for the command line.
  await db.schema.alterTable('sites').addColumn('deleted_by', 'text').execute();
  // The trash list and the purge read only deleted rows; the index holds nothing else.
  await db.schema
    .createIndex('sites_trash')
    .on('sites')
    .columns(['workspace_id', 'deleted_at'])
    .where((eb) => eb('deleted_at', 'is not', null))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sites_trash').execute();
  await db.schema.alterTable('sites').dropColumn('deleted_by').execute();
  await db.schema.alterTable('sites').dropColumn('deleted_at').execute();
}
