import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, test } from 'node:test';
import { buildTestApp, createAccessToken, createSite, type SignedUpUser, signUp, type TestApp, type TestAppOptions } from '../../test/helpers.js';
import {
  LEGACY_TOOLS,
  STATELESS_TOOLS,
  startHangingServer,
  startLegacyMcpServer,
  startServer,
  startStatelessMcpServer,
  startStatusServer,
  type TestServer,
} from '../../test/partner-servers.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';
import { SecretBox } from '../lib/crypto.js';
import { purgeTrashedSites } from '../sites/queries.js';
import { SiteService } from '../sites/service.js';
import { PartnerChecker, WITHHELD_NAME } from './check.js';
import { PartnerRecheckScheduler } from './scheduler.js';
import type { PartnerCheckJson } from './schema.js';
import { PARTNER_CHECK_LIMITS, PartnerCheckService, TOKEN_WITHHELD_NOTE } from './service.js';

// The check history (GET …/partner/checks) and the draft test (POST …/partner/test), over real
// HTTP on loopback against real partner servers. Loopback is a private address, so these apps
// allow private networks, except where the refusal itself is under test.

const PARTNER_TOKEN = 'partner-secret-7c1e9a4b2d';

let t: TestApp | undefined;
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await t?.close();
  t = undefined;
});

interface Harness {
  app: TestApp;
  owner: SignedUpUser;
  /** http://127.0.0.1:port of the listening app. */
  base: string;
}

async function setup(env: Record<string, string> = { PARTNER_ALLOW_PRIVATE_NETWORKS: 'true' }): Promise<Harness> {
  const options: TestAppOptions = { env };
  t = await buildTestApp(options);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return { app: t, owner: await signUp(t.app), base: `http://127.0.0.1:${port}` };
}

