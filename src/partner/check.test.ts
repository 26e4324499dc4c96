import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { LEGACY_TOOLS, STATELESS_TOOLS, startServer, startLegacyMcpServer, startRedirectServer, startStatelessMcpServer, startStatusServer, type TestServer } from '../../test/partner-servers.js';
import { PartnerChecker, type PartnerTarget } from './check.js';
import { createGuardedFetch } from '../outbound/guarded-fetch.js';
import { type AddressPolicy, defaultAddressPolicy, type Resolver } from '../outbound/network-guard.js';
import { originOf } from '../sites/partner-settings.js';

// Unit tests of the checker and its guarded fetch against real loopback servers. The policy here
// treats 127.0.0.1 as if it were a public address and judges every other address by the default
// rules, so the refusals are those of a production server talking to a public partner.

const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(server: Promise<TestServer>): Promise<TestServer> {
  const started = await server;
  servers.push(started);
  return started;
}

const strict = defaultAddressPolicy(false);
const onlyThisLoopback: AddressPolicy = (address) => (address === '127.0.0.1' ? { allowed: true } : strict(address));

function checker(options: { resolver?: Resolver; maxResponseBytes?: number; timeoutMs?: number } = {}): PartnerChecker {
  return new PartnerChecker({ allowPrivateNetworks: false, policy: onlyThisLoopback, timeoutMs: 2000, ...options });
}

/** A target whose token, if any, is bound to its mcp_url's origin unless the test says otherwise. */
function target(fields: Partial<PartnerTarget>): PartnerTarget {
  return { baseUrl: '', mcpUrl: '', authType: 'none', accessToken: null, accessTokenOrigin: originOf(fields.mcpUrl ?? ''), ...fields };
}

test('the connection goes to the address that was checked, with the host name kept in the Host header', async () => {
  const server = await serve(startStatusServer(200));
  const lookups: string[] = [];
  const resolver: Resolver = async (hostname) => {
    lookups.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };

  const outcome = await checker({ resolver }).check(target({ baseUrl: `http://partner.test:${server.port}/status` }));

  assert.equal(outcome.status, 'ok');
  assert.deepEqual(lookups, ['partner.test']);
  assert.equal(server.requests[0]?.headers.host, `partner.test:${server.port}`);
  assert.equal(server.requests[0]?.url, '/status');
});

test('a redirect to a private address is refused after resolution, and that address receives nothing', async () => {
  const internal = await serve(startStatusServer(200, { secret: 'internal' }, '127.0.0.2'));
  const redirect = await serve(startRedirectServer(`http://internal.test:${internal.port}/admin`));
  const resolver: Resolver = async () => [{ address: '127.0.0.2', family: 4 }];

  const outcome = await checker({ resolver }).check(target({ baseUrl: redirect.url }));

  assert.deepEqual(outcome, {
    status: 'error',
    category: 'blocked',
    // The redirect's host is the partner's text, so it is not named.
    error: 'base_url: blocked: a redirect led to a refused address: loopback address (not allowed on this server; its administrator can allow private networks)',
    mcp: null,
  });
  assert.equal(internal.requests.length, 0);
});

test('redirects are followed only to http(s), and only so many times', async () => {
  const toFile = await serve(startRedirectServer('file:///etc/passwd'));
  assert.deepEqual(await checker().check(target({ baseUrl: toFile.url })), {
    status: 'error',
    category: 'blocked',
    error: 'base_url: blocked: redirect to a URL that is not http or https refused',
    mcp: null,
  });

  const loop = await serve(startServer((_request, response) => void response.writeHead(302, { location: '/again' }).end()));
  assert.deepEqual(await checker().check(target({ baseUrl: loop.url })), { status: 'error', category: 'protocol_error', error: 'base_url: protocol_error: more than 5 redirects', mcp: null });
  assert.equal(loop.requests.length, 6);
});

test('a request carrying the token is not redirected to another origin; one within the origin keeps it', async () => {
  const other = await serve(startStatusServer(200));
  // Another port on the same host is another origin.
  const origin = await serve(
    startServer((request, response) => {
      const location = request.url === '/same' ? '/landed' : `${other.url}/landed`;
      if (request.url === '/landed') return void response.writeHead(200).end('ok');
      response.writeHead(307, { location }).end();
    }),
  );
  const controller = new AbortController();
  const fetch = createGuardedFetch({
    policy: onlyThisLoopback,
    resolver: async () => [],
    maxResponseBytes: 1024,
    maxRedirects: 5,
    signal: controller.signal,
    credentialOrigin: origin.url,
    userAgent: 'guard-test/1.0',
  });

  await fetch(`${origin.url}/same`, { method: 'POST', headers: { authorization: 'Bearer s3cret-value' }, body: '{}' });
  await assert.rejects(fetch(`${origin.url}/away`, { method: 'POST', headers: { authorization: 'Bearer s3cret-value' }, body: '{}' }), {
    message: 'a redirect to another origin was not followed: the access token is sent only to the origin it was saved for',
  });
  // Without a credential the same redirect is followed: base_url checks carry none.
  await fetch(`${origin.url}/away`, { method: 'POST', body: '{}' });

  assert.equal(origin.requests.find((request) => request.url === '/landed')?.headers.authorization, 'Bearer s3cret-value');
  assert.equal(origin.requests.find((request) => request.url === '/landed')?.method, 'POST');
  assert.equal(other.requests.length, 1);
  assert.equal(other.requests[0]?.headers.authorization, undefined);
});

