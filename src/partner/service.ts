import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { RateLimiter, RateLimitRule } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { SiteCaller, SiteRow } from '../sites/queries.js';
import type { PartnerSettingsUpdate } from '../sites/schema.js';
import type { Cache } from '../cache/cache.js';
import type { DialectName } from '../db/connect.js';
import { readPartnerSettings, type StoredPartnerSettings } from '../sites/partner-settings.js';
import type { SiteService } from '../sites/service.js';
import { recordPartnerCheck } from './check-recording.js';
import type { PartnerChecker, PartnerCheckOutcome, PartnerTarget } from './check.js';
import { CHECK_CATEGORY } from './check-error.js';
import type { PartnerAlerts } from './alerts.js';
import { PARTNER_ERRORS } from './errors.js';
import { partnerCheckToJson } from './presenter.js';
import { listPartnerChecks } from './queries.js';
import { CHECK_HISTORY_LENGTH, type PartnerCheckJson } from './schema.js';

/**
 * Each check makes outgoing requests on the caller's behalf, so checks are limited per site and,
 * so that many sites do not multiply the limit, per user. Kept in the database like every limit.
 * Draft tests have their own per-user window: a settings form may test as its user edits, and
 * that must not use up the checks of the saved settings.
 */
export const PARTNER_CHECK_LIMITS = {
  perSite: { limit: 10, windowMs: 60_000 },
  perUser: { limit: 30, windowMs: 60_000 },
  testsPerUser: { limit: 20, windowMs: 60_000 },
} satisfies Record<string, RateLimitRule>;

/** Appended to a draft test's message when the saved token stayed home because the draft moved an origin. */
export const TOKEN_WITHHELD_NOTE = 'sent without the saved access_token, which is bound to the saved base_url and mcp_url origins';

export interface PartnerCheckServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Told of every recorded check after it commits, as of every other write to a site. */
  cache: Cache;
  sites: SiteService;
  limiter: RateLimiter;
  checker: PartnerChecker;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Mails admins when a site's partner status moves between ok and error; none in tests of the check alone. */
  alerts?: PartnerAlerts;
}

/** Runs partner connection checks: of a site as saved (recorded), or of a draft (not recorded). */
export class PartnerCheckService {
  constructor(private readonly deps: PartnerCheckServiceDeps) {}

  /** A check asked for by a member (editor or above): membership first (404, 403), then the rate limit (429). */
  async checkSite(caller: SiteCaller, siteId: string, log: FastifyBaseLogger = this.deps.log): Promise<SiteRow> {
    const userId = caller.userId;
    const { site: row } = await this.deps.sites.getFor(caller, siteId, 'partner.check');
    // Counted before the check goes out, so parallel requests cannot all pass one reading of the limit.
    await this.deps.limiter.reserve([
      [`partner-check:site:${row.id}`, PARTNER_CHECK_LIMITS.perSite],
      [`partner-check:user:${userId}`, PARTNER_CHECK_LIMITS.perUser],
    ]);
    return this.checkAndRecord(row, log);
  }

  /**
   * Checks the site as it is stored now and records the outcome: the three last_* fields on the
   * site and the details in its check history, in one transaction. The periodic re-check calls this too.
   */
  async checkAndRecord(row: SiteRow, log: FastifyBaseLogger = this.deps.log): Promise<SiteRow> {
    const check = await this.#run(row.id, () => this.#checkSaved(row), log, 'partner check');
    const { site, statusChange } = await recordPartnerCheck(this.deps, row, check);
    if (statusChange !== null) await this.deps.alerts?.statusChanged(site, statusChange);
    return site;
  }

  /** The site's recorded checks, newest first; a site of another workspace is 404 like the site itself. */
  async listChecks(caller: SiteCaller, siteId: string): Promise<PartnerCheckJson[]> {
    const { site } = await this.deps.sites.getFor(caller, siteId, 'partner.read');
    const rows = await listPartnerChecks(this.deps.db, caller.userId, site.workspace_id, siteId, CHECK_HISTORY_LENGTH);
    return rows.map(partnerCheckToJson);
  }

