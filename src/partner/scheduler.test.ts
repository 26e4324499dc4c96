import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { buildTestApp, createSite, signUp, type TestApp } from '../../test/helpers.js';
import { startStatelessMcpServer, type TestServer } from '../../test/partner-servers.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';
import { ConfigError, loadConfig } from '../config.js';
import { SecretBox } from '../lib/crypto.js';
import { SiteService } from '../sites/service.js';
import { PartnerChecker } from './check.js';
import { PartnerRecheckScheduler } from './scheduler.js';
import { PartnerCheckService } from './service.js';

// The periodic re-check. Which sites are due is decided by the injected clock, so the tests move
// the clock and call runDueChecks() instead of waiting for the timer.

const INTERVAL_SECONDS = 3600;

let t: TestApp | undefined;
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await t?.close();
  t = undefined;
});

function scheduler(app: TestApp): PartnerRecheckScheduler {
  const { db, dialect } = app.database;
  const sites = new SiteService({ db, dialect, clock: app.clock, secrets: new SecretBox(app.config.encryptionKey), cache: app.cache });
  const checks = new PartnerCheckService({
    db,
    dialect,
    cache: app.cache,
    sites,
    limiter: new RateLimiter(db, app.clock),
    checker: new PartnerChecker({ allowPrivateNetworks: true, timeoutMs: 2000 }),
    clock: app.clock,
    log: app.app.log,
  });
  return new PartnerRecheckScheduler({ db, checks, clock: app.clock, log: app.app.log, intervalSeconds: INTERVAL_SECONDS });
}

async function partnerOf(app: TestApp, authorization: string, siteId: string): Promise<{ last_status: string; last_checked_at: string | null }> {
  const response = await app.app.inject({ method: 'GET', url: `/api/v1/sites/${siteId}`, headers: { authorization } });
  return response.json<{ site: { partner_settings: { last_status: string; last_checked_at: string | null } } }>().site.partner_settings;
}

test('enabled integrations are re-checked once an interval has passed, disabled ones never', async () => {
  t = await buildTestApp({ env: { PARTNER_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const owner = await signUp(t.app);
  const enabledServer = await startStatelessMcpServer();
  const disabledServer = await startStatelessMcpServer();
  servers.push(enabledServer, disabledServer);
  const enabled = await createSite(t.app, owner.bearer, { name: 'On', partner_settings: { enabled: true, mcp_url: enabledServer.url, auth_type: 'none' } });
  await createSite(t.app, owner.bearer, { name: 'Off', partner_settings: { enabled: false, mcp_url: disabledServer.url, auth_type: 'none' } });
  await createSite(t.app, owner.bearer, { name: 'Nothing to check', partner_settings: { enabled: true } });
  const recheck = scheduler(t);

  assert.equal(await recheck.runDueChecks(), 1);
  const first = await partnerOf(t, owner.bearer, enabled.id);
  assert.equal(first.last_status, 'ok');
  assert.equal(first.last_checked_at, t.clock.now().toISOString());
  assert.equal(disabledServer.requests.length, 0);

  t.clock.advance(INTERVAL_SECONDS * 1000 - 1000);
  assert.equal(await recheck.runDueChecks(), 0);

  t.clock.advance(1000);
  assert.equal(await recheck.runDueChecks(), 1);
  assert.equal((await partnerOf(t, owner.bearer, enabled.id)).last_checked_at, t.clock.now().toISOString());
  assert.equal(enabledServer.requests.length, 4);
});

test('two servers running the re-check at once call the partner only once', async () => {
  t = await buildTestApp({ env: { PARTNER_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const owner = await signUp(t.app);
  const server = await startStatelessMcpServer();
  servers.push(server);
  await createSite(t.app, owner.bearer, { name: 'On', partner_settings: { enabled: true, mcp_url: server.url, auth_type: 'none' } });

  const counts = await Promise.all([scheduler(t).runDueChecks(), scheduler(t).runDueChecks()]);

  assert.deepEqual(counts.sort(), [0, 1]);
  assert.equal(server.requests.filter((request) => request.headers['mcp-method'] === 'server/discover').length, 1);
});

test('with PARTNER_CHECK_INTERVAL set the app starts and closes its timer cleanly', async () => {
  t = await buildTestApp({ env: { PARTNER_CHECK_INTERVAL: '60' } });
  assert.equal(t.config.partnerCheckIntervalSeconds, 60);
});

test('PARTNER_CHECK_INTERVAL and PARTNER_CHECK_TIMEOUT_MS are validated, naming the variable', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-config-'));
  try {
    const defaults = loadConfig({ DATA_DIR: dataDir });
    assert.equal(defaults.partnerCheckIntervalSeconds, 0);
    assert.equal(defaults.partnerCheckTimeoutMs, 10_000);
    assert.throws(() => loadConfig({ DATA_DIR: dataDir, PARTNER_CHECK_INTERVAL: '30' }), (error: unknown) => error instanceof ConfigError && error.message.startsWith('PARTNER_CHECK_INTERVAL'));
    assert.throws(() => loadConfig({ DATA_DIR: dataDir, PARTNER_CHECK_TIMEOUT_MS: '10s' }), (error: unknown) => error instanceof ConfigError && error.message.startsWith('PARTNER_CHECK_TIMEOUT_MS'));
    assert.equal(loadConfig({ DATA_DIR: dataDir, PARTNER_CHECK_TIMEOUT_MS: '2500' }).partnerCheckTimeoutMs, 2500);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
