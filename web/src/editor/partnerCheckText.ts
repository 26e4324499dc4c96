// What a partner connection check means, in words people read: a sentence and a next step per
// category, the time it took, and what the partner's server said about itself. Pure functions,
// keyed by the server's own categories (contract.ts): a category added there does not compile
// here until it has its sentence.
import type { CheckCategory } from '@server/partner/contract';
import type { PartnerCheck, PartnerSettingsUpdate } from '../api/types';
import type { SiteDraft } from '../siteDraft';

export type PartnerCheckResult = PartnerCheck;

export const CHECK_CATEGORY_TEXT: Record<CheckCategory, { summary: string; hint: string }> = {
  ok: {
    summary: 'The partner answered as expected.',
    hint: 'Nothing to do.',
  },
  unauthorized: {
    summary: 'The partner refused the access token.',
    hint: 'Check that the access token is right and has not expired, and that the auth type is the one the partner expects. Replace the token with a new one from the partner if needed.',
  },
  forbidden: {
    summary: 'The partner accepted the access token but does not allow this.',
    hint: 'Ask the partner to give this token access, or use a token that has it.',
  },
  not_found: {
    summary: 'The partner has nothing at this address.',
    hint: 'Check the Base URL and the MCP URL for typos; copy them from the partner’s documentation.',
  },
  timeout: {
    summary: 'The partner did not answer in time.',
    hint: 'Try again in a moment. If it keeps happening, ask the partner whether their service is up.',
  },
  unreachable: {
    summary: 'The partner could not be reached.',
    hint: 'Check the host name in the addresses, and that the partner’s service is running and can be reached from this server.',
  },
  tls: {
    summary: 'The secure connection to the partner failed.',
    hint: 'The partner’s certificate may have expired or may not match its address. Check the address, or ask the partner to renew the certificate.',
  },
  blocked: {
    summary: 'Siteward did not contact this address.',
    hint: 'Addresses inside private networks are refused unless your administrator allows them, and a saved access token is only sent to the addresses it was saved with: after changing an address, set the token again.',
  },
  protocol_error: {
    summary: 'The partner answered, but not in the way an MCP server or web service should.',
    hint: 'Check that the MCP URL points at the partner’s MCP endpoint rather than a web page.',
  },
  http_error: {
    summary: 'The partner answered with an error.',
    hint: 'The partner’s service may be having trouble. Try again later, or contact the partner.',
  },
};

/** How long a check took: "184 ms", "2.4 s". */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
}

/** "2 tools", "1 tool", or undefined when the tools were not listed. */
export function toolCountText(check: Pick<PartnerCheckResult, 'tool_count'>): string | undefined {
  if (check.tool_count === null) return undefined;
  return check.tool_count === 1 ? '1 tool' : `${check.tool_count} tools`;
}

/** Tools the partner has that the check names no more (it keeps the first 100). */
export function unlistedToolCount(check: Pick<PartnerCheckResult, 'tool_count' | 'tools'>): number {
  return check.tool_count === null ? 0 : Math.max(0, check.tool_count - check.tools.length);
}

/** The short line a screen reader hears when a check finishes: "OK: the partner answered as expected." */
export function checkAnnouncement(check: Pick<PartnerCheckResult, 'status' | 'category'>): string {
  const summary = CHECK_CATEGORY_TEXT[check.category].summary;
  return `${check.status === 'ok' ? 'OK' : 'Error'}: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`;
}

/**
 * What "Test before saving" sends: every partner field as the form holds it now, and the token as
 * a save would treat it (a new one typed in, "" when it is to be cleared, nothing to keep the
 * saved one). The server lays this over the saved settings exactly as a save would.
 */
export function partnerTestBody(draft: Pick<SiteDraft, 'partner' | 'accessToken'>): PartnerSettingsUpdate {
  const body: PartnerSettingsUpdate = { ...draft.partner, collections: [...draft.partner.collections], widget_search_sources: [...draft.partner.widget_search_sources] };
  if (draft.accessToken.kind === 'replace' && draft.accessToken.value !== '') body.access_token = draft.accessToken.value;
  if (draft.accessToken.kind === 'clear') body.access_token = '';
  return body;
}