  /**
   * Checks `draft` merged over the saved partner settings exactly as PUT would merge it, and
   * stores nothing: not the draft, not its token, not the result. Membership and role (404, 403),
   * then the draft's validity (400), then the rate limit (429), so a typo does not use up an attempt.
   */
  async testDraft(caller: SiteCaller, siteId: string, draft: PartnerSettingsUpdate, log: FastifyBaseLogger = this.deps.log): Promise<PartnerCheckJson> {
    const userId = caller.userId;
    const { site: row } = await this.deps.sites.getFor(caller, siteId, 'partner.check');
    const merged = this.deps.sites.draftPartnerSettings(row, draft);
    await this.deps.limiter.reserve(
      [[`partner-test:user:${userId}`, PARTNER_CHECK_LIMITS.testsPerUser]],
      (retryAfter) => new AppError(429, PARTNER_ERRORS.TEST_RATE_LIMITED, `Too many connection tests. Try again in ${retryAfter} seconds.`, { headers: { 'retry-after': String(retryAfter) } }),
    );
    const { settings, token } = merged;
    if (token.change === 'replace') {
      // The draft's own token, for this check only, sent only to the origin of the draft's mcp_url.
      return this.#run(row.id, () => this.#checkSettings(settings, settings.auth_type, token.value, token.origins.mcp_url), log, 'partner test');
    }
    if (token.change === 'keep') return this.#run(row.id, () => this.#checkSaved(row, settings), log, 'partner test');
    // The draft clears the token, or moves an origin away from the one the saved token is bound
    // to: then it is checked as PUT would leave it, without a token. A moved origin is still
    // checked, unauthenticated, so the draft's new address can be tried before it is saved.
    const movedAway = row.partner_access_token !== null && draft.access_token === undefined && settings.auth_type !== 'none';
    if (!movedAway) return this.#run(row.id, () => this.#checkSettings(settings, settings.auth_type, null, null), log, 'partner test');
    return this.#run(
      row.id,
      async () => {
        const outcome = await this.#checkSettings(settings, 'none', null, null);
        return outcome.status === 'ok' ? { ...outcome, summary: `${outcome.summary}; ${TOKEN_WITHHELD_NOTE}` } : { ...outcome, error: `${outcome.error}; ${TOKEN_WITHHELD_NOTE}` };
      },
      log,
      'partner test',
    );
  }

  /** Runs one check, times it and logs a summary; the token and the Authorization header are never logged. */
  async #run(siteId: string, check: () => Promise<PartnerCheckOutcome>, log: FastifyBaseLogger, logMessage: string): Promise<PartnerCheckJson> {
    const started = performance.now();
    const outcome = await check();
    const durationMs = Math.round(performance.now() - started);
    const mcp = outcome.mcp;
    log.info(
      {
        site_id: siteId,
        partner_check: {
          status: outcome.status,
          ...(outcome.status === 'ok'
            ? { summary: outcome.summary, protocol_version: mcp?.protocolVersion, tool_count: mcp?.toolCount }
            : { category: outcome.category, error: outcome.error }),
          ms: durationMs,
        },
      },
      logMessage,
    );
    return {
      at: this.deps.clock.now().toISOString(),
      status: outcome.status,
      category: outcome.status === 'ok' ? CHECK_CATEGORY.ok : outcome.category,
      message: outcome.status === 'ok' ? outcome.summary : outcome.error,
      duration_ms: durationMs,
      protocol_version: mcp?.protocolVersion ?? null,
      server: mcp?.server ?? null,
      tool_count: mcp?.toolCount ?? null,
      tools: mcp?.tools ?? [],
    };
  }

  /** Checks `settings` (the saved ones unless given) with the saved token, sent only where it is bound. */
  async #checkSaved(row: SiteRow, settings: StoredPartnerSettings = readPartnerSettings(row)): Promise<PartnerCheckOutcome> {
    let accessToken: string | null;
    try {
      accessToken = this.deps.sites.partnerAccessToken(row);
    } catch {
      return {
        status: 'error',
        category: CHECK_CATEGORY.blocked,
        error: 'the stored access_token cannot be decrypted (the encryption key of this server may have changed); set it again',
        mcp: null,
      };
    }
    return this.#checkSettings(settings, settings.auth_type, accessToken, this.deps.sites.partnerTokenOrigins(row)?.mcp_url ?? null);
  }

  #checkSettings(settings: StoredPartnerSettings, authType: PartnerTarget['authType'], accessToken: string | null, accessTokenOrigin: string | null): Promise<PartnerCheckOutcome> {
    return this.deps.checker.check({ baseUrl: settings.base_url, mcpUrl: settings.mcp_url, authType, accessToken, accessTokenOrigin });
  }
}
