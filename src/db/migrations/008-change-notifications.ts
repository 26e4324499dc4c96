import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL only: every committed change to a table whose rows some app server may cache is
 * announced on the `siteward_changes` channel (src/cache/postgres-change-feed.ts), naming the rows
 * by `table.column:value` tags. The trigger runs inside the writing transaction, so a rolled-back
 * write announces nothing, and no write path can forget to announce. SQLite needs none: its
 * `data_version` tells every other connection that something changed.
 *
 * A table joins the feed with one more `announceChanges` line in a later migration, naming the
 * columns that entries depend on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // Old and new values both: an update that moves a row (a site to another owner) changes both.
  await sql`
    create function siteward_announce_change() returns trigger language plpgsql as $$
    declare
      old_row jsonb := case when tg_op <> 'INSERT' then to_jsonb(old) end;
      new_row jsonb := case when tg_op <> 'DELETE' then to_jsonb(new) end;
      tags text[] := '{}';
      col text;
    begin
      foreach col in array tg_argv loop
        if old_row ->> col is not null then
          tags := tags || (tg_table_name || '.' || col || ':' || (old_row ->> col));
        end if;
        if new_row ->> col is not null and new_row ->> col is distinct from old_row ->> col then
          tags := tags || (tg_table_name || '.' || col || ':' || (new_row ->> col));
        end if;
      end loop;
      perform pg_notify('siteward_changes', array_to_string(tags, ' '));
      return null;
    end
    $$`.execute(db);
  await announceChanges(db, 'users', ['id']);
  // last_used_at is written once a minute per token in use and is no cached fact.
  await announceChanges(db, 'access_tokens', ['id', 'user_id'], ['last_used_at']);
  await announceChanges(db, 'sites', ['id', 'user_id']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function siteward_announce_change() cascade`.execute(db);
}

/**
 * Announces every insert, update and delete of `table`, naming the rows by `columns`; an update
 * that changes nothing but `ignoredColumns` is not announced. Later migrations call it for the
 * tables they add to the feed.
 */
export async function announceChanges(db: Kysely<unknown>, table: string, columns: readonly string[], ignoredColumns: readonly string[] = []): Promise<void> {
  const name = sql.id(table);
  const args = sql.join(columns.map((column) => sql.lit(column)));
  if (ignoredColumns.length === 0) {
    await sql`create trigger ${sql.id(`${table}_announce_change`)} after insert or update or delete on ${name} for each row execute function siteward_announce_change(${args})`.execute(db);
    return;
  }
  // A WHEN clause may not name OLD for an insert or NEW for a delete: updates get their own trigger.
  const ignored = sql.join(ignoredColumns.map((column) => sql.lit(column)), sql` - `);
  await sql`create trigger ${sql.id(`${table}_announce_write`)} after insert or delete on ${name} for each row execute function siteward_announce_change(${args})`.execute(db);
  await sql`create trigger ${sql.id(`${table}_announce_update`)} after update on ${name} for each row
    when ((to_jsonb(old) - ${ignored}) is distinct from (to_jsonb(new) - ${ignored}))
    execute function siteward_announce_change(${args})`.execute(db);
}
