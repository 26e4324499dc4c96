import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CHECK_CATEGORY, httpStatusText, PartnerCheckError, PartnerHttpError } from './check-error.js';
import { describeFailure, isNetworkFailure, jsonRpcErrorCode, jsonRpcErrorText } from './describe-failure.js';
import type { FetchLike } from '../outbound/guarded-fetch.js';
import { MAX_TOOL_NAMES } from './contract.js';
import { loadMcpSdk } from './mcp-sdk.js';

/**
 * The MCP part of the connection check, over Streamable HTTP.
 *
 * Protocol 2026-07-28 is stateless: no handshake, every request carries its protocol version in
 * `_meta` and in the MCP-Protocol-Version header, and `server/discover` tells which versions the
 * server speaks. The SDK we use (1.x) predates it, so those two requests are made here by hand.
 * Servers on 2025-11-25 and earlier need the initialize → notifications/initialized → tools/list
 * handshake with Mcp-Session-Id, which the SDK's Client does. The newer protocol is tried first;
 * an answer that shows an older server (400, 404 or 405, a JSON-RPC error, or no JSON-RPC at all)
 * falls back to the handshake. Authentication failures, timeouts and refused addresses do not:
 * the handshake would only fail the same way.
 */

export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'siteward-partner-check', version: '1.0.0' };
/** Enough pages for any real server; a server paging forever does not keep the check busy. */
const MAX_TOOL_PAGES = 50;
/** A polite session DELETE at the end may take this long before the check moves on. */
const SESSION_END_GRACE_MS = 1000;

/** The server's own name and version, as it sent them (unchecked text: the caller cleans it). */
export interface McpServerInfo {
  name: string;
  version: string;
}

/** How far the MCP check got: filled in step by step, so a failed check still tells what it learnt. */
export interface McpProgress {
  protocolVersion: string | null;
  server: McpServerInfo | null;
}

export interface McpCheckResult extends McpProgress {
  protocolVersion: string;
  toolCount: number;
  /** The first MAX_TOOL_NAMES tool names, as the server sent them (unchecked text). */
  toolNames: string[];
}

export interface McpCheckOptions {
  fetch: FetchLike;
  /** The Authorization header value, or undefined for auth_type "none". */
  authorization: string | undefined;
  /** The check's deadline. */
  signal: AbortSignal;
  timeoutMs: number;
  /** Written as the check learns the protocol version and the server's name. */
  progress: McpProgress;
}

export async function checkMcpServer(url: string, options: McpCheckOptions): Promise<McpCheckResult> {
  const stateless = await checkStateless(url, options);
  if ('protocolVersion' in stateless) return stateless;
  try {
    return await checkWithHandshake(url, options);
  } catch (error) {
    // Both attempts failed: say why each did, the handshake's reason (and category) first.
    const reason = describeFailure(error);
    throw new PartnerCheckError(reason.category, `${reason.message}; ${stateless.fallbackReason}`);
  }
}

/** A JSON-RPC error answer, or an answer that is not JSON-RPC at all. */
class NotStatelessAnswer extends PartnerCheckError {
  override name = 'NotStatelessAnswer';

