import { STATUS_CODES } from 'node:http';
import { PartnerCheckError, PartnerNetworkError } from './check-error.js';
import { loadedMcpSdk } from './mcp-sdk.js';

/** Removes a secret from text; applied to partner-supplied text before it is cut short. */
export type Redact = (text: string) => string;

const keepAsIs: Redact = (text) => text;

/** A Redact that replaces every occurrence of the secret. */
export function redactor(secret: string | null): Redact {
  if (secret === null || secret === '') return keepAsIs;
  return (text) => text.split(secret).join('[REDACTED]');
}

/**
 * Partner-supplied text (error messages) is shown cut short and without control characters.
 * The secret is removed first: cut first, a partner echoing the token back could leave a piece of it.
 */
export function cleanText(text: string, maxLength = 200, redact: Redact = keepAsIs): string {
  const clean = redact(text).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

export function httpStatusText(status: number): string {
  const phrase = STATUS_CODES[status];
  return phrase === undefined ? `HTTP ${status}` : `HTTP ${status} ${phrase}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "JSON-RPC error -32601: Method not found" when the text is a JSON-RPC error response. */
export function jsonRpcErrorText(body: string, redact: Redact = keepAsIs): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.slice(body.indexOf('{')));
  } catch {
    return undefined;
  }
  const error = isObject(parsed) ? parsed.error : undefined;
  if (!isObject(error) || typeof error.code !== 'number') return undefined;
  return `JSON-RPC error ${error.code}: ${cleanText(typeof error.message === 'string' ? error.message : '', 200, redact)}`;
}

/** What a person can act on, per low-level failure code. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'DNS lookup failed: no such host',
  EAI_AGAIN: 'DNS lookup failed (temporary failure)',
  HPE_INVALID_CONSTANT: 'the server did not answer with valid HTTP',
  HPE_HEADER_OVERFLOW: 'the response headers are too large',
  UND_ERR_SOCKET: 'the connection failed',
};

const TLS_ERRORS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate is in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate issuer is unknown',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not match the host name',
  CERT_REVOKED: 'the certificate has been revoked',
};

function isTlsCode(code: string): boolean {
  return TLS_ERRORS[code] !== undefined || code.startsWith('ERR_SSL_') || code === 'EPROTO';
}

/** Node's failure code ("ECONNREFUSED"); other libraries put numbers in `code`. */
function systemErrorCode(error: unknown): string {
  const code: unknown = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : '';
}

/** Whether the failure happened below HTTP (network, DNS, TLS, the address guard). */
export function isNetworkFailure(error: unknown): boolean {
  if (error instanceof PartnerNetworkError) return true;
  const code = systemErrorCode(error);
  return NETWORK_ERRORS[code] !== undefined || isTlsCode(code);
}

/**
 * One short sentence for last_error. Messages come from this module's own errors, from the MCP
 * SDK, or from Node's network stack; none of them carries request headers, so none carries the
 * access token (check.ts still scrubs it, as a second line of defence).
 */
export function describeFailure(error: unknown, redact: Redact = keepAsIs): string {
  if (error instanceof PartnerCheckError) return redact(error.message);
  const sdk = loadedMcpSdk();
  if (sdk !== undefined && error instanceof sdk.McpError) {
    if (error.code === sdk.ErrorCode.RequestTimeout) return 'no answer in time';
    return `JSON-RPC error ${error.code}: ${cleanText(error.message.replace(/^MCP error -?\d+: /, ''), 200, redact)}`;
  }
  if (sdk !== undefined && error instanceof sdk.StreamableHTTPError) {
    const detail = error.message.replace(/^Streamable HTTP error: /, '');
    if (error.code !== undefined && error.code > 0) {
      const rpc = jsonRpcErrorText(detail, redact);
      return rpc === undefined ? httpStatusText(error.code) : `${httpStatusText(error.code)}, ${rpc}`;
    }
    return cleanText(detail, 200, redact);
  }
  if (error instanceof Error) {
    const code = systemErrorCode(error);
    const network = NETWORK_ERRORS[code];
    if (network !== undefined) return network;
    const tls = TLS_ERRORS[code];
    if (tls !== undefined) return `TLS failure: ${tls}`;
    if (isTlsCode(code) || /SSL|TLS/.test(error.message)) return `TLS failure: ${cleanText(error.message, 120, redact)}`;
    if (error.name === 'ZodError') return 'the answer is not a valid MCP message';
    if (error.name === 'SyntaxError') return 'the answer is not valid JSON';
    if (error.name === 'AbortError') return 'the request was aborted';
    return cleanText(error.message, 200, redact);
  }
  return 'unexpected failure';
}
