import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { BackgroundJob } from '../background/jobs.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { readPartnerSettings } from '../sites/partner-settings.js';
import { claimPeriodicCheck, listAllSitesPage } from './queries.js';
import type { PartnerCheckService } from './service.js';

const PAGE_SIZE = 100;
/** The timer looks for due sites at most this often; a site is re-checked within a tick of being due. */
const MAX_TICK_MS = 60_000;

export interface PartnerRecheckDeps {
  db: Kysely<Database>;
  checks: PartnerCheckService;
  clock: Clock;
  log: FastifyBaseLogger;
  intervalSeconds: number;
}

/**
 * Re-checks enabled partner integrations every PARTNER_CHECK_INTERVAL seconds so last_status stays
 * current. Which sites are due is decided by the injected clock (tests move it); the timer only
 * decides how often to look. Checks run one at a time, so the outgoing load stays one request
 * stream per process however many sites there are.
 */
export class PartnerRecheckScheduler implements BackgroundJob {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(private readonly deps: PartnerRecheckDeps) {}

  get intervalMs(): number {
    return this.deps.intervalSeconds * 1000;
  }

  start(): void {
    if (this.#timer !== undefined || this.intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.runOnce(), Math.min(this.intervalMs, MAX_TICK_MS));
    // The timer alone does not keep the process alive: shutting down is never held up by it.
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One pass, unless one is still running; resolves to the number of sites checked. */
  runOnce(): Promise<number> {
    this.#running ??= this.runDueChecks()
      .catch((error: unknown) => {
        this.deps.log.error({ err: error }, 'periodic partner check failed');
        return 0;
      })
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  /** Checks every enabled integration whose last check is at least an interval old. */
  async runDueChecks(): Promise<number> {
    let checked = 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await listAllSitesPage(this.deps.db, PAGE_SIZE, afterId);
      for (const row of page) {
        const settings = readPartnerSettings(row);
        if (!settings.enabled || (settings.base_url === '' && settings.mcp_url === '')) continue;
        const now = this.deps.clock.now().getTime();
        const last = settings.last_checked_at === null ? Number.NEGATIVE_INFINITY : Date.parse(settings.last_checked_at);
        if (now - last < this.intervalMs) continue;
        if (!(await claimPeriodicCheck(this.deps.db, row.id, now, this.intervalMs))) continue;
        try {
          await this.deps.checks.checkAndRecord(row);
          checked++;
        } catch (error) {
          // A site deleted meanwhile, or a database hiccup: the other sites are still checked.
          this.deps.log.warn({ err: error, site_id: row.id }, 'periodic partner check not recorded');
        }
      }
      const last = page.at(-1);
      if (page.length < PAGE_SIZE || last === undefined) return checked;
      afterId = last.id;
    }
  }
}
