import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';

/**
 * Files Siteward writes hold password hashes, encrypted secrets and the rest of the database:
 * readable by their owner only, whatever the process's umask (a default 0644 would let every
 * account on the host read them).
 */
export const OWNER_ONLY = 0o600;

/** Files SQLite keeps beside a database while it is open or after a crash. */
const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Makes a SQLite database file, created empty if missing, readable by its owner only, with the
 * companions a crash or an earlier version may have left. Called before SQLite opens the file:
 * SQLite creates a database's -wal, -shm and -journal with the database file's own mode, so those
 * made later are owner-only too.
 */
export function ownerOnlySqliteFile(file: string): void {
  closeSync(openSync(file, 'a', OWNER_ONLY));
  chmodSync(file, OWNER_ONLY);
  for (const suffix of SQLITE_COMPANIONS) if (existsSync(file + suffix)) chmodSync(file + suffix, OWNER_ONLY);
}
