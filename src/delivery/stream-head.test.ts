import assert from 'node:assert/strict';
import { createServer, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { rawRequest } from '../../test/raw-http.js';
import { writeStreamHead } from './streams.js';

// Runs once, on SQLite: no database is opened; what is checked is Node's HTTP head on a socket.

const HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  'access-control-allow-origin': '*',
  'x-content-type-options': 'nosniff',
};

/** The raw head a server sends when `write` writes it, then one event, then ends. */
async function headSentBy(write: (response: ServerResponse) => void): Promise<{ head: string; sent: boolean }> {
  let sent = false;
  const server = createServer((_request, response) => {
    response.sendDate = false;
    write(response);
    sent = response.headersSent;
    response.end('data: 1\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await rawRequest(port, 'GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    assert.equal(answer.status, 200);
    assert.match(answer.body, /data: 1/);
    return { head: JSON.stringify(answer.headers), sent };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test("an event stream's head, kept flat, is sent exactly as Node's own writeHead sends it", async () => {
  const ours = await headSentBy((response) => writeStreamHead(response, HEADERS));
  const nodes = await headSentBy((response) => response.writeHead(200, HEADERS));
  assert.equal(ours.head, nodes.head);
  assert.equal(ours.sent, nodes.sent, 'headersSent reads the kept head the same way');
});
