import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { buildTestApp, createAccessToken, createSite, type SignedUpUser, signUp, type TestApp, type TestAppOptions } from '../../test/helpers.js';
import { until } from '../../test/wait.js';
import {
  startHangingServer,
  startServer,
  startLegacyMcpServer,
  startRedirectServer,
  startStatelessMcpServer,
  startStatusServer,
  type TestServer,
} from '../../test/partner-servers.js';

// Route tests for POST /api/v1/sites/{id}/partner/check against real partner servers on loopback.
// Loopback is a private address, so these apps run with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true,
// except where the refusal itself is under test.

const PARTNER_TOKEN = 'partner-secret-4f9a7c2e1b';

let t: TestApp | undefined;
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await t?.close();
  t = undefined;
});

async function setup(options: TestAppOptions = { env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } }): Promise<{ app: TestApp; owner: SignedUpUser }> {
  t = await buildTestApp(options);
  return { app: t, owner: await signUp(t.app) };
}

async function serve(server: Promise<TestServer>): Promise<TestServer> {
  const started = await server;
  servers.push(started);
  return started;
}

async function siteWith(app: TestApp, owner: SignedUpUser, partner: Record<string, unknown>): Promise<string> {
  const site = await createSite(app.app, owner.bearer, { name: 'Help centre', partner_settings: { enabled: true, ...partner } });
  return site.id;
}

interface PartnerJson {
  last_status: string;
  last_error: string | null;
  last_checked_at: string | null;
  [field: string]: unknown;
}

async function check(app: TestApp, authorization: string, siteId: string) {
  const response = await app.app.inject({ method: 'POST', url: `/api/v1/sites/${siteId}/partner/check`, headers: { authorization } });
  return { response, partner: response.statusCode === 200 ? response.json<{ site: { partner_settings: PartnerJson } }>().site.partner_settings : undefined };
}

/** The "partner check" log lines, parsed. */
function checkLogs(app: TestApp): Array<{ site_id: string; partner_check: Record<string, unknown> }> {
  return app
    .logs()
    .split('\n')
    .filter((line) => line.includes('"partner check"'))
    .map((line) => JSON.parse(line) as { site_id: string; partner_check: Record<string, unknown> });
}

test('an MCP server on the 2025-11-25 handshake (the SDK server) checks ok, and the log names the version and tool count', async () => {
  const { app, owner } = await setup();
  const mcp = await serve(startLegacyMcpServer({ requireAuthorization: `Bearer ${PARTNER_TOKEN}` }));
  const siteId = await siteWith(app, owner, { mcp_url: `${mcp.url}/mcp`, auth_type: 'bearer', access_token: PARTNER_TOKEN });

  const { response, partner } = await check(app, owner.bearer, siteId);

  assert.equal(response.statusCode, 200);
  assert.equal(partner?.last_status, 'ok');
  assert.equal(partner?.last_error, null);
  assert.equal(partner?.last_checked_at, app.clock.now().toISOString());
  assert.match(String(response.headers.etag), /^"\d+"$/);
  const methods = mcp.requests.map((request) => `${request.method} ${(JSON.parse(request.body || '{}') as { method?: string }).method ?? ''}`.trim());
  // The newer protocol is tried first, refused (400), then the handshake follows.
  assert.equal(methods[0], 'POST server/discover');
  assert.ok(methods.includes('POST initialize'));
  assert.ok(methods.includes('POST notifications/initialized'));
  assert.ok(methods.includes('POST tools/list'));
  const toolsList = mcp.requests.find((request) => request.body.includes('"tools/list"'));
  assert.equal(typeof toolsList?.headers['mcp-session-id'], 'string');
  const [logged] = checkLogs(app);
  assert.equal(logged?.site_id, siteId);
  assert.equal(logged?.partner_check.protocol_version, '2025-11-25');
  assert.equal(logged?.partner_check.tool_count, 2);
  assert.equal(logged?.partner_check.summary, 'MCP protocol 2025-11-25, 2 tools');
  assert.ok(!app.logs().includes(PARTNER_TOKEN));
  assert.ok(!response.body.includes(PARTNER_TOKEN));
});