  constructor(message: string) {
    super(CHECK_CATEGORY.protocolError, message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names the MCP step that failed, unless the failure lies below HTTP and the step says nothing. */
function stepError(step: string, error: unknown): PartnerCheckError {
  const { category, message } = describeFailure(error);
  return new PartnerCheckError(category, isNetworkFailure(error) ? message : `${step}: ${message}`);
}

/** Whether a failed server/discover shows a server that predates 2026-07-28. */
function signalsOlderServer(error: unknown): boolean {
  if (error instanceof PartnerHttpError) return [400, 404, 405, 406, 415].includes(error.status);
  return error instanceof NotStatelessAnswer;
}

async function checkStateless(url: string, options: McpCheckOptions): Promise<McpCheckResult | { fallbackReason: string }> {
  let discovered: Record<string, unknown>;
  try {
    discovered = await statelessRequest(url, 'server/discover', {}, options);
  } catch (error) {
    if (signalsOlderServer(error)) return { fallbackReason: `server/discover: ${describeFailure(error).message}` };
    throw stepError('server/discover', error);
  }
  const versions = discovered.supportedVersions;
  if (!Array.isArray(versions) || !versions.includes(STATELESS_PROTOCOL_VERSION)) {
    return { fallbackReason: `server/discover: ${STATELESS_PROTOCOL_VERSION} is not among the supported versions` };
  }
  options.progress.protocolVersion = STATELESS_PROTOCOL_VERSION;
  options.progress.server = serverInfoOf(discovered.serverInfo);
  let toolCount = 0;
  const toolNames: string[] = [];
  const capabilities = discovered.capabilities;
  if (isObject(capabilities) && capabilities.tools !== undefined) {
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await statelessRequest(url, 'tools/list', cursor === undefined ? {} : { cursor }, options);
        if (!Array.isArray(result.tools)) throw new PartnerCheckError(CHECK_CATEGORY.protocolError, 'the answer has no tools list');
        toolCount += result.tools.length;
        collectToolNames(toolNames, result.tools);
        cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
        if (cursor === undefined) break;
      }
    } catch (error) {
      throw stepError('tools/list', error);
    }
  }
  return { protocolVersion: STATELESS_PROTOCOL_VERSION, server: options.progress.server, toolCount, toolNames };
}

/** The `{name, version}` of an initialize result's serverInfo or a server/discover answer, when it has them. */
function serverInfoOf(value: unknown): McpServerInfo | null {
  if (!isObject(value) || typeof value.name !== 'string') return null;
  return { name: value.name, version: typeof value.version === 'string' ? value.version : '' };
}

/** Adds the names of a tools/list page, up to MAX_TOOL_NAMES in all; a tool without a string name is counted but not named. */
function collectToolNames(names: string[], tools: readonly unknown[]): void {
  for (const tool of tools) {
    if (names.length >= MAX_TOOL_NAMES) return;
    if (isObject(tool) && typeof tool.name === 'string') names.push(tool.name);
  }
}

let nextRequestId = 1;

/** One stateless JSON-RPC request; resolves to its result, throws on any kind of failure. */
async function statelessRequest(url: string, method: string, params: Record<string, unknown>, options: McpCheckOptions): Promise<Record<string, unknown>> {
  const id = nextRequestId++;
  const message = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': STATELESS_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      },
    },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': STATELESS_PROTOCOL_VERSION,
    'mcp-method': method,
  };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const response = await options.fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });

  if (!response.ok) {
    const rpcCode = jsonRpcErrorCode(await response.text().catch(() => ''));
    const status = httpStatusText(response.status);
    throw new PartnerHttpError(response.status, rpcCode === undefined ? status : `${status}, ${jsonRpcErrorText(rpcCode)}`);
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  let answer: unknown;
  if (mediaType === 'application/json') {
    const text = await response.text();
    try {
      answer = JSON.parse(text);
    } catch {
      throw new NotStatelessAnswer('the answer is not valid JSON');
    }
  } else if (mediaType === 'text/event-stream') {
    answer = await readEventStreamAnswer(response, id);
  } else {
    await response.body?.cancel();
    // The content type is the partner's text: it is not quoted.
    throw new NotStatelessAnswer(`the answer is not JSON-RPC (${mediaType === '' ? 'no content type' : 'unexpected content type'})`);
  }
  if (!isObject(answer) || answer.jsonrpc !== '2.0' || answer.id !== id) throw new NotStatelessAnswer('the answer is not a JSON-RPC response');
  if (answer.error !== undefined) {
    throw new NotStatelessAnswer(isObject(answer.error) ? jsonRpcErrorText(answer.error.code) : 'the answer is a malformed JSON-RPC error');
  }
  if (!isObject(answer.result)) throw new NotStatelessAnswer('the answer has no result');
  return answer.result;
}

/** Reads server-sent events until the response to `id` arrives; the server may send others first. */
async function readEventStreamAnswer(response: Response, id: number): Promise<unknown> {
  if (response.body === null) throw new NotStatelessAnswer('the event stream is empty');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer = (buffer + value).replace(/\r\n?/g, '\n');
      for (let boundary = buffer.indexOf('\n\n'); boundary !== -1; boundary = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        let message: unknown;
        try {
          message = JSON.parse(data);
        } catch {
          continue;
        }
        if (isObject(message) && message.id === id && ('result' in message || 'error' in message)) return message;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  throw new NotStatelessAnswer('the event stream ended without an answer');
}

/** The 2025-11-25-and-earlier handshake, through the SDK's Client and transport. */
async function checkWithHandshake(url: string, options: McpCheckOptions): Promise<McpCheckResult> {
  const { Client, StreamableHTTPClientTransport } = await loadMcpSdk();
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    // Every request, redirects included, goes through the guarded fetch, which re-checks each hop.
    fetch: options.fetch,
    redirectPolicy: 'follow',
    requestInit: options.authorization === undefined ? {} : { headers: { authorization: options.authorization } },
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const requestOptions = { signal: options.signal, timeout: options.timeoutMs };
  let step = 'initialize';
  try {
    await client.connect(transport, requestOptions);
    const protocolVersion = transport.protocolVersion ?? 'unknown';
    options.progress.protocolVersion = protocolVersion;
    options.progress.server = serverInfoOf(client.getServerVersion());
    step = 'tools/list';
    let toolCount = 0;
    const toolNames: string[] = [];
    if (client.getServerCapabilities()?.tools !== undefined) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? undefined : { cursor }, requestOptions);
        toolCount += result.tools.length;
        collectToolNames(toolNames, result.tools);
        cursor = result.nextCursor;
        if (cursor === undefined || cursor === '') break;
      }
    }
    return { protocolVersion, server: options.progress.server, toolCount, toolNames };
  } catch (error) {
    throw stepError(step, error);
  } finally {
    await endSession(transport);
    await client.close().catch(() => undefined);
  }
}

/** Ends the server-side session (DELETE), waiting briefly: the check's result does not depend on it. */
async function endSession(transport: StreamableHTTPClientTransport): Promise<void> {
  if (transport.sessionId === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SESSION_END_GRACE_MS);
  });
  await Promise.race([transport.terminateSession().catch(() => undefined), grace]);
  clearTimeout(timer);
}