async function serve(server: Promise<TestServer>): Promise<TestServer> {
  const started = await server;
  servers.push(started);
  return started;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

async function call(h: Harness, method: string, path: string, authorization: string | undefined, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await fetch(`${h.base}${path}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not every answer has a body.
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function siteWith(h: Harness, partner: Record<string, unknown>, owner = h.owner): Promise<string> {
  return (await createSite(h.app.app, owner.bearer, { name: 'Help centre', partner_settings: { enabled: true, ...partner } })).id;
}

async function checkNow(h: Harness, siteId: string, authorization = h.owner.bearer): Promise<Answer> {
  return call(h, 'POST', `/api/v1/sites/${siteId}/partner/check`, authorization);
}

async function history(h: Harness, siteId: string, authorization = h.owner.bearer): Promise<PartnerCheckJson[]> {
  const answer = await call(h, 'GET', `/api/v1/sites/${siteId}/partner/checks`, authorization);
  assert.equal(answer.status, 200, answer.text);
  return answer.json.checks as PartnerCheckJson[];
}

async function testDraft(h: Harness, siteId: string, partnerSettings: Record<string, unknown>, authorization = h.owner.bearer): Promise<Answer> {
  return call(h, 'POST', `/api/v1/sites/${siteId}/partner/test`, authorization, { partner_settings: partnerSettings });
}

async function storedCheckCount(h: Harness, siteId: string): Promise<number> {
  const row = await h.app.database.db.selectFrom('partner_checks').select((eb) => eb.fn.countAll().as('count')).where('site_id', '=', siteId).executeTakeFirstOrThrow();
  return Number(row.count);
}

test('a check of a legacy and of a stateless MCP server records the protocol version, the server and the tool names', async () => {
  const h = await setup();
  const legacy = await serve(startLegacyMcpServer({ requireAuthorization: `Bearer ${PARTNER_TOKEN}` }));
  const stateless = await serve(startStatelessMcpServer());
  const legacySite = await siteWith(h, { base_url: `${stateless.url}/`, mcp_url: `${legacy.url}/mcp`, auth_type: 'bearer', access_token: PARTNER_TOKEN });
  const statelessSite = await siteWith(h, { mcp_url: stateless.url, auth_type: 'none' });
  assert.deepEqual(await history(h, legacySite), []);

  assert.equal((await checkNow(h, legacySite)).status, 200);
  assert.equal((await checkNow(h, statelessSite)).status, 200);

  const [legacyCheck] = await history(h, legacySite);
  assert.ok(legacyCheck !== undefined);
  assert.deepEqual({ ...legacyCheck, duration_ms: 0 }, {
    at: h.app.clock.now().toISOString(),
    status: 'ok',
    category: 'ok',
    message: 'base_url answered HTTP 405 Method Not Allowed; MCP protocol 2025-11-25, 2 tools',
    duration_ms: 0,
    protocol_version: '2025-11-25',
    server: { name: 'legacy-partner', version: '1.0.0' },
    tool_count: 2,
    tools: LEGACY_TOOLS,
  });
  assert.ok(Number.isInteger(legacyCheck.duration_ms) && legacyCheck.duration_ms >= 0);
  const [statelessCheck] = await history(h, statelessSite);
  assert.equal(statelessCheck?.protocol_version, '2026-07-28');
  assert.deepEqual(statelessCheck?.server, { name: 'stateless-partner', version: '2.0.0' });
  assert.equal(statelessCheck?.tool_count, 3);
  assert.deepEqual(statelessCheck?.tools, STATELESS_TOOLS);
  // The history agrees with the site's own last_* fields.
  const site = await call(h, 'GET', `/api/v1/sites/${legacySite}`, h.owner.bearer);
  const partner = (site.json.site as { partner_settings: Record<string, unknown> }).partner_settings;
  assert.equal(partner.last_checked_at, legacyCheck.at);
  assert.equal(partner.last_status, 'ok');
  assert.ok(!h.app.logs().includes(PARTNER_TOKEN));
});

test('each failure category that loopback can produce is recorded with our own sentence', async () => {
  // Long enough for the handshake fallback (which loads the MCP SDK) on a busy machine.
  const h = await setup({ PARTNER_ALLOW_PRIVATE_NETWORKS: 'true', PARTNER_CHECK_TIMEOUT_MS: '3000' });
  const closed = await serve(startStatusServer(200));
  await closed.close();
  const plain = await serve(startStatusServer(200));
  const cases: Array<[string, Promise<TestServer> | null, (server: TestServer | null) => Record<string, unknown>, string]> = [
    ['unauthorized', startStatusServer(401), (s) => ({ mcp_url: s?.url }), 'mcp_url: unauthorized: server/discover: HTTP 401 Unauthorized'],
    ['forbidden', startStatusServer(403), (s) => ({ mcp_url: s?.url }), 'mcp_url: forbidden: server/discover: HTTP 403 Forbidden'],
    ['not_found', startStatusServer(404), (s) => ({ mcp_url: s?.url }), 'mcp_url: not_found: initialize: HTTP 404 Not Found; server/discover: HTTP 404 Not Found'],
    ['http_error', startStatusServer(503), (s) => ({ base_url: s?.url }), 'base_url: http_error: HTTP 503 Service Unavailable'],
    ['timeout', startHangingServer(), (s) => ({ mcp_url: s?.url }), 'mcp_url: timeout: no answer within 3 s'],
    ['unreachable', null, () => ({ base_url: closed.url }), 'base_url: unreachable: connection refused'],
    ['tls', null, () => ({ mcp_url: `https://127.0.0.1:${plain.port}/mcp` }), ''],
    [
      'protocol_error',
      startServer((_request, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end('hello')),
      (s) => ({ mcp_url: s?.url }),
      'mcp_url: protocol_error: initialize: the answer is not JSON-RPC (unexpected content type); server/discover: the answer is not JSON-RPC (unexpected content type)',
    ],
  ];
  for (const [category, server, partner, message] of cases) {
    const started = server === null ? null : await serve(server);
    const siteId = await siteWith(h, { auth_type: 'none', ...partner(started) });
    assert.equal((await checkNow(h, siteId)).status, 200, category);
    const [check] = await history(h, siteId);
    assert.equal(check?.status, 'error', category);
    assert.equal(check?.category, category);
    if (message === '') assert.match(check?.message ?? '', /^mcp_url: tls: TLS failure: /);
    else assert.equal(check?.message, message);
    assert.equal(check?.protocol_version, null, category);
    assert.equal(check?.server, null, category);
    assert.equal(check?.tool_count, null, category);
    assert.deepEqual(check?.tools, [], category);
  }
});

test('with private networks not allowed a loopback partner is recorded as blocked and receives nothing', async () => {
  const h = await setup({});
  const mcp = await serve(startStatelessMcpServer());
  const siteId = await siteWith(h, { mcp_url: mcp.url, auth_type: 'none' });

  await checkNow(h, siteId);
  const tested = await testDraft(h, siteId, { mcp_url: `${mcp.url}/other` });

  const [check] = await history(h, siteId);
  assert.equal(check?.category, 'blocked');
  assert.match(check?.message ?? '', /^mcp_url: blocked: refused to connect to 127\.0\.0\.1: loopback address/);
  assert.equal((tested.json.check as PartnerCheckJson).category, 'blocked');
  assert.equal(mcp.requests.length, 0);
});

test('a check that fails after the MCP server answered keeps what it learnt: version and server, no tools', async () => {
  const h = await setup();
  const mcp = await serve(
    startServer((_request, response, body) => {
      const message = JSON.parse(body) as { id: number; method: string };
      if (message.method !== 'server/discover') return void response.writeHead(500, { 'content-type': 'application/json' }).end('{}');
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'half-partner', version: '0.9' } } }),
      );
    }),
  );
  const siteId = await siteWith(h, { mcp_url: mcp.url, auth_type: 'none' });

  await checkNow(h, siteId);

  const [check] = await history(h, siteId);
  assert.equal(check?.status, 'error');
  assert.equal(check?.category, 'http_error');
  assert.equal(check?.message, 'mcp_url: http_error: tools/list: HTTP 500 Internal Server Error');
  assert.equal(check?.protocol_version, '2026-07-28');
  assert.deepEqual(check?.server, { name: 'half-partner', version: '0.9' });
  assert.equal(check?.tool_count, null);
});

