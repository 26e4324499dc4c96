import type { FastifyBaseLogger } from 'fastify';
import type { OidcProviderConfig } from '../config.js';
import type { Clock } from '../lib/clock.js';
import { OidcExchangeError } from './contract.js';
import type { RelyingParty } from './relying-party.js';

export interface OidcDiscoveryOptions {
  /** Wait before the first retry of a provider that did not answer; it doubles at each failure… */
  firstRetryDelayMs: number;
  /** …up to this, and stays there until the provider answers. */
  maxRetryDelayMs: number;
  /** A sign-in that finds its provider undiscovered tries at once, unless the last try failed this recently (by the app's clock). */
  onDemandRetryGapMs: number;
  /** How long one request to a provider may take (discovery, token, userinfo, keys). */
  requestTimeoutSeconds: number;
}

export const DEFAULT_OIDC_DISCOVERY: OidcDiscoveryOptions = {
  firstRetryDelayMs: 2_000,
  maxRetryDelayMs: 5 * 60 * 1000,
  onDemandRetryGapMs: 5_000,
  requestTimeoutSeconds: 10,
};

/** What the sign-in screens show of a provider. */
export interface ProviderSummary {
  id: string;
  name: string;
}

interface ProviderEntry {
  config: OidcProviderConfig;
  discovered: RelyingParty | undefined;
  /** The discovery under way, shared by everyone who needs the provider meanwhile. */
  attempt: Promise<RelyingParty> | undefined;
  failures: number;
  /** When the last discovery failed, by the app's clock. */
  lastFailureAt: number | undefined;
  retry: NodeJS.Timeout | undefined;
  /** Told when the provider is discovered. */
  waiting: Array<() => void>;
}

/**
 * The configured OpenID Connect providers and their discovery. A provider that does not answer at
 * start-up does not hold the server back: it is retried in the background with a doubling, capped
 * wait, and a sign-in that needs it tries again at once (no more often than every few seconds).
 * Each process discovers for itself: the metadata is public and the same for every app server.
 */
export class OidcProviders {
  readonly #entries = new Map<string, ProviderEntry>();
  readonly #options: OidcDiscoveryOptions;
  #closed = false;

  constructor(
    configs: readonly OidcProviderConfig[],
    private readonly deps: { log: FastifyBaseLogger; clock: Clock; publicUrl: string },
    options: Partial<OidcDiscoveryOptions> = {},
  ) {
    this.#options = { ...DEFAULT_OIDC_DISCOVERY, ...options };
    for (const config of configs) {
      this.#entries.set(config.id, { config, discovered: undefined, attempt: undefined, failures: 0, lastFailureAt: undefined, retry: undefined, waiting: [] });
    }
  }

  /** Every configured provider, discovered or not: a button for one that is down leads to a page saying so. */
  list(): ProviderSummary[] {
    return [...this.#entries.values()].map(({ config }) => ({ id: config.id, name: config.name }));
  }

  find(id: string): ProviderSummary | undefined {
    const entry = this.#entries.get(id);
    return entry === undefined ? undefined : { id: entry.config.id, name: entry.config.name };
  }

  /** Starts discovering every provider; returns at once. */
  start(): void {
    for (const entry of this.#entries.values()) void this.#discover(entry).catch(() => undefined);
  }

  /**
   * The provider, ready to use. Throws OidcExchangeError('unreachable') when it has not been
   * discovered and cannot be now. The caller has checked that the id is configured.
   */
  async ready(id: string): Promise<RelyingParty> {
    const entry = this.#entries.get(id);
    if (entry === undefined) throw new Error(`unknown OpenID Connect provider ${id}`);
    if (entry.discovered !== undefined) return entry.discovered;
    if (entry.attempt !== undefined) return entry.attempt;
    const now = this.deps.clock.now().getTime();
    if (entry.lastFailureAt !== undefined && now - entry.lastFailureAt < this.#options.onDemandRetryGapMs) {
      throw new OidcExchangeError('unreachable', 'discovery_pending');
    }
    return this.#discover(entry);
  }

  /** Resolves once the provider has been discovered (for whoever must wait for it: tests, a start-up check). */
  whenDiscovered(id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry === undefined) return Promise.reject(new Error(`unknown OpenID Connect provider ${id}`));
    if (entry.discovered !== undefined) return Promise.resolve();
    return new Promise((resolve) => entry.waiting.push(resolve));
  }

  close(): void {
    this.#closed = true;
    for (const entry of this.#entries.values()) clearTimeout(entry.retry);
  }

  #discover(entry: ProviderEntry): Promise<RelyingParty> {
    if (entry.attempt !== undefined) return entry.attempt;
    const attempt = this.#attemptDiscovery(entry);
    entry.attempt = attempt;
    return attempt;
  }

  async #attemptDiscovery(entry: ProviderEntry): Promise<RelyingParty> {
    const { config } = entry;
    try {
      // Loaded here, so a server without single sign-on never holds openid-client.
      const { discoverProvider } = await import('./relying-party.js');
      const relyingParty = await discoverProvider(config, `${this.deps.publicUrl}/auth/oidc/${config.id}/callback`, this.#options.requestTimeoutSeconds);
      entry.discovered = relyingParty;
      entry.failures = 0;
      clearTimeout(entry.retry);
      this.deps.log.info({ oidc_provider: config.id, issuer: config.issuer }, 'OpenID Connect provider discovered');
      for (const resolve of entry.waiting.splice(0)) resolve();
      return relyingParty;
    } catch (error) {
      entry.failures += 1;
      entry.lastFailureAt = this.deps.clock.now().getTime();
      const reason = error instanceof OidcExchangeError ? error.reason : 'unknown';
      const retryInMs = this.#scheduleRetry(entry);
      this.deps.log.warn(
        { oidc_provider: config.id, issuer: config.issuer, reason, failures: entry.failures, retry_in_s: retryInMs === undefined ? null : Math.ceil(retryInMs / 1000) },
        'OpenID Connect provider did not answer discovery; sign-in with it waits until it does',
      );
      throw error instanceof OidcExchangeError ? error : new OidcExchangeError('unreachable', reason);
    } finally {
      entry.attempt = undefined;
    }
  }

  /** The next background try, unless one is already set or the app is closing; its delay in ms. */
  #scheduleRetry(entry: ProviderEntry): number | undefined {
    if (this.#closed) return undefined;
    clearTimeout(entry.retry);
    const delay = Math.min(this.#options.firstRetryDelayMs * 2 ** Math.min(entry.failures - 1, 20), this.#options.maxRetryDelayMs);
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      if (!this.#closed && entry.discovered === undefined) void this.#discover(entry).catch(() => undefined);
    }, delay).unref();
    return delay;
  }
}
