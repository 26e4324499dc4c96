/**
 * A connection check failure whose message is already fit for last_error: short, specific, and
 * free of secrets (it names hosts and status codes, never headers, tokens or full URLs).
 */
export class PartnerCheckError extends Error {
  override name = 'PartnerCheckError';
}

/** A partner answer that was an HTTP error; kept apart so the MCP check can decide to fall back. */
export class PartnerHttpError extends PartnerCheckError {
  override name = 'PartnerHttpError';

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A failure below HTTP: a refused address, DNS, a redirect the guard will not follow, an oversized
 * body. It says nothing about the MCP step that was under way, so it is reported without one.
 */
export class PartnerNetworkError extends PartnerCheckError {
  override name = 'PartnerNetworkError';
}
