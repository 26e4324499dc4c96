import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropPostgresDatabase } from '../test/template-database.js';

export interface TemporaryDatabase {
  url: string;
  /**
   * The server processes working for the benchmark: backends on its database and the cluster's
   * background writers. Empty when the server is not on this machine (its pids mean nothing here).
   */
  serverPids(): Promise<number[]>;
  /** The backends connected to the benchmark's database only: the database work a PUT's CPU cost counts. */
  backendPids(): Promise<number[]>;
  drop(): Promise<void>;
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A fresh database beside the one DATABASE_URL names, so every run starts from the same seed and
 * nothing of the named database is read or written. Dropped (with force) when the run ends.
 */
export async function createTemporaryDatabase(adminUrl: string): Promise<TemporaryDatabase> {
  const name = `siteward_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let monitor: pg.Client | undefined;
  const pids = async (query: string): Promise<number[]> => {
    if (!LOCAL_HOSTS.has(url.hostname)) return [];
    if (monitor === undefined) {
      monitor = new pg.Client({ connectionString: adminUrl });
      await monitor.connect();
    }
    const result = await monitor.query<{ pid: number }>(query, [name]);
    return result.rows.map((row) => row.pid);
  };
  return {
    url: url.href,
    serverPids: () => pids('select pid from pg_stat_activity where datname = $1 or datname is null or pid = pg_backend_pid()'),
    backendPids: () => pids('select pid from pg_stat_activity where datname = $1'),
    drop: async () => {
      await monitor?.end();
      await dropPostgresDatabase(adminUrl, name);
    },
  };
}
