import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './wait.js';

/** A webhook request as a receiver got it. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** What the receiver does with a request: answer with a status (and maybe a Location), or never answer. */
export type ReceiverAnswer = number | { status: number; location: string } | 'hang';

export interface TestReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests have arrived; fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** An HTTP server on loopback that records every request and answers as `answer` says. */
export async function startReceiver(answer: (request: ReceivedWebhook, index: number) => ReceiverAnswer = () => 204): Promise<TestReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      let json: ReceivedWebhook['json'];
      try {
        json = JSON.parse(body) as ReceivedWebhook['json'];
      } catch {
        json = { type: '', timestamp: '', data: {} };
      }
      const entry = { headers, body, json };
      received.push(entry);
      const what = answer(entry, received.length - 1);
      if (what === 'hang') return;
      if (typeof what === 'number') response.writeHead(what).end();
      else response.writeHead(what.status, { location: what.location }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(count, timeoutMs = 15_000) {
      await until(() => received.length >= count, () => `${count} requests; the receiver got ${received.length}`, { timeoutMs });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
