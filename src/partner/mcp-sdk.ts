import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The parts of the MCP SDK the connection check uses. */
export interface McpSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableHTTPError;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
}

let loaded: McpSdk | undefined;

/**
 * The SDK, with zod, holds megabytes of heap, and only a check that falls back to the handshake
 * of a server older than 2026-07-28 needs it. It is loaded then, not at start-up (docs/decisions/lazy-libraries.md).
 */
export async function loadMcpSdk(): Promise<McpSdk> {
  if (loaded === undefined) {
    const [client, transport, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    loaded = {
      Client: client.Client,
      StreamableHTTPClientTransport: transport.StreamableHTTPClientTransport,
      StreamableHTTPError: transport.StreamableHTTPError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
    };
  }
  return loaded;
}

/**
 * The SDK if it has been loaded, else undefined. Its error classes can only have instances once
 * it is, so code sorting out an error needs no more than this.
 */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}
