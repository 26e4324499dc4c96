import { STATUS_CODES } from 'node:http';

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
export type FailureCategory = Exclude<CheckCategory, 'ok'>;

/**
 * A connection check failure whose message is fit for last_error: written here, in our words.
 * It names a status code and our own description, never text from the partner's answer (a body,
 * a reason phrase, a header, a redirect target): a partner echoing the token back in any encoding
 * would otherwise get it stored and shown.
 */
export class PartnerCheckError extends Error {
  override name = 'PartnerCheckError';

  constructor(
    readonly category: FailureCategory,
    message: string,
  ) {
    super(message);
  }
}

/** "HTTP 404 Not Found": the phrase is Node's for the code, never the partner's reason phrase. */
export function httpStatusText(status: number): string {
  const phrase = STATUS_CODES[status];
  return phrase === undefined ? `HTTP ${status}` : `HTTP ${status} ${phrase}`;
}

export function categoryOfStatus(status: number): FailureCategory {
  if (status === 401) return CHECK_CATEGORY.unauthorized;
  if (status === 403) return CHECK_CATEGORY.forbidden;
  if (status === 404 || status === 410) return CHECK_CATEGORY.notFound;
  return CHECK_CATEGORY.httpError;
}

/** A partner answer that was an HTTP error; kept apart so the MCP check can decide to fall back. */
export class PartnerHttpError extends PartnerCheckError {
  override name = 'PartnerHttpError';

  constructor(
    readonly status: number,
    message = httpStatusText(status),
  ) {
    super(categoryOfStatus(status), message);
  }
}

/**
 * A failure below HTTP: a refused address, DNS, a redirect the guard will not follow, an oversized
 * body. It says nothing about the MCP step that was under way, so it is reported without one.
 */
export class PartnerNetworkError extends PartnerCheckError {
  override name = 'PartnerNetworkError';
}
