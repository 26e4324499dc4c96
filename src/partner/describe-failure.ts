import { OutboundError } from '../outbound/errors.js';
import { CHECK_CATEGORY, categoryOfStatus, type FailureCategory, httpStatusText, PartnerCheckError } from './check-error.js';
import { loadedMcpSdk } from './mcp-sdk.js';

/** A failure in our words: its category and one short sentence. */
export interface FailureDescription {
  category: FailureCategory;
  message: string;
}

/** Removes a secret from text: the last step before last_error is stored. */
export type Redact = (text: string) => string;

const keepAsIs: Redact = (text) => text;

/**
 * A Redact that replaces every occurrence of the secret. A second line of defence only: no text
 * from the partner reaches last_error, so there is nothing for it to find in what partners say.
 */
export function redactor(secret: string | null): Redact {
  if (secret === null || secret === '') return keepAsIs;
  return (text) => text.split(secret).join('[REDACTED]');
}

/**
 * Whether text from the partner carries the secret as sent or in a common re-encoding (URL,
 * base64, base64url, hex, JSON string), in any letter case. For text that is shown as the
 * partner's (server and tool names): such text is withheld whole rather than redacted in part.
 */
export function mentionsSecret(text: string, secret: string | null): boolean {
  if (secret === null || secret === '') return false;
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [secret, encodeURIComponent(secret), bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), JSON.stringify(secret).slice(1, -1)];
  const haystack = text.toLowerCase();
  return forms.some((form) => haystack.includes(form.toLowerCase()));
}

/** Our own text, cut short and on one line, for last_error. */
export function cleanText(text: string, maxLength = 200, redact: Redact = keepAsIs): string {
  const clean = redact(text).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The meanings JSON-RPC 2.0 gives its predefined codes. */
const JSON_RPC_ERRORS: Record<number, string> = {
  [-32700]: 'parse error',
  [-32600]: 'invalid request',
  [-32601]: 'method not found',
  [-32602]: 'invalid params',
  [-32603]: 'internal error',
};

/**
 * "JSON-RPC error -32601 (method not found)". The partner's error message is never quoted. Its
 * code is, when it lies in the range JSON-RPC reserves (-32768 to -32000): such a code names a
 * kind of failure. Any other number is the server's own and could carry anything, so it is left out.
 */
export function jsonRpcErrorText(code: unknown): string {
  if (typeof code !== 'number' || !Number.isInteger(code)) return 'JSON-RPC error';
  const meaning = JSON_RPC_ERRORS[code];
  if (meaning !== undefined) return `JSON-RPC error ${code} (${meaning})`;
  if (code >= -32768 && code <= -32000) return `JSON-RPC error ${code}`;
  return 'JSON-RPC error with an application-defined code';
}

/** The error code of a JSON-RPC error response in `body`, or undefined when it is none. */
export function jsonRpcErrorCode(body: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.slice(body.indexOf('{')));
  } catch {
    return undefined;
  }
  const error = isObject(parsed) ? parsed.error : undefined;
  return isObject(error) && typeof error.code === 'number' ? error.code : undefined;
}

/** What a person can act on, per low-level failure code. */
const NETWORK_ERRORS: Record<string, FailureDescription> = {
  ECONNREFUSED: { category: CHECK_CATEGORY.unreachable, message: 'connection refused' },
  ECONNRESET: { category: CHECK_CATEGORY.unreachable, message: 'the connection was reset' },
  EPIPE: { category: CHECK_CATEGORY.unreachable, message: 'the connection was closed while sending' },
  ETIMEDOUT: { category: CHECK_CATEGORY.timeout, message: 'the connection timed out' },
  EHOSTUNREACH: { category: CHECK_CATEGORY.unreachable, message: 'host unreachable' },
  ENETUNREACH: { category: CHECK_CATEGORY.unreachable, message: 'network unreachable' },
  ENOTFOUND: { category: CHECK_CATEGORY.unreachable, message: 'DNS lookup failed: no such host' },
  EAI_AGAIN: { category: CHECK_CATEGORY.unreachable, message: 'DNS lookup failed (temporary failure)' },
  HPE_INVALID_CONSTANT: { category: CHECK_CATEGORY.protocolError, message: 'the server did not answer with valid HTTP' },
  HPE_HEADER_OVERFLOW: { category: CHECK_CATEGORY.protocolError, message: 'the response headers are too large' },
  UND_ERR_SOCKET: { category: CHECK_CATEGORY.unreachable, message: 'the connection failed' },
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
  if (error instanceof OutboundError) return true;
  const code = systemErrorCode(error);
  return NETWORK_ERRORS[code] !== undefined || isTlsCode(code);
}

/**
 * One short sentence for last_error, and its category. Every sentence is written here or where a
 * PartnerCheckError is made; an error's own message is never used unless this module's code made
 * it, because the MCP SDK's messages quote the partner's answer (error bodies, JSON-RPC error
 * messages, content types) and Node's TLS messages are not ours to vouch for.
 */
export function describeFailure(error: unknown): FailureDescription {
  // Both carry a sentence written in this code base, never the partner's text.
  if (error instanceof PartnerCheckError || error instanceof OutboundError) return { category: error.category, message: error.message };
  const sdk = loadedMcpSdk();
  if (sdk !== undefined && error instanceof sdk.McpError) {
    if (error.code === sdk.ErrorCode.RequestTimeout) return { category: CHECK_CATEGORY.timeout, message: 'no answer in time' };
    return { category: CHECK_CATEGORY.protocolError, message: jsonRpcErrorText(error.code) };
  }
  if (sdk !== undefined && error instanceof sdk.StreamableHTTPError) {
    if (error.code !== undefined && error.code > 0) {
      const rpcCode = jsonRpcErrorCode(error.message);
      const status = httpStatusText(error.code);
      return { category: categoryOfStatus(error.code), message: rpcCode === undefined ? status : `${status}, ${jsonRpcErrorText(rpcCode)}` };
    }
    // The SDK's -1: an answer that is neither JSON nor an event stream.
    if (error.code === -1) return { category: CHECK_CATEGORY.protocolError, message: 'the answer is not JSON-RPC (unexpected content type)' };
    return { category: CHECK_CATEGORY.protocolError, message: 'the MCP transport failed' };
  }
  if (error instanceof Error) {
    const code = systemErrorCode(error);
    const network = NETWORK_ERRORS[code];
    if (network !== undefined) return network;
    const tls = TLS_ERRORS[code];
    if (tls !== undefined) return { category: CHECK_CATEGORY.tls, message: `TLS failure: ${tls}` };
    if (isTlsCode(code) || /SSL|TLS/.test(error.message)) return { category: CHECK_CATEGORY.tls, message: 'TLS failure: the secure connection could not be set up' };
    if (code.startsWith('HPE_')) return { category: CHECK_CATEGORY.protocolError, message: 'the server did not answer with valid HTTP' };
    if (error.name === 'ZodError') return { category: CHECK_CATEGORY.protocolError, message: 'the answer is not a valid MCP message' };
    if (error.name === 'SyntaxError') return { category: CHECK_CATEGORY.protocolError, message: 'the answer is not valid JSON' };
    if (error.name === 'AbortError') return { category: CHECK_CATEGORY.timeout, message: 'the request was aborted' };
  }
  return { category: CHECK_CATEGORY.protocolError, message: 'the check failed in an unexpected way' };
}

/** "unauthorized: server/discover: HTTP 401 Unauthorized": a failure as last_error shows it. */
export function failureText(description: FailureDescription): string {
  return `${description.category}: ${description.message}`;
}
