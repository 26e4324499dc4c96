import type pg from 'pg';
import type { ChangeFeed, ChangeListener } from './change-feed.js';

/**
 * The channel the triggers of migration 008 notify on, with the tags of the rows each committed
 * change touched, separated by spaces (ids hold none).
 */
export const CHANGE_CHANNEL = 'siteward_changes';

/** Told when caching turns off and on, so an operator sees why reads went to the database. */
export interface ChangeFeedLog {
  info(message: string): void;
  warn(details: { err?: unknown }, message: string): void;
}

export interface PostgresChangeFeedOptions {
  url: string;
  log: ChangeFeedLog;
  /** Waits before reconnecting, doubling from the first to the last. */
  retryDelaysMs?: { first: number; max: number };
  /** How often the connection is asked to answer, and how long an answer may take before it counts as lost. */
  heartbeat?: { intervalMs: number; timeoutMs: number };
}

/**
 * PostgreSQL's change feed: one dedicated connection (not from the pool, which hands its
 * connections to queries) that LISTENs on CHANGE_CHANNEL. Triggers on the cached tables announce
 * every committed change in the transaction that makes it, so a rolled-back write announces
 * nothing and no write path, present or future, can forget to.
 *
 * A notification that never arrives would leave an entry stale for good, so the cache is used
 * only while this connection is known to be listening: not before its first LISTEN, not once it
 * errs or closes (a restart, pg_terminate_backend, a network cut), and not when a heartbeat query
 * goes unanswered for `heartbeat.timeoutMs` (a connection that hangs without closing). Each time
 * it comes back, the cache is emptied before it is used: changes made meanwhile went unheard.
 */
export class PostgresChangeFeed implements ChangeFeed {
  #listener: ChangeListener | undefined;
  #client: pg.Client | undefined;
  #listening = false;
  #closed = false;
  #retryMs: number;
  #retry: NodeJS.Timeout | undefined;
  #lastAnswerAt = 0;
  #beating = false;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #retryDelaysMs: { first: number; max: number };
  readonly #heartbeatOptions: { intervalMs: number; timeoutMs: number };

  constructor(private readonly options: PostgresChangeFeedOptions) {
    this.#retryDelaysMs = options.retryDelaysMs ?? { first: 1000, max: 10_000 };
    this.#heartbeatOptions = options.heartbeat ?? { intervalMs: 1000, timeoutMs: 3000 };
    this.#retryMs = this.#retryDelaysMs.first;
    this.#heartbeat = setInterval(() => this.#beat(), this.#heartbeatOptions.intervalMs).unref();
    void this.#connect();
  }

  ready(): boolean {
    return this.#listening;
  }

  listen(listener: ChangeListener): void {
    this.#listener = listener;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const { default: pgModule } = await import('pg');
    if (this.#closed) return;
    // Named after the process, so an operator (or a test) can find this connection in pg_stat_activity.
    const client = new pgModule.Client({ connectionString: this.options.url, application_name: `siteward-change-feed ${process.pid}`, keepAlive: true });
    this.#client = client;
    client.on('notification', (message) => {
      if (this.#client === client && this.#listening) this.#listener?.changed((message.payload ?? '').split(' ').filter((tag) => tag !== ''));
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, undefined));
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch (error) {
      this.#lost(client, error);
      return;
    }
    if (this.#client !== client) return;
    // Whatever changed before LISTEN took effect went unheard; from here on every change is heard.
    this.#listener?.reset();
    this.#lastAnswerAt = performance.now();
    this.#beating = false;
    this.#listening = true;
    this.#retryMs = this.#retryDelaysMs.first;
    this.options.log.info('cache on: listening for database changes');
  }

  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    const wasListening = this.#listening;
    this.#listening = false;
    // Not used while down, and emptied now so that it holds no memory for nothing.
    this.#listener?.reset();
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    client.end().catch(() => undefined);
    if (this.#closed) return;
    if (wasListening) this.options.log.warn({ err: error }, 'cache off: the connection listening for database changes was lost; reads go to the database until it is back');
    this.#retry = setTimeout(() => void this.#connect(), this.#retryMs).unref();
    this.#retryMs = Math.min(this.#retryMs * 2, this.#retryDelaysMs.max);
  }

  /** Asks the listening connection to answer; one that stays silent too long counts as lost. */
  #beat(): void {
    const client = this.#client;
    if (client === undefined || !this.#listening) return;
    if (performance.now() - this.#lastAnswerAt > this.#heartbeatOptions.timeoutMs) {
      this.#lost(client, new Error('the listening connection did not answer in time'));
      return;
    }
    if (this.#beating) return;
    this.#beating = true;
    client.query('select 1').then(
      () => {
        this.#lastAnswerAt = performance.now();
        this.#beating = false;
      },
      () => {
        // Its error event follows and reports the loss.
        this.#beating = false;
      },
    );
  }
}
