import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    // Credential ids are chosen by authenticators; unique across all users, so one credential can
    // never sign in to two accounts.
    .addColumn('credential_id', 'text', (column) => column.notNull().unique())
    .addColumn('public_key', 'text', (column) => column.notNull())
    // A 32-bit unsigned sign counter: past PostgreSQL's integer, hence bigint.
    .addColumn('counter', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('transports', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('device_type', 'text', (column) => column.notNull())
    .addColumn('backed_up', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_user_id').on('passkeys').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('challenge_hash', 'text', (column) => column.notNull().unique())
    .addColumn('ceremony', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('webauthn_challenges_expires_at').on('webauthn_challenges').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webauthn_challenges').execute();
  await db.schema.dropTable('passkeys').execute();
}
