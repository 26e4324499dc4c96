import { type Kysely, sql } from 'kysely';

/**
 * Review before a change goes live. A workspace may require review (`review_required`, 0 or 1) and
 * a number of approvals (1-5). A change request holds its proposal as JSON Pointer paths with the
 * value each had when it was opened (`changes`), so applying it later can tell which paths moved
 * on the site since. The preview token is looked up by its SHA-256 hash and kept encrypted for the members who read the request. A scheduled request is
 * claimed by one app server with a lease, as webhook deliveries are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table workspaces add column review_required integer not null default 0`.execute(db);
  await sql`alter table workspaces add column review_approvals integer not null default 1`.execute(db);

  await db.schema
    .createTable('change_requests')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('site_id', 'text', (column) => column.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('title', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('open', 'scheduled', 'applied', 'declined', 'closed', 'failed')`))
    // The author as named when they opened it; the id goes null if the account is deleted.
    .addColumn('author_id', 'text', (column) => column.references('users.id').onDelete('set null'))
    .addColumn('author_email', 'text', (column) => column.notNull())
    .addColumn('author_name', 'text', (column) => column.notNull())
    .addColumn('base_version', 'integer', (column) => column.notNull())
    // JSON array of {path, before, after}: before is the value at base_version.
    .addColumn('changes', 'text', (column) => column.notNull())
    .addColumn('scheduled_at', 'text')
    .addColumn('applied_version', 'integer')
    // Why a scheduled apply failed: JSON {code, conflicts?}; null otherwise.
    .addColumn('failure', 'text')
    // The public endpoint finds a preview by the token's hash; members who read the request see the
    // token itself, kept encrypted (AES-256-GCM, bound to the request's id).
    .addColumn('preview_token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('preview_token', 'text', (column) => column.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  // A site's requests and a workspace's queue, newest first.
  await db.schema.createIndex('change_requests_site').on('change_requests').columns(['site_id', 'id']).execute();
  await db.schema.createIndex('change_requests_workspace').on('change_requests').columns(['workspace_id', 'status', 'id']).execute();
  // What the scheduler looks at: only scheduled rows, by due time.
  await db.schema.createIndex('change_requests_due').on('change_requests').columns(['scheduled_at']).where(sql.ref('status'), '=', 'scheduled').execute();

  await db.schema
    .createTable('change_request_approvals')
    .addColumn('change_request_id', 'text', (column) => column.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('change_request_approvals_pkey', ['change_request_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('change_request_comments')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('change_request_id', 'text', (column) => column.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (column) => column.references('users.id').onDelete('set null'))
    .addColumn('user_email', 'text', (column) => column.notNull())
    .addColumn('user_name', 'text', (column) => column.notNull())
    .addColumn('body', 'text', (column) => column.notNull())
    .addColumn('at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('change_request_comments_request').on('change_request_comments').columns(['change_request_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('change_request_comments').execute();
  await db.schema.dropTable('change_request_approvals').execute();
  await db.schema.dropTable('change_requests').execute();
  await sql`alter table workspaces drop column review_approvals`.execute(db);
  await sql`alter table workspaces drop column review_required`.execute(db);
}
