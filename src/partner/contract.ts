/**
 * The partner checks' plain values: the result categories and the history's limits. schema.ts
 * builds the TypeBox schemas from these, and the dashboard imports them for its own labels. No
 * imports, so the dashboard's bundle takes these values and nothing of the server.
 */

/**
 * What kind of result a connection check had: the vocabulary of last_error, the check log line
 * and the check history. Stable strings; a client may match on them.
 */
export const CHECK_CATEGORY = {
  ok: 'ok',
  /** The partner answered 401: the token is missing, wrong or expired. */
  unauthorized: 'unauthorized',
  /** The partner answered 403. */
  forbidden: 'forbidden',
  /** The partner answered 404 or 410: the URL names nothing there. */
  notFound: 'not_found',
  timeout: 'timeout',
  /** DNS, a refused or reset connection: the partner could not be reached. */
  unreachable: 'unreachable',
  tls: 'tls',
  /** The check refused to send the request: a refused address or scheme, a token bound elsewhere. */
  blocked: 'blocked',
  /** The partner answered, but not in HTTP or MCP as they are spoken. */
  protocolError: 'protocol_error',
  /** Any other HTTP error status. */
  httpError: 'http_error',
} as const;

export type CheckCategory = (typeof CHECK_CATEGORY)[keyof typeof CHECK_CATEGORY];

/** How many checks each site keeps; older ones are deleted when a new one is recorded. */
export const CHECK_HISTORY_LENGTH = 20;
/** Tool names kept per check; the count covers every tool. */
export const MAX_TOOL_NAMES = 100;
/** A server name, a version or a tool name is the partner's text: shown as data, kept this short. */
export const PARTNER_NAME_MAX_LENGTH = 128;
