import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The HTTP/1.1 server Fastify makes for itself (same options and timeouts), with one difference:
 * `first` sees each request before Fastify, and Fastify gets every request it did not answer.
 */
export function createHttpServer(
  options: Record<string, unknown>,
  fastify: Listener,
  first: (request: IncomingMessage, response: ServerResponse) => boolean,
): Server {
  const http = options.http;
  const server = createServer(typeof http === 'object' && http !== null ? http : {}, (request, response) => {
    if (!first(request, response)) fastify(request, response);
  });
  server.keepAliveTimeout = numberOption(options, 'keepAliveTimeout');
  server.requestTimeout = numberOption(options, 'requestTimeout');
  server.setTimeout(numberOption(options, 'connectionTimeout'));
  const maxRequestsPerSocket = numberOption(options, 'maxRequestsPerSocket');
  if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
  return server;
}

/** Fastify fills in every one of these before it calls the factory. */
function numberOption(options: Record<string, unknown>, name: string): number {
  const value = options[name];
  if (typeof value !== 'number') throw new TypeError(`Fastify passed no number for ${name}`);
  return value;
}
