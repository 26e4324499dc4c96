import type { SiteRow } from './queries.js';

/**
 * The partner access token is bound to the origins of base_url and mcp_url it was saved with.
 *
 * The threat: anyone who may edit a site (an access token with sites:write, a compromised
 * session) points mcp_url at a host of their own and runs the connection check, which would send
 * the stored token there. The token was given to us for one partner, not for whatever URL the
 * site names later. So a change of either origin clears the token unless the same request sends a
 * new one, and the check sends it only to the origin it is bound to. Paths may change freely: the
 * partner is the same server.
 */
export interface PartnerTokenOrigins {
  /** The origin of base_url when the token was saved, "" when base_url was empty. */
  base_url: string;
  /** The origin of mcp_url when the token was saved, "" when mcp_url was empty. */
  mcp_url: string;
}

/** "https://partner.example" for "https://Partner.example:443/mcp"; "" for an empty or invalid URL. */
export function originOf(url: string): string {
  if (url === '') return '';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : '';
  } catch {
    return '';
  }
}

export function partnerOrigins(settings: { base_url: string; mcp_url: string }): PartnerTokenOrigins {
  return { base_url: originOf(settings.base_url), mcp_url: originOf(settings.mcp_url) };
}

export function encodeTokenOrigins(origins: PartnerTokenOrigins): string {
  return JSON.stringify({ base_url: origins.base_url, mcp_url: origins.mcp_url });
}

/**
 * The origins the stored token is bound to. A token without a readable binding (written by a
 * version that predates it, or edited by hand) is bound to nothing: it is sent nowhere and the
 * next change of partner settings clears it.
 */
export function readTokenOrigins(row: Pick<SiteRow, 'partner_token_origins'>): PartnerTokenOrigins | null {
  if (row.partner_token_origins === null) return null;
  try {
    const parsed: unknown = JSON.parse(row.partner_token_origins);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { base_url: baseUrl, mcp_url: mcpUrl } = parsed as Record<string, unknown>;
    return typeof baseUrl === 'string' && typeof mcpUrl === 'string' ? { base_url: baseUrl, mcp_url: mcpUrl } : null;
  } catch {
    return null;
  }
}

/** Whether the token bound to `bound` may stay with settings whose URLs have these origins. */
export function sameOrigins(bound: PartnerTokenOrigins | null, now: PartnerTokenOrigins): boolean {
  return bound !== null && bound.base_url === now.base_url && bound.mcp_url === now.mcp_url;
}