test('an MCP server on protocol 2026-07-28 checks ok with server/discover and no handshake', async () => {
  const { app, owner } = await setup();
  const mcp = await serve(startStatelessMcpServer());
  const siteId = await siteWith(app, owner, { mcp_url: mcp.url, auth_type: 'none' });

  const { partner } = await check(app, owner.bearer, siteId);

  assert.equal(partner?.last_status, 'ok');
  assert.equal(partner?.last_error, null);
  assert.deepEqual(
    mcp.requests.map((request) => [request.headers['mcp-method'], request.headers['mcp-protocol-version']]),
    [
      ['server/discover', '2026-07-28'],
      ['tools/list', '2026-07-28'],
    ],
  );
  assert.ok(!mcp.requests.some((request) => request.body.includes('"initialize"')));
  assert.equal(mcp.requests[0]?.headers.authorization, undefined);
  const [logged] = checkLogs(app);
  assert.equal(logged?.partner_check.protocol_version, '2026-07-28');
  assert.equal(logged?.partner_check.tool_count, 3);
});

test('the access token is sent with the scheme auth_type names, and never appears in the response, last_error or the logs', async () => {
  const { app, owner } = await setup();
  for (const [authType, expected] of [
    ['bearer', `Bearer ${PARTNER_TOKEN}`],
    ['token', `Token ${PARTNER_TOKEN}`],
    ['none', undefined],
  ] as const) {
    // The server echoes the header back in its error, as a careless partner might.
    const mcp = await serve(startStatusServer(401, { jsonrpc: '2.0', id: 1, error: { code: -32001, message: `bad credential ${PARTNER_TOKEN}` } }));
    const siteId = await siteWith(app, owner, { mcp_url: mcp.url, auth_type: authType, access_token: PARTNER_TOKEN });
    const { response, partner } = await check(app, owner.bearer, siteId);
    assert.equal(mcp.requests[0]?.headers.authorization, expected, authType);
    assert.equal(partner?.last_status, 'error');
    assert.match(partner?.last_error ?? '', /401/);
    assert.ok(!response.body.includes(PARTNER_TOKEN), `response for ${authType}`);
    assert.ok(!(partner?.last_error ?? '').includes(PARTNER_TOKEN));
  }
  assert.ok(!app.logs().includes(PARTNER_TOKEN));
});

test('a 401 from the partner is an error naming the status, and the handshake is not tried', async () => {
  const { app, owner } = await setup();
  const mcp = await serve(startStatusServer(401));
  const siteId = await siteWith(app, owner, { mcp_url: mcp.url, auth_type: 'bearer', access_token: PARTNER_TOKEN });

  const { partner } = await check(app, owner.bearer, siteId);

  assert.equal(partner?.last_status, 'error');
  assert.equal(partner?.last_error, 'mcp_url: unauthorized: server/discover: HTTP 401 Unauthorized');
  assert.equal(mcp.requests.length, 1);
});

test('a partner that never answers times out by the configured deadline', async () => {
  const { app, owner } = await setup({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PARTNER_CHECK_TIMEOUT_MS: '300' } });
  const hanging = await serve(startHangingServer());
  const siteId = await siteWith(app, owner, { base_url: hanging.url, mcp_url: `${hanging.url}/mcp`, auth_type: 'none' });

  const started = performance.now();
  const { partner } = await check(app, owner.bearer, siteId);

  assert.equal(partner?.last_status, 'error');
  assert.equal(partner?.last_error, 'base_url: timeout: no answer within 300 ms; mcp_url: timeout: no answer within 300 ms');
  assert.ok(performance.now() - started < 3000);
});

test('a redirect to the cloud metadata address is refused, even with private networks allowed', async () => {
  const { app, owner } = await setup();
  const redirect = await serve(startRedirectServer('http://169.254.169.254/latest/meta-data/'));
  const siteId = await siteWith(app, owner, { base_url: redirect.url, auth_type: 'none' });

  const { partner } = await check(app, owner.bearer, siteId);

  assert.equal(partner?.last_status, 'error');
  assert.equal(partner?.last_error, 'base_url: blocked: a redirect led to a refused address: cloud metadata address');
});

