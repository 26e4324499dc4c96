import { CHECK_CATEGORY, type FailureCategory, httpStatusText, PartnerCheckError, PartnerHttpError } from './check-error.js';
import { PARTNER_NAME_MAX_LENGTH } from './contract.js';
import { cleanText, describeFailure, failureText, mentionsSecret, redactor } from './describe-failure.js';
import { createGuardedFetch, type FetchLike } from '../outbound/guarded-fetch.js';
import { checkMcpServer, type McpCheckResult, type McpProgress, type McpServerInfo } from './mcp.js';
import { type AddressPolicy, defaultAddressPolicy, type Resolver, systemResolver } from '../outbound/network-guard.js';
import { originOf } from '../sites/partner-settings.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
export const MAX_REDIRECTS = 5;
/** How the check introduces itself to a partner. */
export const CHECK_USER_AGENT = 'Siteward-partner-check/1.0';
/** last_error is a sentence for a person, not a log dump. */
export const LAST_ERROR_MAX_LENGTH = 500;

/** What the check needs to know about one site's integration. */
export interface PartnerTarget {
  baseUrl: string;
  mcpUrl: string;
  authType: 'none' | 'bearer' | 'token';
  /** The decrypted access token, held only for the duration of the check. */
  accessToken: string | null;
  /** The one origin the token may be sent to: mcp_url's origin when the token was saved. */
  accessTokenOrigin: string | null;
}

/** Stands in for a name that carries the access token. */
export const WITHHELD_NAME = '[withheld: contains the access token]';

/**
 * What the check learnt of the MCP server, ready to be shown: names on one line, cut to
 * PARTNER_NAME_MAX_LENGTH, and any that carries the token replaced by WITHHELD_NAME.
 */
export interface McpDetails {
  /** Negotiated (handshake) or agreed (server/discover); null when the check did not get that far. */
  protocolVersion: string | null;
  server: McpServerInfo | null;
  /** Every tool listed; null when the tools were not listed. */
  toolCount: number | null;
  /** The first MAX_TOOL_NAMES tool names. */
  tools: string[];
}

export type PartnerCheckOutcome =
  | { status: 'ok'; summary: string; mcp: McpDetails | null; baseUrlStatus: number | null }
  /**
   * error: last_error's text; category: the first failure's (base_url's when both failed);
   * mcp: what the MCP part learnt before it failed, null when it learnt nothing or did not run.
   */
  | { status: 'error'; error: string; category: FailureCategory; mcp: McpDetails | null };

export interface PartnerCheckerOptions {
  allowPrivateNetworks: boolean;
  /** The whole check, every request and redirect included, ends by this deadline. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Tests replace these; production uses the configured policy and the system resolver. */
  policy?: AddressPolicy;
  resolver?: Resolver;
}

/**
 * Checks a site's partner integration: base_url must answer over HTTP, mcp_url must speak MCP.
 * Stateless and free of storage: the caller decides what to do with the outcome.
 */
export class PartnerChecker {
  readonly timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #policy: AddressPolicy;
  readonly #resolver: Resolver;

  constructor(options: PartnerCheckerOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#policy = options.policy ?? defaultAddressPolicy(options.allowPrivateNetworks);
    this.#resolver = options.resolver ?? systemResolver;
  }

