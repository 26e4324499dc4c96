import { createServer, type Server } from 'node:http';
import type { Metrics } from './metrics.js';

/** The route pattern the public path's fast path answers (src/delivery/fast-path.ts), as its requests are counted. */
export const PUBLIC_CONFIG_ROUTE = '/public/v1/sites/:public_key';

/**
 * The metrics listener: GET /metrics answers the Prometheus text format, anything else 404. Its
 * own port, so the public one never shows what the service is doing; bind it where only the
 * monitoring system reaches (HOST, like the app's own listener).
 */
export function createMetricsServer(metrics: Metrics): Server {
  return createServer((request, response) => {
    if (request.url !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(503, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
}

export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