test('the history keeps the newest 20 of 25 checks, some fired in parallel, newest first; the rest are deleted', async () => {
  const h = await setup();
  const partner = await serve(startStatusServer(200));
  const siteId = await siteWith(h, { base_url: partner.url, auth_type: 'none' });

  // Five rounds of five parallel checks; the clock moves a minute a round, past the per-site limit.
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => checkNow(h, siteId)));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200, 200],
    );
    h.app.clock.advance(60_000);
  }

  const checks = await history(h, siteId);
  assert.equal(checks.length, 20);
  assert.equal(await storedCheckCount(h, siteId), 20);
  const times = checks.map((check) => Date.parse(check.at));
  assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
  // The five of the first round are the ones gone.
  const firstRound = h.app.clock.now().getTime() - 5 * 60_000;
  assert.equal(times.filter((time) => time === firstRound).length, 0);
  assert.equal(times.filter((time) => time === firstRound + 4 * 60_000).length, 5);
  assert.ok(checks.every((check) => check.status === 'ok' && check.message === 'base_url answered HTTP 200 OK'));
});

test('the periodic re-check is recorded in the history too', async () => {
  const h = await setup();
  const mcp = await serve(startStatelessMcpServer());
  const siteId = await siteWith(h, { mcp_url: mcp.url, auth_type: 'none' });
  const { db, dialect } = h.app.database;
  const sites = new SiteService({ db, dialect, clock: h.app.clock, secrets: new SecretBox(h.app.config.encryptionKey), cache: h.app.cache });
  const checks = new PartnerCheckService({
    db,
    dialect,
    cache: h.app.cache,
    sites,
    limiter: new RateLimiter(db, h.app.clock),
    checker: new PartnerChecker({ allowPrivateNetworks: true, timeoutMs: 2000 }),
    clock: h.app.clock,
    log: h.app.app.log,
  });
  const scheduler = new PartnerRecheckScheduler({ db, checks, clock: h.app.clock, log: h.app.app.log, intervalSeconds: 60 });

  assert.equal(await scheduler.runDueChecks(), 1);

  const [check] = await history(h, siteId);
  assert.equal(check?.status, 'ok');
  assert.equal(check?.tool_count, STATELESS_TOOLS.length);
});

