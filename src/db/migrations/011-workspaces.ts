import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { newId } from '../../lib/ids.js';
import { announceChanges } from './008-change-notifications.js';

/**
 * Workspaces (teams): every site belongs to a workspace, and people reach sites through their
 * membership and its role; an access token may be limited to one workspace. Each existing user gets a personal workspace, as owner, holding the
 * sites they owned, so nobody loses access to anything.
 *
 * `sites.user_id` stays as the site's creator, no longer an access rule: it becomes nullable and
 * is set to null when its account is deleted, so a team's site outlives whoever created it
 * (docs/decisions/accounts-workspaces.md).
 *
 * On PostgreSQL the new tables join the change feed (migration 008), and the sites' announcement
 * names `workspace_id` instead of `user_id`: cached lists now depend on workspaces.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    // Kysely's migrator runs each PostgreSQL migration in a transaction already.
    await migrate(db, 'postgres');
    return;
  }
  // SQLite cannot make a column NOT NULL or change a foreign key in place: the sites table is
  // rebuilt. Foreign keys are off while it is (dropping the old table must not cascade to
  // partner_checks), which SQLite allows only outside a transaction; the rest runs in one, so a
  // failure leaves the database as it was.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      await migrate(db, 'sqlite');
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`rows without their parent after rebuilding sites: ${JSON.stringify(broken.rows.slice(0, 3))}`);
      await sql`commit`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

async function migrate(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    // Whose personal workspace this is; null for a team's. One per user, made with the account.
    .addColumn('personal_user_id', 'text', (column) => column.unique().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('workspace_members')
    .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (column) => column.notNull().check(sql`role in ('owner', 'admin', 'editor', 'viewer')`))
    .addColumn('joined_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('workspace_members_pkey', ['workspace_id', 'user_id'])
    .execute();
  await db.schema.createIndex('workspace_members_user_id').on('workspace_members').columns(['user_id', 'workspace_id']).execute();

  await createPersonalWorkspaces(db);
  // An access token may be limited to one workspace (null: every workspace of its user); it goes
  // with that workspace, rather than reaching every other one.
  await sql`alter table access_tokens add column workspace_id text references workspaces(id) on delete cascade`.execute(db);

  if (dialect === 'postgres') {
    await sql`alter table sites add column workspace_id text references workspaces(id) on delete cascade`.execute(db);
    await sql`update sites set workspace_id = (select id from workspaces where personal_user_id = sites.user_id)`.execute(db);
    await sql`alter table sites alter column workspace_id set not null`.execute(db);
    await sql`alter table sites alter column user_id drop not null`.execute(db);
    await sql`alter table sites drop constraint sites_user_id_fkey`.execute(db);
    await sql`alter table sites add constraint sites_user_id_fkey foreign key (user_id) references users(id) on delete set null`.execute(db);
    await sql`drop index sites_user_id`.execute(db);
  } else {
    await rebuildSqliteSites(db);
  }
  await db.schema.createIndex('sites_workspace_id').on('sites').columns(['workspace_id', 'id']).execute();
  // For the foreign key's "set null" when an account goes; no query lists sites by creator.
  await db.schema.createIndex('sites_user_id').on('sites').column('user_id').execute();

  if (dialect === 'postgres') {
    await sql`drop trigger sites_announce_change on sites`.execute(db);
    await announceChanges(db, 'sites', ['id', 'workspace_id']);
    await announceChanges(db, 'workspaces', ['id']);
    await announceChanges(db, 'workspace_members', ['workspace_id', 'user_id']);
  }
}

/** Every user's personal workspace, with them as its owner, dated from their account. */
async function createPersonalWorkspaces(db: Kysely<unknown>): Promise<void> {
  const users = await sql<{ id: string; created_at: string }>`select id, created_at from users order by id`.execute(db);
  for (const user of users.rows) {
    const id = newId(new Date(user.created_at));
    await sql`insert into workspaces (id, name, personal_user_id, created_at, updated_at) values (${id}, 'Personal', ${user.id}, ${user.created_at}, ${user.created_at})`.execute(db);
    await sql`insert into workspace_members (workspace_id, user_id, role, joined_at) values (${id}, ${user.id}, 'owner', ${user.created_at})`.execute(db);
  }
}

