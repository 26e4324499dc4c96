/**
 * How a request to another server failed below HTTP, in the categories the partner check reports
 * (partner/contract.ts names the same strings) and the webhook deliveries will.
 */
export const OUTBOUND_FAILURE = {
  blocked: 'blocked',
  unreachable: 'unreachable',
  protocolError: 'protocol_error',
} as const;
export type OutboundFailure = (typeof OUTBOUND_FAILURE)[keyof typeof OUTBOUND_FAILURE];

/**
 * A failure of the outbound guard or of the connection under it: a refused address, DNS, a
 * redirect it will not follow, an oversized body. Its message is written here, never taken from
 * the other server's answer, so callers may show it as it is.
 */
export class OutboundError extends Error {
  override name = 'OutboundError';

  constructor(
    readonly category: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}
