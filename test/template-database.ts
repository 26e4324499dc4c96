// A test's database starts as a copy of one migrated once: a copy costs a small part of migrating
// from nothing (docs/performance.md, "The test suite"). The migrations themselves still run, once
// per process on SQLite and once per schema on the PostgreSQL server, and their own tests migrate
// from nothing.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';

let sqliteTemplate: Promise<string> | undefined;

/** A SQLite database file at the latest migration, made once per process and removed at its exit. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'siteward-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'siteward.db');
    const database = openDatabase({ kind: 'sqlite', file });
    await migrate(database);
    // Closing checkpoints the WAL into the file and removes it: the file alone is the database.
    await database.close();
    return file;
  })();
  return sqliteTemplate;
}

/** Writes a migrated SQLite database at `file`, which must not exist yet. */
export async function copyMigratedSqlite(file: string): Promise<void> {
  copyFileSync(await sqliteTemplateFile(), file);
}

/**
 * What names the schema: the compiled migrations and the module that lists them. A changed
 * migration makes another template, so a server kept between runs never hands out a stale one.
 */
function schemaDigest(): string {
  const migrations = fileURLToPath(new URL('../src/db/migrations/', import.meta.url));
  const hash = createHash('sha256').update(readFileSync(fileURLToPath(new URL('../src/db/migrate.js', import.meta.url))));
  for (const file of readdirSync(migrations).filter((name) => name.endsWith('.js')).sort()) hash.update(file).update(readFileSync(path.join(migrations, file)));
  return hash.digest('hex').slice(0, 16);
}

// Any number outside the app's own advisory locks: it serialises the test processes making a template.
const TEMPLATE_LOCK = 7_340_611;

const postgresTemplates = new Map<string, Promise<{ name: string; strategy: string }>>();

/**
 * The name of a migrated template database on the server of `adminUrl`, made by the first test
 * process to ask; the others wait on an advisory lock, then find it. It is made under a name of
 * its own and renamed when complete, with nobody connected, which CREATE DATABASE … TEMPLATE needs.
 */
function postgresTemplate(adminUrl: string): Promise<{ name: string; strategy: string }> {
  let found = postgresTemplates.get(adminUrl);
  if (found === undefined) {
    found = (async () => {
      const name = `siteward_template_${schemaDigest()}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        // FILE_COPY copies the template's files at once; PostgreSQL 15's default, WAL_LOG, writes
        // every page to the WAL and was slower (docs/performance.md). Older servers know only the copy.
        const version = await admin.query<{ server_version_num: string }>('show server_version_num');
        const strategy = Number(version.rows[0]?.server_version_num) >= 150_000 ? ' strategy file_copy' : '';
        await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
        try {
          const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
          if (exists.rowCount === 0) {
            const building = `${name}_${randomBytes(4).toString('hex')}`;
            await admin.query(`create database ${building}`);
            const url = new URL(adminUrl);
            url.pathname = `/${building}`;
            const database = openDatabase({ kind: 'postgres', url: url.href, poolSize: 1 });
            await migrate(database);
            await database.close();
            await admin.query(`alter database ${building} rename to ${name}`);
          }
        } finally {
          await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
        }
        return { name, strategy };
      } finally {
        await admin.end();
      }
    })();
    // A failure is not kept: the next test tries again, and says why.
    found.catch(() => postgresTemplates.delete(adminUrl));
    postgresTemplates.set(adminUrl, found);
  }
  return found;
}

/** A PostgreSQL database of its own for one test, at the latest migration; dropped by `drop`. */
export async function createMigratedPostgresDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = await postgresTemplate(adminUrl);
  return createDatabase(adminUrl, ` template ${template.name}${template.strategy}`);
}

/**
 * An empty PostgreSQL database of its own for one test, dropped by `drop`: for tests that migrate
 * it themselves.
 */
export function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  return createDatabase(adminUrl, '');
}

async function createDatabase(adminUrl: string, from: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `siteward_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${from}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => dropPostgresDatabase(adminUrl, name) };
}

export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}
