import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they describe the schema as it was then, not as it is now.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('password_hash', 'text', (column) => column.notNull())
    .addColumn('jwt_generation', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('access_tokens')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('last_four', 'text', (column) => column.notNull())
    .addColumn('scopes', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('access_tokens_user_id').on('access_tokens').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('color', 'text', (column) => column.notNull())
    .addColumn('ai_settings', 'text', (column) => column.notNull())
    .addColumn('email_settings', 'text', (column) => column.notNull())
    .addColumn('widget', 'text', (column) => column.notNull())
    .addColumn('portal', 'text', (column) => column.notNull())
    .addColumn('branding', 'text', (column) => column.notNull())
    .addColumn('public_theme', 'text', (column) => column.notNull())
    .addColumn('knowledge_sources', 'text', (column) => column.notNull())
    .addColumn('partner_settings', 'text', (column) => column.notNull())
    .addColumn('partner_access_token', 'text')
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('sites_user_id').on('sites').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('window_start', 'bigint', (column) => column.notNull())
    .addColumn('count', 'integer', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rate_limits', 'sites', 'access_tokens', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