test('with the default configuration a loopback partner is refused and receives no request', async () => {
  const { app, owner } = await setup({});
  const mcp = await serve(startLegacyMcpServer());
  const siteId = await siteWith(app, owner, { base_url: `http://localhost:${mcp.port}/`, mcp_url: `${mcp.url}/mcp`, auth_type: 'none' });

  const { partner } = await check(app, owner.bearer, siteId);

  assert.equal(partner?.last_status, 'error');
  assert.match(partner?.last_error ?? '', /^base_url: blocked: refused to connect to localhost \((127\.0\.0\.1|::1)\): loopback address/);
  assert.match(partner?.last_error ?? '', /mcp_url: blocked: refused to connect to 127\.0\.0\.1: loopback address \(not allowed on this server; its administrator can allow private networks\)/);
  assert.equal(mcp.requests.length, 0);
});

test('base_url counts as reachable below HTTP 500 and as an error from 500 on', async () => {
  const { app, owner } = await setup();
  const notFound = await serve(startStatusServer(404));
  const broken = await serve(startStatusServer(503));
  const reachable = await siteWith(app, owner, { base_url: notFound.url, auth_type: 'bearer', access_token: PARTNER_TOKEN });
  const unreachable = await siteWith(app, owner, { base_url: broken.url, auth_type: 'none' });

  assert.equal((await check(app, owner.bearer, reachable)).partner?.last_status, 'ok');
  // base_url gets no credential: only the MCP endpoint is known to be where the token belongs.
  assert.equal(notFound.requests[0]?.headers.authorization, undefined);
  const failed = await check(app, owner.bearer, unreachable);
  assert.equal(failed.partner?.last_status, 'error');
  assert.equal(failed.partner?.last_error, 'base_url: http_error: HTTP 503 Service Unavailable');
});

test('a site with nothing to check, or a token auth_type without a token, records a clear error', async () => {
  const { app, owner } = await setup();
  const empty = await siteWith(app, owner, {});
  const mcp = await serve(startStatelessMcpServer());
  const tokenless = await siteWith(app, owner, { mcp_url: mcp.url, auth_type: 'token' });

  assert.equal((await check(app, owner.bearer, empty)).partner?.last_error, 'nothing to check: set base_url or mcp_url');
  assert.equal((await check(app, owner.bearer, tokenless)).partner?.last_error, 'auth_type is "token" but no access_token is stored');
  assert.equal(mcp.requests.length, 0);
});

test('the result is stored: a later GET shows it, and a new check replaces it', async () => {
  const { app, owner } = await setup();
  const mcp = await serve(startStatusServer(500));
  const siteId = await siteWith(app, owner, { mcp_url: mcp.url, auth_type: 'none' });
  const before = await app.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: owner.bearer } });

  const checked = await check(app, owner.bearer, siteId);
  const read = await app.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization: owner.bearer } });

  const stored = read.json<{ site: { partner_settings: PartnerJson; updated_at: string } }>().site;
  assert.equal(stored.partner_settings.last_status, 'error');
  assert.equal(stored.partner_settings.last_error, 'mcp_url: http_error: server/discover: HTTP 500 Internal Server Error');
  assert.equal(stored.partner_settings.last_checked_at, app.clock.now().toISOString());
  assert.equal(read.headers.etag, checked.response.headers.etag);
  // The representation changed, so the ETag did; updated_at records configuration changes only.
  assert.notEqual(read.headers.etag, before.headers.etag);
  assert.equal(stored.updated_at, before.json<{ site: { updated_at: string } }>().site.updated_at);

  const fixed = await serve(startStatelessMcpServer());
  app.clock.advance(5000);
  await app.app.inject({ method: 'PUT', url: `/api/v1/sites/${siteId}`, headers: { authorization: owner.bearer }, payload: { partner_settings: { mcp_url: fixed.url } } });
  const again = await check(app, owner.bearer, siteId);
  assert.equal(again.partner?.last_status, 'ok');
  assert.equal(again.partner?.last_error, null);
  assert.equal(again.partner?.last_checked_at, app.clock.now().toISOString());
});