  async check(target: PartnerTarget): Promise<PartnerCheckOutcome> {
    if (target.baseUrl === '' && target.mcpUrl === '') {
      return { status: 'error', category: CHECK_CATEGORY.blocked, error: 'nothing to check: set base_url or mcp_url', mcp: null };
    }
    let authorization: string | undefined;
    if (target.authType !== 'none') {
      if (target.accessToken === null || target.accessToken === '') {
        return { status: 'error', category: CHECK_CATEGORY.blocked, error: `auth_type is "${target.authType}" but no access_token is stored`, mcp: null };
      }
      // A header value cannot carry control characters or non-ASCII text; refuse before sending.
      if (!/^[\x21-\x7e]+$/.test(target.accessToken)) {
        return { status: 'error', category: CHECK_CATEGORY.blocked, error: 'the access_token contains characters an HTTP header cannot carry', mcp: null };
      }
      // The token goes only where it was saved for (sites/partner-settings.ts); a site whose
      // mcp_url left that origin without the token being cleared is refused, not sent elsewhere.
      if (target.mcpUrl !== '' && (target.accessTokenOrigin === null || originOf(target.mcpUrl) !== target.accessTokenOrigin)) {
        return {
          status: 'error',
          category: CHECK_CATEGORY.blocked,
          error: 'the access_token was saved for another mcp_url origin and is not sent to this one; save it again',
          mcp: null,
        };
      }
      authorization = `${target.authType === 'bearer' ? 'Bearer' : 'Token'} ${target.accessToken}`;
    }

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new PartnerCheckError(CHECK_CATEGORY.timeout, `no answer within ${formatDuration(this.timeoutMs)}`)), this.timeoutMs);
    const fetch = createGuardedFetch({
      policy: this.#policy,
      resolver: this.#resolver,
      maxResponseBytes: this.#maxResponseBytes,
      maxRedirects: MAX_REDIRECTS,
      signal: deadline.signal,
      credentialOrigin: authorization === undefined ? null : target.accessTokenOrigin,
      userAgent: CHECK_USER_AGENT,
    });
    // Failures are described in our own words, never with the partner's text, so a partner echoing
    // the token in any encoding has nothing to echo it into. Cutting the exact token out of the
    // result is only a second line of defence.
    const redact = redactor(target.accessToken);
    // Past the deadline every step fails with some abort error; the deadline names the real cause.
    // It is read when a part fails, so a part that failed earlier for its own reason keeps it.
    const withinDeadline = <T>(work: Promise<T>): Promise<T> =>
      work.catch((error: unknown) => {
        throw deadline.signal.aborted ? deadline.signal.reason : error;
      });
    const progress: McpProgress = { protocolVersion: null, server: null };
    try {
      const [base, mcp] = await Promise.allSettled([
        target.baseUrl === '' ? null : withinDeadline(checkBaseUrl(target.baseUrl, fetch)),
        target.mcpUrl === '' ? null : withinDeadline(checkMcpServer(target.mcpUrl, { fetch, authorization, signal: deadline.signal, timeoutMs: this.timeoutMs, progress })),
      ]);
      if (base.status === 'fulfilled' && mcp.status === 'fulfilled') {
        const details = mcp.value === null ? null : mcpDetails(mcp.value, target.accessToken);
        return { status: 'ok', summary: summarise(base.value, details), mcp: details, baseUrlStatus: base.value };
      }
      const failures = [
        ...(base.status === 'rejected' ? [{ field: 'base_url', ...describeFailure(base.reason) }] : []),
        ...(mcp.status === 'rejected' ? [{ field: 'mcp_url', ...describeFailure(mcp.reason) }] : []),
      ];
      const error = failures.map((failure) => `${failure.field}: ${failureText(failure)}`).join('; ');
      const learnt = mcp.status === 'fulfilled' && mcp.value !== null ? mcp.value : progress;
      return {
        status: 'error',
        category: failures[0]?.category ?? CHECK_CATEGORY.protocolError,
        error: cleanText(error, LAST_ERROR_MAX_LENGTH, redact),
        mcp: learnt.protocolVersion === null ? null : mcpDetails(learnt, target.accessToken),
      };
    } finally {
      clearTimeout(timer);
      // Whatever is still open (an SSE stream, a slow DELETE) is closed with the check.
      deadline.abort(new PartnerCheckError(CHECK_CATEGORY.timeout, 'the check has finished'));
    }
  }
}

/**
 * base_url is reachable when it answers HTTP below 500, redirects followed: a partner API's root
 * commonly answers 401 or 404, which still proves the service is there. No credential is sent:
 * only the MCP endpoint is known to be where the token belongs.
 */
async function checkBaseUrl(url: string, fetch: FetchLike): Promise<number> {
  const response = await fetch(url, { method: 'GET', headers: { accept: '*/*' } });
  await response.body?.cancel();
  if (response.status >= 500) throw new PartnerHttpError(response.status);
  return response.status;
}

function summarise(baseUrlStatus: number | null, mcp: McpDetails | null): string {
  const parts: string[] = [];
  if (baseUrlStatus !== null) parts.push(`base_url answered ${httpStatusText(baseUrlStatus)}`);
  if (mcp !== null) parts.push(`MCP protocol ${mcp.protocolVersion ?? 'unknown'}, ${mcp.toolCount ?? 0} ${mcp.toolCount === 1 ? 'tool' : 'tools'}`);
  return parts.join('; ');
}

/**
 * The partner's names as they may be shown. They are the partner's own text, so, as with
 * last_error, a name that carries the token in any common encoding is withheld whole: shown to
 * everyone who may read the site, it would give the token away.
 */
function mcpDetails(learnt: McpCheckResult | McpProgress, accessToken: string | null): McpDetails {
  const name = (text: string) => (mentionsSecret(text, accessToken) ? WITHHELD_NAME : cleanText(text, PARTNER_NAME_MAX_LENGTH));
  const listed = 'toolCount' in learnt;
  return {
    protocolVersion: learnt.protocolVersion === null ? null : name(learnt.protocolVersion),
    server: learnt.server === null ? null : { name: name(learnt.server.name), version: name(learnt.server.version) },
    toolCount: listed ? learnt.toolCount : null,
    tools: listed ? learnt.toolNames.map(name) : [],
  };
}

function formatDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 100) / 10} s`;
}

