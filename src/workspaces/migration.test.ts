import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createPostgresDatabase, STRONG_PASSWORD, TEST_PASSWORD_HASHING } from '../../test/helpers.js';
import { PasswordHasher } from '../passwords/passwords.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connect.js';
import { migrateTo, migrateToLatest } from '../db/migrate.js';
import { SITE_ERRORS } from '../sites/errors.js';

const at = (minute: number) => `2025-06-01T08:${String(minute).padStart(2, '0')}:00.000Z`;

/** A site row as the schema stood at migration 010: owned by a user, no workspace. */
function oldSite(id: string, userId: string, name: string, minute: number): Record<string, unknown> {
  return {
    id,
    user_id: userId,
    name,
    color: '#abcdef',
    ai_settings: `ai of ${name}`,
    email_settings: '',
    widget: '',
    portal: '',
    branding: '',
    public_theme: '',
    knowledge_sources: '',
    partner_settings: '{}',
    partner_access_token: null,
    partner_token_origins: null,
    version: 3,
    created_at: at(minute),
    updated_at: at(minute),
  };
}

test("migration 011 gives every existing user a personal workspace holding their sites, and they keep working", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-workspaces-migration-'));
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const postgres = adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
  try {
    const config = loadConfig({ DATA_DIR: dataDir, ...(postgres === undefined ? {} : { DATABASE_URL: postgres.url }) });
    const old = openDatabase(config.database);
    const passwordHash = await new PasswordHasher(TEST_PASSWORD_HASHING).hash(STRONG_PASSWORD);
    try {
      await migrateTo(old.db, '010-partner-checks');
      const db = old.db;
      const users = [
        { id: 'user-ada', email: 'ada@example.com' },
        { id: 'user-bob', email: 'bob@example.com' },
        { id: 'user-cyd', email: 'cyd@example.com' },
      ];
      for (const [index, user] of users.entries()) {
        await sql`insert into users (id, email, name, password_hash, jwt_generation, email_verified_at, created_at, updated_at)
          values (${user.id}, ${user.email}, '', ${passwordHash}, 0, ${at(index)}, ${at(index)}, ${at(index)})`.execute(db);
      }
      // Rows written as the old schema had them, with explicit columns: no workspace_id yet. Their
      // ids are UUIDs, as every id Siteward made: the API refuses any other shape.
      for (const site of [oldSite('01970000-0000-7000-8000-00000000ada1', 'user-ada', 'Ada one', 10), oldSite('01970000-0000-7000-8000-00000000ada2', 'user-ada', 'Ada two', 11), oldSite('01970000-0000-7000-8000-00000000bb01', 'user-bob', 'Bob one', 12)]) {
        const columns = Object.keys(site);
        await sql`insert into sites (${sql.join(columns.map((column) => sql.id(column)))}) values (${sql.join(Object.values(site))})`.execute(db);
      }
      await sql`insert into partner_checks (site_id, seq, checked_at, status, category, message, duration_ms, tools)
        values ('01970000-0000-7000-8000-00000000ada1', 1, ${at(20)}, 'ok', 'ok', 'reachable', 12, '[]')`.execute(db);

      await migrateToLatest(db);

      const workspaces = await db.selectFrom('workspaces').selectAll().orderBy('personal_user_id').execute();
      assert.deepEqual(
        workspaces.map((workspace) => [workspace.personal_user_id, workspace.name, workspace.created_at]),
        users.map((user, index) => [user.id, 'Personal', at(index)]),
      );
      for (const workspace of workspaces) assert.match(workspace.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const members = await db.selectFrom('workspace_members').selectAll().orderBy('user_id').execute();
      assert.deepEqual(
        members.map((member) => [member.user_id, member.role, member.workspace_id]),
        users.map((user) => [user.id, 'owner', workspaces.find((workspace) => workspace.personal_user_id === user.id)?.id]),
      );
      const personalOf = (userId: string) => workspaces.find((workspace) => workspace.personal_user_id === userId)?.id;
      const sites = await db.selectFrom('sites').select(['id', 'workspace_id', 'user_id', 'name', 'ai_settings', 'version', 'created_at']).orderBy('id').execute();
      assert.deepEqual(sites, [
        { id: '01970000-0000-7000-8000-00000000ada1', workspace_id: personalOf('user-ada'), user_id: 'user-ada', name: 'Ada one', ai_settings: 'ai of Ada one', version: 3, created_at: at(10) },
        { id: '01970000-0000-7000-8000-00000000ada2', workspace_id: personalOf('user-ada'), user_id: 'user-ada', name: 'Ada two', ai_settings: 'ai of Ada two', version: 3, created_at: at(11) },
        { id: '01970000-0000-7000-8000-00000000bb01', workspace_id: personalOf('user-bob'), user_id: 'user-bob', name: 'Bob one', ai_settings: 'ai of Bob one', version: 3, created_at: at(12) },
      ]);
      // The check history was not lost with the rebuilt table.
      assert.equal((await db.selectFrom('partner_checks').select('seq').where('site_id', '=', '01970000-0000-7000-8000-00000000ada1').execute()).length, 1);
      // A site without a workspace can no longer be written.
      await assert.rejects(sql`insert into sites (${sql.join(Object.keys(oldSite('orphan', 'user-ada', 'Orphan', 30)).map((column) => sql.id(column)))})
        values (${sql.join(Object.values(oldSite('orphan', 'user-ada', 'Orphan', 30)))})`.execute(db));
      // A deleted account leaves the sites it created in place, without a creator.
      await sql`insert into workspace_members (workspace_id, user_id, role, joined_at) values (${personalOf('user-ada')}, 'user-cyd', 'owner', ${at(40)})`.execute(db);
      await db.updateTable('sites').set({ user_id: 'user-cyd' }).where('id', '=', '01970000-0000-7000-8000-00000000ada2').execute();
      await db.deleteFrom('users').where('id', '=', 'user-cyd').execute();
      const kept = await db.selectFrom('sites').select(['user_id', 'workspace_id']).where('id', '=', '01970000-0000-7000-8000-00000000ada2').executeTakeFirstOrThrow();
      assert.deepEqual(kept, { user_id: null, workspace_id: personalOf('user-ada') });
    } finally {
      await old.close();
    }

    const t = await buildTestApp({ dataDir, ...(postgres === undefined ? {} : { databaseUrl: postgres.url }) });
    try {
      const login = async (email: string) => {
        const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: STRONG_PASSWORD } });
        assert.equal(response.statusCode, 200, response.body);
        return `Bearer ${response.json<{ token: string }>().token}`;
      };
      const ada = await login('ada@example.com');
      const bob = await login('bob@example.com');
      const adaSites = (await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: ada } })).json<{ sites: Array<{ id: string }> }>().sites;
      assert.deepEqual(adaSites.map((site) => site.id), ['01970000-0000-7000-8000-00000000ada1', '01970000-0000-7000-8000-00000000ada2']);
      const adaWorkspaces = (await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { authorization: ada } })).json().workspaces;
      assert.deepEqual(adaWorkspaces.map((workspace: { name: string; role: string; personal: boolean }) => [workspace.name, workspace.role, workspace.personal]), [['Personal', 'owner', true]]);
      const put = await t.app.inject({ method: 'PUT', url: '/api/v1/sites/01970000-0000-7000-8000-00000000ada1', headers: { authorization: ada, 'if-match': '"3"' }, payload: { name: 'Ada renamed' } });
      assert.equal(put.statusCode, 200, put.body);
      const checks = await t.app.inject({ method: 'GET', url: '/api/v1/sites/01970000-0000-7000-8000-00000000ada1/partner/checks', headers: { authorization: ada } });
      assert.equal(checks.json().checks.length, 1);
      const stolen = await t.app.inject({ method: 'GET', url: '/api/v1/sites/01970000-0000-7000-8000-00000000ada1', headers: { authorization: bob } });
      assert.equal(stolen.statusCode, 404);
      assert.equal(stolen.json().code, SITE_ERRORS.SITE_NOT_FOUND);
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/sites', headers: { authorization: bob }, payload: { name: 'After the move' } });
      assert.equal(created.statusCode, 201, created.body);
      const bobSites = (await t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: bob } })).json<{ sites: Array<{ name: string }> }>().sites;
      assert.deepEqual(bobSites.map((site) => site.name).sort(), ['After the move', 'Bob one']);
    } finally {
      await t.close();
    }
  } finally {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
