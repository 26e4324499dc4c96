import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

// Real HTTP servers on loopback that stand in for partner services in the connection-check tests.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  /** http://127.0.0.1:port (or the host the server listens on) */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void | Promise<void>;

/** A server on `host` whose every request (with its body) is recorded before `handler` answers. */
export async function startServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      Promise.resolve(handler(request, response, body)).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging requests and open event streams must not keep the test alive.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const LEGACY_TOOLS = ['search_articles', 'create_ticket'];

/**
 * An MCP server on the 2025-11-25 (and earlier) protocol, built with the official SDK: stateful
 * sessions, initialize handshake, Mcp-Session-Id. When `requireAuthorization` is set, any other
 * Authorization header gets 401 before MCP is reached.
 */
export async function startLegacyMcpServer(options: { requireAuthorization?: string } = {}): Promise<TestServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  return startServer(async (request, response, body) => {
    if (options.requireAuthorization !== undefined && request.headers.authorization !== options.requireAuthorization) {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const parsed: unknown = body === '' ? undefined : JSON.parse(body);
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      const isInitialize = typeof parsed === 'object' && parsed !== null && (parsed as { method?: unknown }).method === 'initialize';
      if (!isInitialize) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }),
        );
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      const server = new McpServer({ name: 'legacy-partner', version: '1.0.0' });
      for (const name of LEGACY_TOOLS) {
        server.registerTool(name, { description: `The ${name} tool` }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
      }
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response, parsed);
  });
}

export const STATELESS_TOOLS = ['search', 'fetch', 'summarise'];

/**
 * A hand-written server on protocol 2026-07-28: no handshake, server/discover and tools/list on
 * plain POSTs. It answers tools/list as an event stream, to exercise both answer forms.
 */
export async function startStatelessMcpServer(): Promise<TestServer> {
  return startServer((request, response, body) => {
    const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (request.method !== 'POST') return void json(405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null });
    const message = JSON.parse(body) as { id: number; method: string; params?: { _meta?: Record<string, unknown> } };
    if (request.headers['mcp-protocol-version'] !== '2026-07-28' || message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== '2026-07-28') {
      return void json(400, { jsonrpc: '2.0', id: message.id, error: { code: -32004, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } });
    }
    if (request.headers['mcp-method'] !== message.method) {
      return void json(400, { jsonrpc: '2.0', id: message.id, error: { code: -32001, message: 'Mcp-Method header does not match the body' } });
    }
    if (message.method === 'server/discover') {
      return void json(200, {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          serverInfo: { name: 'stateless-partner', version: '2.0.0' },
        },
      });
    }
    if (message.method === 'tools/list') {
      const tools = STATELESS_TOOLS.map((name) => ({ name, inputSchema: { type: 'object' } }));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`);
      response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', tools } })}\n\n`);
      return;
    }
    json(404, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  });
}

/** Answers every request with the status (and a small JSON body). */
export function startStatusServer(status: number, body: unknown = { error: 'nope' }, host?: string): Promise<TestServer> {
  return startServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }, host);
}

/** Accepts every request and never answers. */
export function startHangingServer(): Promise<TestServer> {
  return startServer(() => undefined);
}

/** Redirects every request to `location`. */
export function startRedirectServer(location: string, status = 307): Promise<TestServer> {
  return startServer((_request, response) => {
    response.writeHead(status, { location }).end();
  });
}