test("another user's site is 404 site_not_found for the history and the test, and its partner hears nothing", async () => {
  const h = await setup();
  const mcp = await serve(startStatelessMcpServer());
  const siteId = await siteWith(h, { mcp_url: mcp.url, auth_type: 'none' });
  await checkNow(h, siteId);
  const before = mcp.requests.length;
  const stranger = await signUp(h.app.app);
  const strangerToken = await createAccessToken(h.app.app, stranger);

  for (const authorization of [stranger.bearer, strangerToken.header]) {
    const read = await call(h, 'GET', `/api/v1/sites/${siteId}/partner/checks`, authorization);
    assert.equal(read.status, 404);
    assert.equal(read.json.code, 'site_not_found');
    assert.match(read.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const tested = await testDraft(h, siteId, { mcp_url: `${mcp.url}/x` }, authorization);
    assert.equal(tested.status, 404);
    assert.equal(tested.json.code, 'site_not_found');
  }
  assert.equal(mcp.requests.length, before);
  // An id that names no site at all answers the same.
  assert.equal((await call(h, 'GET', '/api/v1/sites/0190c0de-0000-7000-8000-000000000000/partner/checks', h.owner.bearer)).status, 404);
  assert.equal((await call(h, 'GET', `/api/v1/sites/${'a'.repeat(65)}/partner/checks`, h.owner.bearer)).status, 400);
  assert.equal((await call(h, 'GET', `/api/v1/sites/${siteId}/partner/checks`, undefined)).status, 401);
});

test('an access token may read the history; testing needs sites:write', async () => {
  const h = await setup();
  const siteId = await siteWith(h, {});
  await checkNow(h, siteId);
  const readOnly = await createAccessToken(h.app.app, h.owner, ['sites:read']);

  assert.equal((await history(h, siteId, readOnly.header)).length, 1);
  const refused = await testDraft(h, siteId, {}, readOnly.header);
  assert.equal(refused.status, 403);
  assert.equal(refused.json.code, 'insufficient_scope');
});

test("a site's checks stay with it in the trash, unread, and are purged with it", async () => {
  const h = await setup();
  const siteId = await siteWith(h, {});
  await checkNow(h, siteId);
  await checkNow(h, siteId);
  assert.equal(await storedCheckCount(h, siteId), 2);

  assert.equal((await call(h, 'DELETE', `/api/v1/sites/${siteId}`, h.owner.bearer)).status, 204);
  assert.equal(await storedCheckCount(h, siteId), 2);
  assert.equal((await call(h, 'GET', `/api/v1/sites/${siteId}/partner/checks`, h.owner.bearer)).status, 404);

  assert.equal(await purgeTrashedSites(h.app.database.db, new Date(h.app.clock.now().getTime() + 1000).toISOString()), 1);
  assert.equal(await storedCheckCount(h, siteId), 0);
});

test('a test checks the draft merged over the saved settings and stores nothing: not the site, not the history, not the ETag', async () => {
  const h = await setup();
  const saved = await serve(startStatusServer(500));
  const draft = await serve(startStatelessMcpServer());
  const siteId = await siteWith(h, { mcp_url: saved.url, base_url: `${draft.url}/`, auth_type: 'none', collections: ['faq'] });
  await checkNow(h, siteId);
  const before = await call(h, 'GET', `/api/v1/sites/${siteId}`, h.owner.bearer);
  const historyBefore = await history(h, siteId);

  const tested = await testDraft(h, siteId, { mcp_url: draft.url, collections: ['other'], project_id: 'draft-project' });

  assert.equal(tested.status, 200, tested.text);
  const check = tested.json.check as PartnerCheckJson;
  assert.equal(check.status, 'ok');
  assert.equal(check.tool_count, STATELESS_TOOLS.length);
  // base_url was not in the draft: the saved one was checked along with the draft's mcp_url.
  assert.equal(check.message, 'base_url answered HTTP 405 Method Not Allowed; MCP protocol 2026-07-28, 3 tools');
  const after = await call(h, 'GET', `/api/v1/sites/${siteId}`, h.owner.bearer);
  assert.equal(after.text, before.text);
  assert.equal(after.headers.get('etag'), before.headers.get('etag'));
  assert.deepEqual(await history(h, siteId), historyBefore);
  assert.equal(await storedCheckCount(h, siteId), 1);
  // The saved mcp_url heard only the manual check: the test went to the draft's.
  assert.equal(saved.requests.length, 1);
});

test('the saved token goes only to the origins it is bound to; a draft token is used once and never stored or shown', async () => {
  const h = await setup();
  const home = await serve(startLegacyMcpServer({ requireAuthorization: `Bearer ${PARTNER_TOKEN}` }));
  const elsewhere = await serve(startStatusServer(401));
  const siteId = await siteWith(h, { base_url: `${home.url}/`, mcp_url: `${home.url}/mcp`, auth_type: 'bearer', access_token: PARTNER_TOKEN });
  const etag = (await call(h, 'GET', `/api/v1/sites/${siteId}`, h.owner.bearer)).headers.get('etag');
  const authorizationOf = (server: TestServer) => server.requests.filter((request) => request.url.endsWith('/mcp') || request.url === '/').map((request) => request.headers.authorization);

  // Same origins (only the path changes): the saved token is sent there.
  const samePlace = await testDraft(h, siteId, { mcp_url: `${home.url}/mcp?v=2` });
  assert.equal((samePlace.json.check as PartnerCheckJson).status, 'ok', samePlace.text);
  assert.ok(home.requests.some((request) => request.headers.authorization === `Bearer ${PARTNER_TOKEN}`));

  // mcp_url moves to another origin without a token: checked, but without any token.
  const moved = await testDraft(h, siteId, { mcp_url: `${elsewhere.url}/mcp` });
  const movedCheck = moved.json.check as PartnerCheckJson;
  assert.equal(movedCheck.category, 'unauthorized');
  assert.equal(movedCheck.message, `mcp_url: unauthorized: server/discover: HTTP 401 Unauthorized; ${TOKEN_WITHHELD_NOTE}`);
  assert.deepEqual(authorizationOf(elsewhere), [undefined]);

  // base_url moves: the token is bound to both origins, so mcp_url on the old origin gets none either.
  const homeRequests = home.requests.length;
  const baseMoved = await testDraft(h, siteId, { base_url: `${elsewhere.url}/` });
  assert.equal((baseMoved.json.check as PartnerCheckJson).category, 'unauthorized');
  assert.ok(home.requests.slice(homeRequests).every((request) => request.headers.authorization === undefined));

  // A draft token goes with the draft, to the draft's origin only.
  const draftToken = 'draft-secret-5d8e2f0a91';
  const withToken = await testDraft(h, siteId, { mcp_url: `${elsewhere.url}/mcp`, access_token: draftToken });
  assert.equal(elsewhere.requests.at(-1)?.headers.authorization, `Bearer ${draftToken}`);
  assert.ok(!withToken.text.includes(draftToken));

  // Nothing of it stayed: the site is as it was, and a real check still sends the saved token home.
  const site = await call(h, 'GET', `/api/v1/sites/${siteId}`, h.owner.bearer);
  assert.equal(site.headers.get('etag'), etag);
  assert.equal((site.json.site as { partner_settings: { access_token_configured: boolean } }).partner_settings.access_token_configured, true);
  await checkNow(h, siteId);
  assert.equal((await history(h, siteId))[0]?.status, 'ok');
  const logs = h.app.logs();
  assert.ok(!logs.includes(PARTNER_TOKEN));
  assert.ok(!logs.includes(draftToken));
});

/** The token as a careless partner might echo it: as sent, and in common re-encodings. */
function echoedForms(token: string): string[] {
  return [token, encodeURIComponent(token), token.toLowerCase(), token.toUpperCase(), Buffer.from(token).toString('base64'), Buffer.from(token).toString('hex')];
}

/** Every 10-character piece of every form found in `text`. */
function leakedPieces(text: string, token: string): string[] {
  const pieces = new Set<string>();
  for (const form of echoedForms(token)) {
    for (let start = 0; start + 10 <= form.length; start++) pieces.add(form.slice(start, start + 10));
  }
  return [...pieces].filter((piece) => text.includes(piece));
}

test('a partner echoing the token in its server name, tool names or errors gets none of it into the history, the answers or the logs', async () => {
  const h = await setup();
  const token = 'Sk_Live/9Fq+Xr2=Mz8Kw4Tb';
  const forms = echoedForms(token);
  const echoing = await serve(
    startServer((request, response, body) => {
      const message = JSON.parse(body) as { id: number; method: string };
      const json = (value: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (message.method === 'server/discover') {
        return void json({
          jsonrpc: '2.0',
          id: message.id,
          result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: `echo ${forms[4]}`, version: String(request.headers.authorization) } },
        });
      }
      json({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'search' }, ...forms.map((form) => ({ name: `tool_${form}` }))] } });
    }),
  );
  const failing = await serve(startServer((request, response) => void response.writeHead(401, { 'content-type': 'text/plain' }).end(`bad ${String(request.headers.authorization)} ${forms.join(' ')}`)));
  const siteId = await siteWith(h, { mcp_url: echoing.url, auth_type: 'bearer', access_token: token });
  const failingSite = await siteWith(h, { mcp_url: failing.url, auth_type: 'bearer', access_token: token });

  const checked = await checkNow(h, siteId);
  await checkNow(h, failingSite);
  const tested = await testDraft(h, failingSite, { mcp_url: echoing.url, access_token: token });

  const [check] = await history(h, siteId);
  assert.equal(check?.status, 'ok');
  assert.deepEqual(check?.server, { name: WITHHELD_NAME, version: WITHHELD_NAME });
  assert.deepEqual(check?.tools, ['search', ...forms.map(() => WITHHELD_NAME)]);
  assert.equal(check?.tool_count, forms.length + 1);
  const [failed] = await history(h, failingSite);
  assert.equal(failed?.message, 'mcp_url: unauthorized: server/discover: HTTP 401 Unauthorized');
  assert.deepEqual((tested.json.check as PartnerCheckJson).tools, check?.tools);
  for (const text of [checked.text, tested.text, JSON.stringify(await history(h, siteId)), JSON.stringify(await history(h, failingSite)), h.app.logs()]) {
    assert.deepEqual(leakedPieces(text, token), []);
  }
});

