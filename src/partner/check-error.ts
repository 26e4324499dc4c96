import { STATUS_CODES } from 'node:http';
import { CHECK_CATEGORY, type CheckCategory } from './contract.js';

export { CHECK_CATEGORY, type CheckCategory } from './contract.js';

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
