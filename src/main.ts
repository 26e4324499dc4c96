import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { logDestination } from './http/log-destination.js';
import { BackupError, holdServerLock } from './backup/sqlite-backup.js';

/** The process entry: configuration, database, listen, and a graceful close on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`siteward: configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  // Held while this server runs: `restore` refuses to replace a database a server uses (src/backup/).
  let serverLock: { release: () => void } | undefined;
  if (config.database.kind === 'sqlite') {
    try {
      serverLock = holdServerLock(config.database.file);
    } catch (error) {
      if (!(error instanceof BackupError)) throw error;
      process.stderr.write(`siteward: ${error.message}\n`);
      process.exit(1);
    }
  }
  // Queries are timed only for the metrics; without them the hot path carries no timing at all.
  const database = openDatabase(config.database, { timeQueries: config.metricsPort !== null });
  await migrate(database);
  const log = logDestination();
  const app = await buildApp({ config, database, logStream: log });

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // Stop accepting connections, let requests in flight finish, then release the database.
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    await database.close();
    serverLock?.release();
    clearTimeout(timer);
    // process.exit writes the log lines still buffered, synchronously (http/logging.ts).
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { url: config.publicUrl, database: config.database.kind, dataDir: config.dataDir },
    `Siteward is serving ${config.publicUrl}`,
  );
  // The log is written in batches (http/logging.ts): whoever waits for this line sees it now.
  log.flush();
}

main().catch((error: unknown) => {
  process.stderr.write(`siteward: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