test('tool names are capped: the first 100 are kept, each at most 128 characters, while the count covers all', async () => {
  const h = await setup();
  const many = await serve(
    startServer((_request, response, body) => {
      const message = JSON.parse(body) as { id: number; method: string };
      const result =
        message.method === 'server/discover'
          ? { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'n'.repeat(500), version: '1\n2' } }
          : { tools: Array.from({ length: 150 }, (_, index) => ({ name: index === 0 ? 'x'.repeat(300) : `tool_${index}` })) };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    }),
  );
  const siteId = await siteWith(h, { mcp_url: many.url, auth_type: 'none' });

  const check = (await testDraft(h, siteId, {})).json.check as PartnerCheckJson;

  assert.equal(check.tool_count, 150);
  assert.equal(check.tools.length, 100);
  assert.equal(check.tools[0]?.length, 128);
  assert.equal(check.tools[99], 'tool_99');
  assert.equal(check.server?.name.length, 128);
  assert.equal(check.server?.version, '1 2');
});

test('a bad draft is 400 naming the field, before anything is sent or counted', async () => {
  const h = await setup();
  const mcp = await serve(startStatelessMcpServer());
  const siteId = await siteWith(h, { mcp_url: mcp.url, auth_type: 'none' });
  const path = `/api/v1/sites/${siteId}/partner/test`;
  const cases: Array<[unknown, string]> = [
    [{ partner_settings: { mcp_url: 'ftp://partner.example/mcp' } }, '/partner_settings/mcp_url'],
    [{ partner_settings: { base_url: 'not a url' } }, '/partner_settings/base_url'],
    [{ partner_settings: { base_url: ' https://partner.example' } }, '/partner_settings/base_url'],
    [{ partner_settings: { auth_type: 'basic' } }, '/partner_settings/auth_type'],
    [{ partner_settings: { enabled: 'yes' } }, '/partner_settings/enabled'],
    [{ partner_settings: { collections: 'faq' } }, '/partner_settings/collections'],
    [{ partner_settings: { access_token: 42 } }, '/partner_settings/access_token'],
    [{ partner_settings: { surprise: true } }, '/partner_settings/surprise'],
    [{ partner_settings: { mcp_url: `https://partner.example/${'a'.repeat(3000)}` } }, '/partner_settings/mcp_url'],
    [{ partner_settings: {}, name: 'x' }, '/name'],
    [{}, '/partner_settings'],
    [{ partner_settings: null }, '/partner_settings'],
    [{ partner_settings: [] }, '/partner_settings'],
    [[], ''],
    ['"text"', ''],
  ];
  for (const [body, field] of cases) {
    const answer = await call(h, 'POST', path, h.owner.bearer, body);
    assert.equal(answer.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${answer.text}`);
    assert.equal(answer.json.code, 'validation_failed');
    const paths = (answer.json.errors as Array<{ path: string }>).map((error) => error.path);
    assert.ok(paths.includes(field), `${JSON.stringify(body).slice(0, 80)} names ${paths.join(', ')}`);
  }
  const notJson = await call(h, 'POST', path, h.owner.bearer, 'partner_settings=1', 'application/x-www-form-urlencoded');
  assert.equal(notJson.status, 415);
  const broken = await call(h, 'POST', path, h.owner.bearer, '{"partner_settings":');
  assert.equal(broken.status, 400);
  assert.equal(mcp.requests.length, 0);
  // None of them used up an attempt.
  const counted = await h.app.database.db.selectFrom('rate_limits').selectAll().where('key', 'like', 'partner-test:%').execute();
  assert.deepEqual(counted, []);
});

test('tests are limited per user: parallel requests past the limit get 429 partner_test_rate_limited with Retry-After', async () => {
  const h = await setup();
  const siteId = await siteWith(h, {});
  const otherSite = await siteWith(h, {});
  const limit = PARTNER_CHECK_LIMITS.testsPerUser.limit;

  const answers = await Promise.all(Array.from({ length: limit + 5 }, (_, index) => testDraft(h, index % 2 === 0 ? siteId : otherSite, {})));

  const statuses = answers.map((answer) => answer.status);
  assert.equal(statuses.filter((status) => status === 200).length, limit);
  assert.equal(statuses.filter((status) => status === 429).length, 5);
  const limited = answers.find((answer) => answer.status === 429);
  assert.equal(limited?.json.code, 'partner_test_rate_limited');
  assert.equal(limited?.headers.get('retry-after'), '60');
  assert.match(limited?.headers.get('content-type') ?? '', /^application\/problem\+json/);
  // A manual check has its own limit, and another user has their own.
  assert.equal((await checkNow(h, siteId)).status, 200);
  const other = await signUp(h.app.app);
  assert.equal((await testDraft(h, await siteWith(h, {}, other), {}, other.bearer)).status, 200);

  h.app.clock.advance(60_000);
  const again = await testDraft(h, siteId, {});
  assert.equal(again.status, 200);
  assert.equal((again.json.check as PartnerCheckJson).message, 'nothing to check: set base_url or mcp_url');
});