test('a PUT that lands while a check runs is kept: the check merges only its own three fields', async () => {
  const { app, owner } = await setup({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PARTNER_CHECK_TIMEOUT_MS: '300' } });
  const hanging = await serve(startHangingServer());
  const siteId = await siteWith(app, owner, { mcp_url: hanging.url, auth_type: 'none' });

  const running = check(app, owner.bearer, siteId);
  await until(() => hanging.requests.length > 0, 'the check to reach the partner');
  const put = await app.app.inject({
    method: 'PUT',
    url: `/api/v1/sites/${siteId}`,
    headers: { authorization: owner.bearer },
    payload: { name: 'Renamed meanwhile', partner_settings: { collections: ['faq'] } },
  });
  assert.equal(put.statusCode, 200);
  const { response } = await running;

  const site = response.json<{ site: { name: string; partner_settings: PartnerJson } }>().site;
  assert.equal(site.name, 'Renamed meanwhile');
  assert.deepEqual(site.partner_settings.collections, ['faq']);
  assert.equal(site.partner_settings.last_status, 'error');
});

test('checks are limited to 10 per site per minute, then 429 with Retry-After', async () => {
  const { app, owner } = await setup();
  const siteId = await siteWith(app, owner, {});
  for (let attempt = 0; attempt < 10; attempt++) assert.equal((await check(app, owner.bearer, siteId)).response.statusCode, 200);

  const limited = await check(app, owner.bearer, siteId);
  assert.equal(limited.response.statusCode, 429);
  assert.equal(limited.response.json<{ code: string }>().code, 'rate_limited');
  assert.equal(limited.response.headers['retry-after'], '60');
  // Another site of the same user is not held up by this one's limit.
  assert.equal((await check(app, owner.bearer, await siteWith(app, owner, {}))).response.statusCode, 200);

  app.clock.advance(60_000);
  assert.equal((await check(app, owner.bearer, siteId)).response.statusCode, 200);
});

test("another user's site is 404 site_not_found, and nothing is checked", async () => {
  const { app, owner } = await setup();
  const mcp = await serve(startStatelessMcpServer());
  const siteId = await siteWith(app, owner, { mcp_url: mcp.url, auth_type: 'none' });
  const stranger = await signUp(app.app);

  const { response } = await check(app, stranger.bearer, siteId);

  assert.equal(response.statusCode, 404);
  assert.equal(response.json<{ code: string }>().code, 'site_not_found');
  assert.equal(mcp.requests.length, 0);
});

test('an access token with only sites:read gets 403; one with sites:write may check', async () => {
  const { app, owner } = await setup();
  const siteId = await siteWith(app, owner, {});
  const readOnly = await createAccessToken(app.app, owner, ['sites:read']);
  const writer = await createAccessToken(app.app, owner, ['sites:write']);

  const refused = await check(app, readOnly.header, siteId);
  assert.equal(refused.response.statusCode, 403);
  assert.equal(refused.response.json<{ code: string }>().code, 'insufficient_scope');
  assert.equal((await check(app, writer.header, siteId)).response.statusCode, 200);

  const anonymous = await app.app.inject({ method: 'POST', url: `/api/v1/sites/${siteId}/partner/check` });
  assert.equal(anonymous.statusCode, 401);
});

/** The token as a careless partner might echo it: as sent, and in every common re-encoding. */
function echoedForms(token: string): string[] {
  return [
    token,
    encodeURIComponent(token),
    token.toLowerCase(),
    token.toUpperCase(),
    Buffer.from(token).toString('base64'),
    Buffer.from(token).toString('base64url'),
    Buffer.from(token).toString('hex'),
    JSON.stringify(token).slice(1, -1),
  ];
}

