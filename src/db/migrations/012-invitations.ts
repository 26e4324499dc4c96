import { type Kysely, sql } from 'kysely';

/**
 * Invitations to a workspace: an address, the role it will join with, and the SHA-256 of the token
 * mailed to it (the token itself is only ever in the mail). Pending while accepted_at and
 * revoked_at are null and expires_at is ahead; accepting sets accepted_at in one conditional
 * UPDATE, so a token joins one person once. Rows go with their workspace; who invited or accepted
 * is kept as null once that account is gone, so the record outlives them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
    // Normalised (trimmed, lower-case), as users.email is: compared to the accepting account's.
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().check(sql`role in ('owner', 'admin', 'editor', 'viewer')`))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('invited_by', 'text', (column) => column.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('accepted_by', 'text', (column) => column.references('users.id').onDelete('set null'))
    .addColumn('revoked_at', 'text')
    .execute();
  // A workspace's list, and the earlier invitation an address's new one replaces.
  await db.schema.createIndex('invitations_workspace_id').on('invitations').columns(['workspace_id', 'email']).execute();
  // For the foreign keys' "set null" when an account goes.
  await db.schema.createIndex('invitations_invited_by').on('invitations').column('invited_by').execute();
  await db.schema.createIndex('invitations_accepted_by').on('invitations').column('accepted_by').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('invitations').execute();
}
