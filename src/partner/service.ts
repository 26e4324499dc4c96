import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimiter, RateLimitRule } from '../auth/rate-limit.js';
import type { Clock } from '../lib/clock.js';
import type { SiteRow } from '../sites/queries.js';
import { readPartnerSettings, type SiteService } from '../sites/service.js';
import type { PartnerChecker, PartnerCheckOutcome } from './check.js';
import { CHECK_CATEGORY } from './check-error.js';

/**
 * Each check makes outgoing requests on the caller's behalf, so checks are limited per site and,
 * so that many sites do not multiply the limit, per user. Kept in the database like every limit.
 */
export const PARTNER_CHECK_LIMITS = {
  perSite: { limit: 10, windowMs: 60_000 },
  perUser: { limit: 30, windowMs: 60_000 },
} satisfies Record<string, RateLimitRule>;

export interface PartnerCheckServiceDeps {
  sites: SiteService;
  limiter: RateLimiter;
  checker: PartnerChecker;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** Runs a site's partner connection check and records the result on the site. */
export class PartnerCheckService {
  constructor(private readonly deps: PartnerCheckServiceDeps) {}

  /** A check asked for by the site's owner: ownership first (404), then the rate limit (429). */
  async checkOwnSite(userId: string, siteId: string, log: FastifyBaseLogger = this.deps.log): Promise<SiteRow> {
    const row = await this.deps.sites.get(userId, siteId);
    // Counted before the check goes out, so parallel requests cannot all pass one reading of the limit.
    await this.deps.limiter.reserve([
      [`partner-check:site:${row.id}`, PARTNER_CHECK_LIMITS.perSite],
      [`partner-check:user:${userId}`, PARTNER_CHECK_LIMITS.perUser],
    ]);
    return this.checkAndRecord(row, log);
  }

  /** Checks the site as it is stored now and records the outcome; the periodic re-check calls this too. */
  async checkAndRecord(row: SiteRow, log: FastifyBaseLogger = this.deps.log): Promise<SiteRow> {
    const started = performance.now();
    const outcome = await this.#check(row);
    const checkedAt = this.deps.clock.now().toISOString();
    // The summary (protocol version, tool count) is for people reading the log; the site keeps
    // only the fields SPEC.md defines. Neither the token nor the Authorization header is logged.
    log.info(
      {
        site_id: row.id,
        partner_check: {
          status: outcome.status,
          ...(outcome.status === 'ok'
            ? { summary: outcome.summary, protocol_version: outcome.mcp?.protocolVersion, tool_count: outcome.mcp?.toolCount }
            : { category: outcome.category, error: outcome.error }),
          ms: Math.round(performance.now() - started),
        },
      },
      'partner check',
    );
    return this.deps.sites.recordPartnerCheck(row.user_id, row.id, {
      last_status: outcome.status,
      last_error: outcome.status === 'ok' ? null : outcome.error,
      last_checked_at: checkedAt,
    });
  }

  async #check(row: SiteRow): Promise<PartnerCheckOutcome> {
    const settings = readPartnerSettings(row);
    let accessToken: string | null;
    try {
      accessToken = this.deps.sites.partnerAccessToken(row);
    } catch {
      return { status: 'error', category: CHECK_CATEGORY.blocked, error: 'the stored access_token cannot be decrypted (was ENCRYPTION_KEY changed?); set it again' };
    }
    return this.deps.checker.check({
      baseUrl: settings.base_url,
      mcpUrl: settings.mcp_url,
      authType: settings.auth_type,
      accessToken,
      accessTokenOrigin: this.deps.sites.partnerTokenOrigins(row)?.mcp_url ?? null,
    });
  }
}
