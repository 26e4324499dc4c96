import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, signUp, type SignedUpUser, type TestApp } from '../../test/helpers.js';
import { type HttpClient, HttpClient as Client, TEST_ORIGIN } from '../../test/http.js';
import { type RawAnswer, rawRequest } from '../../test/raw-http.js';
import { RATE_LIMITS } from '../rate-limit/rate-limit.js';
import { HTTP_ERRORS } from './errors.js';
import { securityHeaders } from './security-headers.js';

// Runs once, on SQLite: what node:http answers by itself reaches no query.

/**
 * Requests node:http answers by itself unless told otherwise: HTTP/1.1 without a Host header (400),
 * an Expect it does not know (417), a CONNECT (it hangs up). Each must be a problem+json with the
 * security headers, as every other error is; and the one form that answers a limit with a page
 * (/magic/resend) answers the documented page. Over raw sockets, since fetch always sends a Host.
 */

let t: TestApp;
let port: number;
let http: HttpClient;
let user: SignedUpUser;
before(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  http = new Client(`http://127.0.0.1:${port}`);
  user = await signUp(t.app, 'protocol-errors@example.com');
});
after(async () => {
  await t.close();
});

function assertProblemWithHeaders(answer: RawAnswer, status: number, code: string, noStore: boolean): void {
  assert.equal(answer.status, status, answer.body);
  assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/);
  const body = JSON.parse(answer.body) as { status: number; code: string; detail: string };
  assert.deepEqual([body.status, body.code], [status, code]);
  assert.ok(body.detail.length > 0);
  for (const [name, value] of Object.entries(securityHeaders({ https: false }))) assert.equal(answer.headers[name], value, name);
  assert.equal(answer.headers['cache-control'], noStore ? 'no-store' : undefined);
}

describe('errors node:http would answer with an empty body', () => {
  test('HTTP/1.1 without a Host header: 400 malformed_request as problem+json, and the route never runs', async () => {
    const answer = await rawRequest(port, `GET /api/v1/me HTTP/1.1\r\nAuthorization: ${user.bearer}\r\nConnection: close\r\n\r\n`);
    assertProblemWithHeaders(answer, 400, HTTP_ERRORS.MALFORMED_REQUEST, true);
    assert.match(answer.body, /Host/);
    const elsewhere = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    assertProblemWithHeaders(elsewhere, 400, HTTP_ERRORS.MALFORMED_REQUEST, false);
    // HTTP/1.0 has no Host rule: it is answered as usual.
    const old = await rawRequest(port, `GET /api/v1/me HTTP/1.0\r\nAuthorization: ${user.bearer}\r\n\r\n`);
    assert.equal(old.status, 200, old.body);
  });

  test('an Expect other than 100-continue: 417 expectation_failed as problem+json, nothing done', async () => {
    const body = JSON.stringify({ email: 'expect@example.com', password: 'violet-harbour-cinnamon-42' });
    const request = (expect: string) =>
      `POST /auth/signup HTTP/1.1\r\nHost: localhost:3000\r\nExpect: ${expect}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    assertProblemWithHeaders(await rawRequest(port, request('something-else')), 417, HTTP_ERRORS.EXPECTATION_FAILED, true);
    assertProblemWithHeaders(await rawRequest(port, request('100-continue, something-else')), 417, HTTP_ERRORS.EXPECTATION_FAILED, true);
    assert.equal(await t.database.db.selectFrom('users').select('id').where('email', '=', 'expect@example.com').executeTakeFirst(), undefined);
    // 100-continue is understood: the request goes through.
    const continued = await rawRequest(port, request('100-continue'));
    assert.equal(continued.status, 100, 'the interim answer first');
    assert.match(continued.body, /^HTTP\/1\.1 201 Created/);
  });

  test('CONNECT (this is no proxy): 405 as problem+json, then the connection closes', async () => {
    const answer = await rawRequest(port, 'CONNECT internal.example:443 HTTP/1.1\r\nHost: internal.example:443\r\n\r\n');
    assertProblemWithHeaders(answer, 405, HTTP_ERRORS.BAD_REQUEST, true);
  });
});

describe('the page a form answers a limit with', () => {
  test('/magic/resend past its limit answers the documented 429 page: Retry-After, the page headers, no-store', async () => {
    const post = () => http.request('POST', '/magic/resend', { headers: { origin: TEST_ORIGIN }, form: { email: 'resend-limit@example.com' } });
    for (let i = 0; i < RATE_LIMITS.magicLinksPerAddress.limit; i++) assert.equal((await post()).status, 200);
    const limited = await post();
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('content-type') ?? '', /^text\/html/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(limited.headers.get('cache-control'), 'no-store');
    assert.match(limited.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(limited.headers.get('x-content-type-options'), 'nosniff');
    assert.match(limited.text, /Too many sign-in links were asked for/);
  });
});
