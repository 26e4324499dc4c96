import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { OWNER_ONLY, ownerOnlySqliteFile } from '../db/owner-only-files.js';

/**
 * Backups of the SQLite database, and the lock that tells whether a server uses it.
 *
 * Every app server holds a shared lock on `<database>-running-lock` for as long as it runs (an
 * open read transaction on that small SQLite file: the kernel's file locks, released when the
 * process ends however it ends, so a crash leaves no stale marker). Several servers share it; a
 * restore takes it exclusively, so it is refused while any server runs, and no server starts
 * while a restore runs.
 */

export class BackupError extends Error {}

/** Pages copied per step: all of a database of any likely size, so the copy is one read transaction. */
const PAGES_PER_STEP = 1 << 30;

function runningLockFile(databaseFile: string): string {
  return `${databaseFile}-running-lock`;
}

function openLock(databaseFile: string): SQLite.Database {
  ownerOnlySqliteFile(runningLockFile(databaseFile));
  const lock = new SQLite(runningLockFile(databaseFile));
  // Creating the table is a write: servers starting together wait for one another here.
  lock.pragma('busy_timeout = 5000');
  lock.exec('create table if not exists holders (id integer)');
  lock.pragma('busy_timeout = 0');
  return lock;
}

/**
 * Taken by a server at start: the shared lock, held until `release` or the process ends. Throws
 * BackupError when a restore holds the lock.
 */
export function holdServerLock(databaseFile: string): { release: () => void } {
  const lock = openLock(databaseFile);
  try {
    lock.exec('begin');
    // A read in an open transaction holds SQLite's SHARED lock until the transaction ends.
    lock.prepare('select count(*) from holders').get();
  } catch (error) {
    lock.close();
    if (isBusy(error)) throw new BackupError(`a restore of ${databaseFile} is running; start the server once it has finished`);
    throw error;
  }
  return {
    release: () => {
      lock.exec('commit');
      lock.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED');
}

/** What `backup` and `restore` report. */
export interface BackupSummary {
  file: string;
  bytes: number;
  pages: number;
}

/**
 * Copies the live database to `to` with SQLite's online backup API, in one step (one read
 * transaction), so the copy is the database as one moment saw it while servers keep writing
 * (WAL: writers are not held up). Written beside `to` and renamed into place once checked, so a
 * failed backup never leaves a half-written file under the name asked for. Refuses to overwrite.
 */
export async function backupSqlite(databaseFile: string, to: string): Promise<BackupSummary> {
  if (!existsSync(databaseFile)) throw new BackupError(`there is no database at ${databaseFile}`);
  if (existsSync(to)) throw new BackupError(`${to} exists already; name a new file`);
  const partial = `${to}.partial-${process.pid}`;
  const source = new SQLite(databaseFile, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // Created owner-only before SQLite writes the copy into it: a backup holds everything the database does.
    ownerOnlySqliteFile(partial);
    const progress = await source.backup(partial, { progress: () => PAGES_PER_STEP });
    const copy = new SQLite(partial);
    try {
      // One file to keep: the copy is not left in WAL mode, which would want a -wal beside it.
      copy.pragma('journal_mode = delete');
      const check = copy.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`the copy failed SQLite's integrity check: ${String(check)}`);
    } finally {
      copy.close();
    }
    renameSync(partial, to);
    return { file: to, bytes: statSync(to).size, pages: progress.totalPages };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}

/** Opens a backup and checks it is a sound Siteward database; throws BackupError saying what is wrong. */
function openBackup(from: string): SQLite.Database {
  if (!existsSync(from)) throw new BackupError(`there is no file at ${from}`);
  let backup: SQLite.Database;
  try {
    backup = new SQLite(from, { readonly: true, fileMustExist: true });
    const check = backup.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${from} failed SQLite's integrity check: ${String(check)}`);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${from} is not a SQLite database (${error instanceof Error ? error.message : String(error)})`);
  }
  const migrations = backup.prepare("select count(*) as count from sqlite_master where type = 'table' and name in ('kysely_migration', 'users', 'sites')").get() as { count: number };
  if (migrations.count !== 3) {
    backup.close();
    throw new BackupError(`${from} is a SQLite database, but not a Siteward one`);
  }
  return backup;
}

/**
 * Restores `from` as the database, while no server runs: refused (BackupError) when one holds the
 * running lock. The database it replaces is kept beside it as `<file>.before-restore-<time>`
 * (with its -wal, if a crash left one), never deleted. The next server start migrates the
 * restored database forward if it is older than the code.
 */
export async function restoreSqlite(databaseFile: string, from: string, now: Date): Promise<BackupSummary & { previous: string | null }> {
  const backup = openBackup(from);
  const lock = openLock(databaseFile);
  try {
    try {
      lock.exec('begin exclusive');
    } catch (error) {
      if (isBusy(error)) throw new BackupError(`a Siteward server is using ${databaseFile}; stop every server first (the restore replaces the database under it)`);
      throw error;
    }
    let previous: string | null = null;
    if (existsSync(databaseFile)) {
      previous = `${databaseFile}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(databaseFile, previous);
      // Kept, so kept as private as the database it was (it may date from a version that left it readable).
      chmodSync(previous, OWNER_ONLY);
      // A -wal left by a crash belongs to the old file: it goes with it, or it would be replayed into the restored one.
      for (const suffix of ['-wal', '-shm']) if (existsSync(databaseFile + suffix)) renameSync(databaseFile + suffix, previous + suffix);
    }
    ownerOnlySqliteFile(databaseFile);
    const progress = await backup.backup(databaseFile, { progress: () => PAGES_PER_STEP });
    lock.exec('commit');
    return { file: databaseFile, bytes: statSync(databaseFile).size, pages: progress.totalPages, previous };
  } finally {
    backup.close();
    lock.close();
  }
}