/** Every 10-character piece of every form: a shortened quote must not give away part of it. */
function leakedPieces(text: string, token: string): string[] {
  const pieces = new Set<string>();
  for (const form of echoedForms(token)) {
    for (let start = 0; start + 10 <= form.length; start++) pieces.add(form.slice(start, start + 10));
  }
  return [...pieces].filter((piece) => text.includes(piece));
}

test('a partner echoing the token in any encoding, in bodies, JSON-RPC errors or headers, gets none of it into last_error or the logs', async () => {
  const { app, owner } = await setup();
  // Upper case, "/", "+" and "=" make the encoded forms differ from the token itself.
  const token = 'Sk_Live/9Fq+Xr2=Mz8Kw4Tb';
  const echo = (request: { headers: Record<string, unknown> }) => {
    const sent = String(request.headers.authorization);
    return `you sent ${echoedForms(token).join(' or ')}; header was ${sent}`;
  };
  // A JSON-RPC error answering the request in `body` (same id), its message and data full of the token.
  const rpcError = (code: number, request: { headers: Record<string, unknown> }, body: string) => {
    const id = body === '' ? null : ((JSON.parse(body) as { id?: number }).id ?? null);
    return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: echo(request), data: echo(request) } });
  };
  const partners: Array<[string, Parameters<typeof startServer>[0]]> = [
    ['401 with a JSON-RPC error body', (request, response, body) => void response.writeHead(401, { 'content-type': 'application/json' }).end(rpcError(-32001, request, body))],
    ['500 with a plain text body', (request, response) => void response.writeHead(500, { 'content-type': 'text/plain' }).end(echo(request))],
    ['200 with a JSON-RPC error whose code is not reserved', (request, response, body) => void response.writeHead(200, { 'content-type': 'application/json' }).end(rpcError(4011, request, body))],
    ['400 for server/discover, then JSON-RPC errors to the handshake', (request, response, body) => {
      const status = body.includes('server/discover') ? 400 : 200;
      response.writeHead(status, { 'content-type': 'application/json' }).end(rpcError(-32603, request, body));
    }],
    ['a content type made of the token', (_request, response) => void response.writeHead(200, { 'content-type': `application/x-${token.toLowerCase().replace(/[^a-z0-9]/g, '')}` }).end('{}')],
    ['a reason phrase made of the token', (_request, response) => void response.writeHead(418, encodeURIComponent(token), { 'content-type': 'text/plain' }).end(token.toLowerCase())],
    ['a redirect to a URL scheme made of the token', (_request, response) => void response.writeHead(307, { location: `${token.toLowerCase().replace(/[^a-z0-9]/g, '')}:somewhere` }).end()],
  ];
  const errors: string[] = [];
  for (const [name, handler] of partners) {
    const mcp = await serve(startServer(handler));
    const siteId = await siteWith(app, owner, { base_url: `${mcp.url}/`, mcp_url: `${mcp.url}/mcp`, auth_type: 'bearer', access_token: token });
    const { response, partner } = await check(app, owner.bearer, siteId);
    assert.equal(partner?.last_status, 'error', name);
    assert.equal(mcp.requests.find((request) => request.url === '/mcp')?.headers.authorization, `Bearer ${token}`, name);
    assert.deepEqual(leakedPieces(partner?.last_error ?? '', token), [], `${name}: ${partner?.last_error}`);
    assert.deepEqual(leakedPieces(response.body, token), [], name);
    errors.push(partner?.last_error ?? '');
  }
  assert.deepEqual(leakedPieces(app.logs(), token), []);
  // What is left is ours: field, category, status code, our sentence.
  assert.match(errors[0] ?? '', /^mcp_url: unauthorized: server\/discover: HTTP 401 Unauthorized, JSON-RPC error -32001$/);
  assert.match(errors[2] ?? '', /JSON-RPC error with an application-defined code/);
  assert.match(errors[3] ?? '', /^mcp_url: protocol_error: initialize: JSON-RPC error -32603 \(internal error\)/);
});