test('a response past the size cap fails the check instead of being read whole', async () => {
  const huge = await serve(
    startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"jsonrpc":"2.0","id":1,"result":{"padding":"${'x'.repeat(64 * 1024)}"}}`);
    }),
  );

  const outcome = await checker({ maxResponseBytes: 4096 }).check(target({ mcpUrl: huge.url }));

  assert.deepEqual(outcome, { status: 'error', category: 'protocol_error', error: 'mcp_url: protocol_error: the response is larger than 4 KiB', mcp: null });
});

test('a URL that speaks neither MCP protocol reports both attempts', async () => {
  const notMcp = await serve(startStatusServer(404, { message: 'no such page' }));

  const outcome = await checker().check(target({ mcpUrl: notMcp.url }));

  assert.deepEqual(outcome, { status: 'error', category: 'not_found', error: 'mcp_url: not_found: initialize: HTTP 404 Not Found; server/discover: HTTP 404 Not Found', mcp: null });
});

test('both protocol generations report the negotiated version, the server and the tools', async () => {
  const legacy = await serve(startLegacyMcpServer());
  const stateless = await serve(startStatelessMcpServer());

  const legacyOutcome = await checker().check(target({ mcpUrl: legacy.url, baseUrl: legacy.url }));
  const statelessOutcome = await checker().check(target({ mcpUrl: stateless.url }));

  assert.equal(legacyOutcome.status, 'ok');
  assert.deepEqual(legacyOutcome.status === 'ok' && legacyOutcome.mcp, {
    protocolVersion: '2025-11-25',
    server: { name: 'legacy-partner', version: '1.0.0' },
    toolCount: 2,
    tools: LEGACY_TOOLS,
  });
  assert.equal(legacyOutcome.status === 'ok' && legacyOutcome.summary, 'base_url answered HTTP 400 Bad Request; MCP protocol 2025-11-25, 2 tools');
  assert.deepEqual(statelessOutcome.status === 'ok' && statelessOutcome.mcp, {
    protocolVersion: '2026-07-28',
    server: { name: 'stateless-partner', version: '2.0.0' },
    toolCount: 3,
    tools: STATELESS_TOOLS,
  });
  // The session the handshake opened is ended again.
  assert.ok(legacy.requests.some((request) => request.method === 'DELETE'));
});

test('network failures are named: connection refused, and TLS spoken to a plain HTTP server', async () => {
  const closed = await serve(startStatusServer(200));
  await closed.close();
  const plain = await serve(startStatusServer(200));

  assert.deepEqual(await checker().check(target({ baseUrl: closed.url })), { status: 'error', category: 'unreachable', error: 'base_url: unreachable: connection refused', mcp: null });
  const tls = await checker().check(target({ mcpUrl: `https://127.0.0.1:${plain.port}/mcp` }));
  assert.equal(tls.status, 'error');
  assert.match(tls.status === 'error' ? tls.error : '', /^mcp_url: tls: TLS failure: /);
});

test('a partner echoing the token in a long error message never gets it, or a piece of it, into last_error', async () => {
  const token = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
  const echo = await serve(
    startServer((request, response) => {
      const message = `${'x'.repeat(180)} you sent ${String(request.headers.authorization)} which is wrong`;
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message } }));
    }),
  );

  const outcome = await checker().check(target({ mcpUrl: echo.url, authType: 'bearer', accessToken: token }));

  assert.equal(outcome.status, 'error');
  const error = outcome.status === 'error' ? outcome.error : '';
  assert.ok(!error.includes(token.slice(0, 8)), error);
  assert.match(error, /JSON-RPC error -32001/);
});

test('the deadline covers the whole check, DNS included', async () => {
  const resolver: Resolver = () => new Promise(() => undefined);
  const started = performance.now();

  const outcome = await checker({ resolver, timeoutMs: 200 }).check(target({ baseUrl: 'http://slow-dns.test/' }));

  assert.deepEqual(outcome, { status: 'error', category: 'timeout', error: 'base_url: timeout: no answer within 200 ms', mcp: null });
  assert.ok(performance.now() - started < 2000);
});

test('a host named by a redirect is never quoted: a partner cannot smuggle text into last_error through it', async () => {
  const token = 'tok5f3a9c2e7d1b4068';
  const redirect = await serve(startRedirectServer(`http://${token}.test/`));
  const failingDns: Resolver = async (hostname) => {
    if (hostname === '127.0.0.1') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  const privateAnswer: Resolver = async () => [{ address: '10.0.0.7', family: 4 }];

  const notFound = await checker({ resolver: failingDns }).check(target({ baseUrl: redirect.url }));
  const refused = await checker({ resolver: privateAnswer }).check(target({ baseUrl: redirect.url }));

  assert.deepEqual(notFound, { status: 'error', category: 'unreachable', error: 'base_url: unreachable: a redirect led to a host whose DNS lookup failed', mcp: null });
  assert.equal(refused.status === 'error' && refused.error.includes(token), false);
  assert.equal(refused.status === 'error' && refused.category, 'blocked');
});
