import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/**
 * The audit log keyed by (workspace, id): every write to it is an insert in the transaction of a
 * change, most often a site's PUT, so it keeps one B-tree (SQLite: WITHOUT ROWID) instead of the
 * table, its id index and four secondary indexes. Each of those was a page rewritten per PUT.
 * Reads are by workspace, newest first, which the key serves; the action and actor filters walk
 * that range (admins' reads, bounded by retention); retention deletes by id, which is time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of ['audit_events_workspace', 'audit_events_workspace_action', 'audit_events_workspace_actor', 'audit_events_at']) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table audit_events drop constraint audit_events_pkey`.execute(db);
    await sql`alter table audit_events add constraint audit_events_pkey primary key (workspace_id, id)`.execute(db);
    return;
  }
  await rebuildSqliteTable(db, sql`primary key (workspace_id, id)) without rowid`);
}

const COLUMNS = sql.raw('id, workspace_id, at, action, actor_id, actor_email, actor_name, via_type, via_token_id, via_token_name, ip, user_agent, target_type, target_id, target_name, details');

/** SQLite changes a primary key only by rebuilding the table; `key` ends its definition. */
async function rebuildSqliteTable(db: Kysely<unknown>, key: RawBuilder<unknown>): Promise<void> {
  await sql`create table audit_events_rebuilt (
    id text not null,
    workspace_id text not null references workspaces (id) on delete cascade,
    at text not null,
    action text not null,
    actor_id text,
    actor_email text,
    actor_name text,
    via_type text not null check (via_type in ('session', 'jwt', 'access_token', 'cli', 'system')),
    via_token_id text,
    via_token_name text,
    ip text,
    user_agent text,
    target_type text not null,
    target_id text not null,
    target_name text not null,
    details text not null,
    ${key}`.execute(db);
  await sql`insert into audit_events_rebuilt (${COLUMNS}) select ${COLUMNS} from audit_events`.execute(db);
  await sql`drop table audit_events`.execute(db);
  await sql`alter table audit_events_rebuilt rename to audit_events`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table audit_events drop constraint audit_events_pkey`.execute(db);
    await sql`alter table audit_events add constraint audit_events_pkey primary key (id)`.execute(db);
  } else {
    await rebuildSqliteTable(db, sql`primary key (id))`);
  }
  await db.schema.createIndex('audit_events_workspace').on('audit_events').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('audit_events_workspace_action').on('audit_events').columns(['workspace_id', 'action', 'id']).execute();
  await db.schema.createIndex('audit_events_workspace_actor').on('audit_events').columns(['workspace_id', 'actor_id', 'id']).execute();
  await db.schema.createIndex('audit_events_at').on('audit_events').column('at').execute();
}
