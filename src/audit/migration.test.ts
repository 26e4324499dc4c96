import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { createPostgresDatabase } from '../../test/helpers.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connect.js';
import { migrateTo, migrateToLatest } from '../db/migrate.js';
import { newId } from '../lib/ids.js';
import { pruneAuditEvents } from './queries.js';

test('migration 016 keys the audit log by workspace and keeps every event; retention and a workspace deletion still reach them', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-audit-migration-'));
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const postgres = adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
  try {
    const config = loadConfig({ DATA_DIR: dataDir, ...(postgres === undefined ? {} : { DATABASE_URL: postgres.url }) });
    const database = openDatabase(config.database);
    const db = database.db;
    try {
      await migrateTo(db, '015-audit-log');
      const workspaces = ['workspace-a', 'workspace-b'];
      for (const id of workspaces) {
        await sql`insert into workspaces (id, name, personal_user_id, created_at, updated_at) values (${id}, ${id}, null, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`.execute(db);
      }
      // Two years of events, one a month, alternating workspaces.
      const events = Array.from({ length: 24 }, (_, month) => {
        const at = new Date(Date.UTC(2024, month, 1));
        return { id: newId(at), workspace_id: workspaces[month % 2] ?? '', at: at.toISOString(), action: 'site.updated' };
      });
      for (const event of events) {
        await sql`insert into audit_events (id, workspace_id, at, action, via_type, target_type, target_id, target_name, details)
          values (${event.id}, ${event.workspace_id}, ${event.at}, ${event.action}, 'cli', 'site', 'site-1', 'Site', '{}')`.execute(db);
      }

      await migrateToLatest(db);

      const kept = await db.selectFrom('audit_events').select(['id', 'workspace_id', 'at', 'action']).orderBy('id').execute();
      assert.deepEqual(kept, events);
      // The same id twice in one workspace is still refused: the key is (workspace, id).
      const first = events[0];
      assert.ok(first !== undefined);
      await assert.rejects(
        sql`insert into audit_events (id, workspace_id, at, action, via_type, target_type, target_id, target_name, details)
          values (${first.id}, ${first.workspace_id}, ${first.at}, 'site.updated', 'cli', 'site', 'site-1', 'Site', '{}')`.execute(db),
      );

      // Retention by id: the first year goes, in both workspaces.
      await pruneAuditEvents(db, new Date(Date.UTC(2025, 0, 1)));
      assert.deepEqual(
        (await db.selectFrom('audit_events').select('at').orderBy('id').execute()).map((row) => row.at),
        events.slice(12).map((event) => event.at),
      );
      await db.deleteFrom('workspaces').where('id', '=', 'workspace-a').execute();
      assert.deepEqual(
        (await db.selectFrom('audit_events').select('workspace_id').distinct().execute()).map((row) => row.workspace_id),
        ['workspace-b'],
      );
    } finally {
      await database.close();
    }
  } finally {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
