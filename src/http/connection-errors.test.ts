import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, signUp, type TestApp } from '../../test/helpers.js';
import { securityHeaders } from './security-headers.js';

// Runs once, on SQLite: what node:http and Fastify answer before routing reaches no query.

// What node:http meets before Fastify has a request (a request line or headers it cannot parse,
// headers too large, a request that does not arrive in time) and what Fastify meets before routing
// (a URL that does not decode), over raw sockets: each is a problem+json with the security headers.

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection within the wait. */
  closed: boolean;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

function parse(text: string, closed: boolean, closedAfterMs: number): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: end === -1 ? '' : text.slice(end + 4), closed, closedAfterMs };
}

/**
 * Sends `chunks` on a new connection, `gapMs` apart (the first at once), and collects what comes
 * back until the server closes the connection or `waitMs` has passed.
 */
function exchange(port: number, chunks: string[], options: { gapMs?: number; waitMs?: number } = {}): Promise<RawAnswer> {
  const { gapMs = 0, waitMs = 5_000 } = options;
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let sent = 0;
    const sender = setInterval(() => {
      if (sent < chunks.length && socket.writable) socket.write(chunks[sent++] ?? '');
    }, Math.max(gapMs, 1));
    const finish = (closed: boolean) => {
      clearInterval(sender);
      clearTimeout(deadline);
      socket.destroy();
      resolve(parse(text, closed, Date.now() - startedAt));
    };
    const deadline = setTimeout(() => finish(false), waitMs);
    socket.on('connect', () => {
      if (sent < chunks.length) socket.write(chunks[sent++] ?? '');
    });
    socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
    // The server may close while a chunk is still on its way: a reset counts as closed.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

const SECURITY_HEADERS = securityHeaders({ https: false });

function assertProblem(answer: RawAnswer, status: number, code: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer));
  assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8');
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(answer.headers[name], value, name);
  assert.equal(answer.headers['cache-control'], 'no-store');
  const body = JSON.parse(answer.body) as { status: number; code: string; type: string; title: string; detail: string };
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.type, 'about:blank');
  assert.equal(typeof body.detail, 'string');
}

describe('errors before a request reaches a route', () => {
  let t: TestApp;
  let port: number;

  before(async () => {
    // Short limits, so that a late request is cut off within the test's patience.
    t = await buildTestApp({ httpLimits: { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });

  after(async () => {
    await t.close();
  });

  test('a URL whose percent-escape does not decode is a 400 problem with the security headers', async () => {
    const user = await signUp(t.app);
    for (const url of ['/api/v1/sites/%ff', '/api/v1/sites/%E0%A4%A']) {
      const answer = await exchange(port, [`GET ${url} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.bearer}\r\nConnection: close\r\n\r\n`]);
      assertProblem(answer, 400, 'bad_url');
    }
  });

  test('a request line or header node:http cannot parse is a 400 problem, and the connection closes', async () => {
    for (const request of ['NOT HTTP AT ALL\r\n\r\n', 'GET /api/v1/sites HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n', 'GET /api/v1/sites HTTP/1.1\r\nHost: localhost\r\nContent-Length: x\r\n\r\n']) {
      const answer = await exchange(port, [request]);
      assertProblem(answer, 400, 'malformed_request');
      assert.equal(answer.headers.connection, 'close');
      assert.equal(answer.closed, true);
    }
  });

  test('headers past the size limit are a 431 problem, and the connection closes', async () => {
    const answer = await exchange(port, [`GET /api/v1/sites HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`]);
    assertProblem(answer, 431, 'headers_too_large');
    assert.equal(answer.headers.connection, 'close');
    assert.equal(answer.closed, true);
  });

  test('a body that stalls is cut off with a 408 problem, on every slow connection at once', async () => {
    const head = 'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    // One byte every 300 ms: ten of them would take three seconds, three times the limit.
    const slowBody = [head, ...'{"email":"'.split('')];
    const answers = await Promise.all(Array.from({ length: 6 }, () => exchange(port, slowBody, { gapMs: 300, waitMs: 5_000 })));
    for (const answer of answers) {
      assertProblem(answer, 408, 'request_timeout');
      assert.equal(answer.headers.connection, 'close');
      assert.equal(answer.closed, true);
      // The limit, plus at most a quarter of it until the next check, plus scheduling slack.
      assert.ok(answer.closedAfterMs < 2_500, `closed after ${answer.closedAfterMs} ms`);
    }
  });

  test('headers that stall are cut off with a 408 problem', async () => {
    const slowHeaders = ['GET /api/v1/sites HTTP/1.1\r\n', 'Host: localhost\r\n', 'X-A: 1\r\n', 'X-B: 1\r\n', 'X-C: 1\r\n', 'X-D: 1\r\n', 'X-E: 1\r\n', 'X-F: 1\r\n'];
    const answer = await exchange(port, slowHeaders, { gapMs: 400, waitMs: 5_000 });
    assertProblem(answer, 408, 'request_timeout');
    assert.equal(answer.closed, true);
    assert.ok(answer.closedAfterMs < 2_500, `closed after ${answer.closedAfterMs} ms`);
  });

  test('a connection that never sends a byte is closed after the idle limit', async () => {
    const idle = await buildTestApp({ httpLimits: { idleTimeoutMs: 500 } });
    try {
      await idle.app.listen({ host: '127.0.0.1', port: 0 });
      const answer = await exchange((idle.app.server.address() as AddressInfo).port, [], { waitMs: 5_000 });
      assert.equal(answer.closed, true);
      assert.ok(answer.closedAfterMs < 2_000, `closed after ${answer.closedAfterMs} ms`);
    } finally {
      await idle.close();
    }
  });
});
