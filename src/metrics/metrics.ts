import type { Kysely } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Cache } from '../cache/cache.js';
import type { DatabaseUsage } from '../db/usage.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Mailer } from '../mail/mailer.js';

export interface MetricsSources {
  db: Kysely<Database>;
  /** The connections' use, and each query's time when the database was opened to time them. */
  database: DatabaseUsage;
  clock: Clock;
  cache: Cache;
  mailer: Mailer;
  /** Public event streams open in this process now. */
  openStreams: () => number;
  /** What this process answered on the public path since it started (src/usage/counter.ts): totals, no site. */
  publicUsage: { readonly loads: number; readonly notModified: number; readonly streamsOpened: number };
}

/** A counter that reports a running total kept elsewhere (a plain number the hot path increments). */
function totalCounter(registry: Registry, name: string, help: string, read: () => number): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const total = read();
      if (total > reported) this.inc(total - reported);
      reported = total;
    },
  });
}

/**
 * The process's Prometheus metrics, in a registry of its own (prom-client), served by the metrics
 * listener only (METRICS_PORT), never on the public port. The hot path pays a histogram observe
 * per request and one per query (whose time Kysely measures); the cache and the mailer count with
 * plain integers read at scrape time; the connection pool's counts and what lives in the database
 * (the webhook outbox, scheduled change requests) are read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Histogram<'route' | 'method' | 'status_class'>;

  constructor(sources: MetricsSources) {
    const { registry } = this;
    collectDefaultMetrics({ register: registry });
    this.#requests = new Histogram({
      name: 'siteward_http_request_duration_seconds',
      help: 'Time to answer a request, by route pattern, method and status class',
      labelNames: ['route', 'method', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    if (sources.database.timed) {
      const queries = new Histogram({
        name: 'siteward_db_query_duration_seconds',
        help: 'Time the database took to answer a query (waiting for a connection not included), by operation and the table named first',
        labelNames: ['operation', 'table'],
        buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
        registers: [registry],
      });
      sources.database.onQueryTime = (family, seconds) => queries.observe({ operation: family.operation, table: family.table }, seconds);
    }
    new Gauge({
      name: 'siteward_db_connections',
      help: 'Database connections of this process, by state (in_use, idle)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const use = sources.database.connections();
        this.set({ state: 'in_use' }, use.inUse);
        this.set({ state: 'idle' }, use.idle);
      },
    });
    new Gauge({
      name: 'siteward_db_connections_max',
      help: 'The most database connections this process opens (POOL_SIZE; 1 on SQLite)',
      registers: [registry],
      collect() {
        this.set(sources.database.connections().max);
      },
    });
    new Gauge({
      name: 'siteward_db_connection_waiters',
      help: 'Queries or transactions of this process waiting for a database connection',
      registers: [registry],
      collect() {
        this.set(sources.database.connections().waiting);
      },
    });
    if (sources.database.timed) {
      totalCounter(registry, 'siteward_db_connection_held_seconds_total', 'Seconds database connections were held by queries and transactions, summed over connections: its rate divided by siteward_db_connections_max is how busy they are', () => sources.database.connections().heldSeconds);
    }
    totalCounter(registry, 'siteward_cache_hits_total', 'Lookups answered from the in-process cache', () => sources.cache.hits);
    totalCounter(registry, 'siteward_cache_misses_total', 'Lookups the in-process cache could not answer', () => sources.cache.misses);
    totalCounter(registry, 'siteward_cache_evictions_total', 'Entries the in-process cache pushed out to stay within CACHE_MB', () => sources.cache.evictions);
    totalCounter(registry, 'siteward_cache_refused_stores_total', 'Reads not kept because a change was committed while they ran', () => sources.cache.refusedStores);
    totalCounter(registry, 'siteward_cache_clears_total', 'Times the whole in-process cache was dropped: another process committed to SQLite, or the PostgreSQL change listener reconnected', () => sources.cache.clears);
    totalCounter(registry, 'siteward_mail_failures_total', 'Failed attempts to deliver an e-mail (each is retried a bounded number of times)', () => sources.mailer.failedAttempts);
    // Totals only: a label per site would grow the series with every site (its counts are in the API).
    totalCounter(registry, 'siteward_public_config_loads_total', 'Public configurations answered in full (200) by this process', () => sources.publicUsage.loads);
    totalCounter(registry, 'siteward_public_config_not_modified_total', 'Public configuration revalidations answered 304 by this process', () => sources.publicUsage.notModified);
    totalCounter(registry, 'siteward_public_streams_opened_total', 'Public configuration event streams opened in this process', () => sources.publicUsage.streamsOpened);
    totalCounter(registry, 'siteward_mail_given_up_total', 'E-mails given up on after every retry failed', () => sources.mailer.givenUp);
    new Gauge({
      name: 'siteward_public_streams_open',
      help: 'Public configuration event streams open in this process',
      registers: [registry],
      collect() {
        this.set(sources.openStreams());
      },
    });
    new Gauge({
      name: 'siteward_webhook_outbox_depth',
      help: 'Webhook deliveries waiting to be sent (all app servers)',
      registers: [registry],
      async collect() {
        const row = await sources.db.selectFrom('webhook_deliveries').select((eb) => [eb.fn.countAll<number>().as('count')]).where('status', '=', 'pending').executeTakeFirst();
        this.set(Number(row?.count ?? 0));
      },
    });
    new Gauge({
      name: 'siteward_webhook_outbox_oldest_age_seconds',
      help: 'Age of the oldest webhook delivery waiting to be sent; 0 when none waits',
      registers: [registry],
      async collect() {
        const row = await sources.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('created_at').as('oldest')).where('status', '=', 'pending').executeTakeFirst();
        const oldest = row?.oldest;
        this.set(typeof oldest === 'string' ? Math.max(0, (sources.clock.now().getTime() - Date.parse(oldest)) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'siteward_change_requests_scheduled',
      help: 'Change requests scheduled and waiting for their time (all app servers)',
      registers: [registry],
      async collect() {
        const row = await sources.db.selectFrom('change_requests').select((eb) => [eb.fn.countAll<number>().as('count')]).where('status', '=', 'scheduled').executeTakeFirst();
        this.set(Number(row?.count ?? 0));
      },
    });
  }

  /** One answered request: `route` is the route's pattern (never the URL, whose ids would make a series each). */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.#requests.observe({ route, method, status_class: STATUS_CLASSES[Math.floor(status / 100)] ?? 'other' }, seconds);
  }
}

const STATUS_CLASSES = ['other', '1xx', '2xx', '3xx', '4xx', '5xx'];
