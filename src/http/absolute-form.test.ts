import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { rawRequest } from '../../test/raw-http.js';
import { securityHeaders } from './security-headers.js';
import { originFormTarget } from './server.js';

// Runs once, on SQLite: it checks how the HTTP layer routes a request line, before any query.

/**
 * HTTP/1.1 lets a client name the whole URL in the request line (absolute-form, RFC 9112 3.2.2),
 * as clients talking to a proxy do. The server must treat `GET http://host/api/v1/me` exactly as
 * `GET /api/v1/me`: the same route, and above all the same `Cache-Control: no-store` on an answer
 * that carries account data. Over a raw socket, since fetch always sends origin-form.
 */

let t: TestApp;
let port: number;
let user: SignedUpUser;
before(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  user = await signUp(t.app, 'absolute-form@example.com');
});
after(async () => {
  await t.close();
});

function get(target: string, headers: Record<string, string> = {}) {
  const lines = [`GET ${target} HTTP/1.1`, 'Host: localhost:3000', 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n`);
}

function assertSecurityHeaders(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(securityHeaders({ https: false }))) assert.equal(headers[name], value, name);
}

test('the origin form of a target: path and query kept, authority dropped, anything else unchanged', () => {
  const cases: Array<[string, string]> = [
    ['http://host/api/v1/me', '/api/v1/me'],
    ['HTTPS://host:8443/auth/claim?x=1', '/auth/claim?x=1'],
    ['http://host', '/'],
    ['http://host?q=/api/v1', '/?q=/api/v1'],
    ['http://user@host/api/v1/me', '/api/v1/me'],
    ['ftp://host/api/v1/me', 'ftp://host/api/v1/me'],
    ['http://host/api#frag', 'http://host/api#frag'],
    ['*', '*'],
  ];
  for (const [target, expected] of cases) assert.equal(originFormTarget(target), expected, target);
});

describe('absolute-form request targets', () => {
  test('GET http://host/api/v1/me answers the account with Cache-Control: no-store, as the origin form does', async () => {
    for (const target of ['http://localhost:3000/api/v1/me', 'HTTP://LOCALHOST:3000/api/v1/me', 'http://another.example/api/v1/me', '/api/v1/me']) {
      const answer = await get(target, { authorization: user.bearer });
      assert.equal(answer.status, 200, `${target}: ${answer.body}`);
      assert.equal(JSON.parse(answer.body).user.email, 'absolute-form@example.com');
      assert.equal(answer.headers['cache-control'], 'no-store', target);
      assertSecurityHeaders(answer.headers);
    }
  });

  test('every /api/v1 and /auth answer in absolute form carries no-store: errors, a query string, https', async () => {
    const cases: Array<[string, number]> = [
      ['http://localhost:3000/api/v1/me', 401],
      ['http://localhost:3000/api/v1/sites?limit=5', 401],
      ['http://localhost:3000/api/v1/no-such-route', 404],
      ['http://localhost:3000/auth/claim', 303],
      ['https://localhost:3000/auth/2fa', 303],
    ];
    for (const [target, status] of cases) {
      const answer = await get(target, { accept: 'text/html' });
      assert.equal(answer.status, status, `${target}: ${answer.body}`);
      assert.equal(answer.headers['cache-control'], 'no-store', target);
      assertSecurityHeaders(answer.headers);
    }
    // An API path that does not exist stays a problem, even for a browser.
    const missing = await get('http://localhost:3000/api/v1/no-such-route', { accept: 'text/html' });
    assert.match(missing.headers['content-type'] ?? '', /^application\/problem\+json/);
    assert.match(JSON.parse(missing.body).detail, /There is no GET \/api\/v1\/no-such-route endpoint/);
  });

  test('the request line in the log names the path, as for the origin form', async () => {
    await get('http://localhost:3000/api/v1/me?from=absolute', { authorization: user.bearer });
    const line = t.logs().split('\n').find((each) => each.includes('from=absolute'));
    assert.ok(line !== undefined);
    assert.equal(JSON.parse(line).url, '/api/v1/me?from=absolute');
  });

  test('a target that is neither a path nor an http(s) URL is not mistaken for one', async () => {
    const answer = await get('ftp://localhost/api/v1/me', { authorization: user.bearer });
    assert.notEqual(answer.status, 200, answer.body);
  });
});
