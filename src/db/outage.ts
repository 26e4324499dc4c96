import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../lib/clock.js';

/** Connection-level PostgreSQL failures (a restart, a network cut), as opposed to query errors. */
const DATABASE_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

/**
 * node-postgres's own errors for a lost connection carry no code. The second is what a query on a
 * client whose connection failed meets: the rollback of a transaction cut short, say, which Kysely
 * then throws in place of the cut.
 */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error and is not queryable)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && DATABASE_DOWN_CODES.has(code)) || CONNECTION_LOST.test(error.message);
}

export interface DatabaseOutageOptions {
  log: FastifyBaseLogger;
  clock: Clock;
  /** A trivial query: resolves once the database answers again. */
  probe: () => Promise<unknown>;
  /** How often a summary of the refused requests is logged while the outage lasts. */
  summaryIntervalMs?: number;
  /** How often the database is asked whether it is back. */
  probeIntervalMs?: number;
}

export const DEFAULT_SUMMARY_INTERVAL_MS = 30_000;
export const DEFAULT_PROBE_INTERVAL_MS = 2_000;

/**
 * What the log says while the database is away. Every request that needs it is refused (503), and
 * logging each one in full buried the log (thousands of identical lines a second) and cost as much
 * as answering. Instead: one line with the error when the outage begins, at most one summary per
 * interval (how many requests were refused), and one line when the database answers again, found
 * by probing it while the outage lasts.
 */
export class DatabaseOutage {
  readonly #summaryIntervalMs: number;
  readonly #probeIntervalMs: number;
  /** When the outage began; undefined while the database answers. */
  #since: number | undefined;
  #lastSummaryAt = 0;
  #refused = 0;
  #refusedSinceSummary = 0;
  #probing: NodeJS.Timeout | undefined;
  #probeRunning = false;

  constructor(private readonly options: DatabaseOutageOptions) {
    this.#summaryIntervalMs = options.summaryIntervalMs ?? DEFAULT_SUMMARY_INTERVAL_MS;
    this.#probeIntervalMs = options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  }

  get ongoing(): boolean {
    return this.#since !== undefined;
  }

  /** A request was refused because the database did not answer. */
  refused(error: unknown): void {
    if (this.#begin(error, 1)) return;
    this.#refused++;
    this.#refusedSinceSummary++;
    this.#summarise(this.options.clock.now().getTime());
  }

  /**
   * Background work (not a request) failed because the database did not answer: it begins the
   * outage if none is under way, and is otherwise already told by the outage's lines.
   */
  failed(error: unknown): void {
    this.#begin(error, 0);
  }

  /** Begins an outage unless one is under way; true if it began one. */
  #begin(error: unknown, refused: number): boolean {
    if (this.#since !== undefined) return false;
    const now = this.options.clock.now().getTime();
    this.#since = now;
    this.#lastSummaryAt = now;
    this.#refused = refused;
    this.#refusedSinceSummary = 0;
    this.options.log.error({ err: error }, 'database unavailable: requests that need it are refused (503) until it answers');
    this.#startProbing();
    return true;
  }

  /** The database answered: the outage, if there was one, is over. */
  recovered(): void {
    if (this.#since === undefined) return;
    const now = this.options.clock.now().getTime();
    this.options.log.info({ refused: this.#refused, downForMs: now - this.#since }, 'database answers again');
    this.#since = undefined;
    this.#stopProbing();
  }

  /** Asks the database once; the timer calls this while an outage lasts. */
  async probe(): Promise<void> {
    if (this.#since === undefined || this.#probeRunning) return;
    this.#probeRunning = true;
    try {
      await this.options.probe();
      this.recovered();
    } catch {
      this.#summarise(this.options.clock.now().getTime());
    } finally {
      this.#probeRunning = false;
    }
  }

  close(): void {
    this.#stopProbing();
  }

  #summarise(now: number): void {
    if (this.#since === undefined || now - this.#lastSummaryAt < this.#summaryIntervalMs) return;
    this.options.log.warn({ refusedSinceLastLine: this.#refusedSinceSummary, refused: this.#refused, downForMs: now - this.#since }, 'database still unavailable');
    this.#lastSummaryAt = now;
    this.#refusedSinceSummary = 0;
  }

  #startProbing(): void {
    this.#probing ??= setInterval(() => void this.probe(), this.#probeIntervalMs).unref();
  }

  #stopProbing(): void {
    clearInterval(this.#probing);
    this.#probing = undefined;
  }
}