/** The sites table as the schema now has it, filled from the old one in the same transaction. */
async function rebuildSqliteSites(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sites_new (
      id text primary key,
      workspace_id text not null references workspaces(id) on delete cascade,
      user_id text references users(id) on delete set null,
      name text not null,
      color text not null,
      ai_settings text not null,
      email_settings text not null,
      widget text not null,
      portal text not null,
      branding text not null,
      public_theme text not null,
      knowledge_sources text not null,
      partner_settings text not null,
      partner_access_token text,
      partner_token_origins text,
      version integer not null,
      created_at text not null,
      updated_at text not null
    )`.execute(db);
  await sql`
    insert into sites_new (id, workspace_id, user_id, name, color, ai_settings, email_settings, widget, portal, branding,
      public_theme, knowledge_sources, partner_settings, partner_access_token, partner_token_origins, version, created_at, updated_at)
    select s.id, w.id, s.user_id, s.name, s.color, s.ai_settings, s.email_settings, s.widget, s.portal, s.branding,
      s.public_theme, s.knowledge_sources, s.partner_settings, s.partner_access_token, s.partner_token_origins, s.version, s.created_at, s.updated_at
    from sites s join workspaces w on w.personal_user_id = s.user_id`.execute(db);
  await sql`drop table sites`.execute(db);
  await sql`alter table sites_new rename to sites`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Sites go back to their creators; a site whose creator is gone has no owner to go back to.
  await sql`delete from sites where user_id is null`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger sites_announce_change on sites`.execute(db);
    await announceChanges(db, 'sites', ['id', 'user_id']);
    await sql`alter table sites drop column workspace_id`.execute(db);
    await sql`alter table access_tokens drop column workspace_id`.execute(db);
    await sql`alter table sites alter column user_id set not null`.execute(db);
    await sql`alter table sites drop constraint sites_user_id_fkey`.execute(db);
    await sql`alter table sites add constraint sites_user_id_fkey foreign key (user_id) references users(id) on delete cascade`.execute(db);
    await sql`drop index sites_user_id`.execute(db);
    await sql`create index sites_user_id on sites (user_id, id)`.execute(db);
  } else {
    await sql`pragma foreign_keys = off`.execute(db);
    try {
      await sql`create table sites_old as select * from sites`.execute(db);
      await sql`drop table sites`.execute(db);
      await sql`
        create table sites (
          id text primary key,
          user_id text not null references users(id) on delete cascade,
          name text not null, color text not null, ai_settings text not null, email_settings text not null,
          widget text not null, portal text not null, branding text not null, public_theme text not null,
          knowledge_sources text not null, partner_settings text not null, partner_access_token text,
          version integer not null, created_at text not null, updated_at text not null, partner_token_origins text
        )`.execute(db);
      await sql`
        insert into sites select id, user_id, name, color, ai_settings, email_settings, widget, portal, branding, public_theme,
          knowledge_sources, partner_settings, partner_access_token, version, created_at, updated_at, partner_token_origins from sites_old`.execute(db);
      await sql`drop table sites_old`.execute(db);
      await sql`create index sites_user_id on sites (user_id, id)`.execute(db);
      await sql`create table access_tokens_old as select * from access_tokens`.execute(db);
      await sql`drop table access_tokens`.execute(db);
      await sql`
        create table access_tokens (
          id text primary key, user_id text not null references users(id) on delete cascade, name text not null,
          token_hash text not null unique, last_four text not null, scopes text not null, created_at text not null, last_used_at text
        )`.execute(db);
      await sql`insert into access_tokens select id, user_id, name, token_hash, last_four, scopes, created_at, last_used_at from access_tokens_old`.execute(db);
      await sql`drop table access_tokens_old`.execute(db);
      await sql`create index access_tokens_user_id on access_tokens (user_id, id)`.execute(db);
    } finally {
      await sql`pragma foreign_keys = on`.execute(db);
    }
  }
  await db.schema.dropTable('workspace_members').execute();
  await db.schema.dropTable('workspaces').execute();
}
