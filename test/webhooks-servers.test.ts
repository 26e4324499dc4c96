import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { STRONG_PASSWORD } from './helpers.js';
import { callJson as call, freePort, type RunningServer, sharedEnvironment, startServer, stopServer } from './processes.js';
import { startSmtpServer, verificationLinkIn, verificationMailTo } from './smtp.js';
import { until } from './wait.js';
import { type ReceivedWebhook, startReceiver, type TestReceiver } from './webhook-receiver.js';

/**
 * The outbox with real app processes: two servers on one database (PostgreSQL when
 * TEST_DATABASE_URL is set, else one SQLite file) sharing the sending, and a server killed while a
 * delivery is in flight.
 */

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Where the servers mail the address confirmations.
const smtp = await startSmtpServer();
cleanups.push(() => smtp.close());

/** The environment of servers sharing one new database, mailing to the server above. */
async function environment(): Promise<Record<string, string>> {
  // The receivers listen on loopback.
  const { env, remove } = await sharedEnvironment({ SMTP_URL: smtp.url, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  cleanups.push(remove);
  return env;
}

async function start(env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer(await freePort(), env);
  cleanups.push(async () => void (await stopServer(server)));
  return server;
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<TestReceiver> {
  const started = await startReceiver(answer);
  cleanups.push(() => started.close());
  return started;
}

/** Signs up and confirms the address through the mailed link; returns the JWT header and the personal workspace. */
async function owner(server: RunningServer): Promise<{ authorization: string; workspace: string }> {
  const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
  const signedUp = await call<{ token: string }>(server, 'POST', '/auth/signup', undefined, { email, password: STRONG_PASSWORD });
  assert.equal(signedUp.status, 201);
  const link = new URL(verificationLinkIn(await verificationMailTo(smtp, email)));
  const confirmed = await fetch(`${server.base}/verify-email`, {
    method: 'POST',
    headers: { origin: link.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ token: link.searchParams.get('token') }),
  });
  assert.equal(confirmed.status, 200);
  const authorization = `Bearer ${signedUp.json.token}`;
  const workspaces = await call<{ workspaces: Array<{ id: string; personal: boolean }> }>(server, 'GET', '/api/v1/workspaces', authorization);
  return { authorization, workspace: workspaces.json.workspaces.find((workspace) => workspace.personal)?.id ?? '' };
}

async function createWebhook(server: RunningServer, who: { authorization: string; workspace: string }, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const created = await call<{ webhook: { id: string; secret: string } }>(server, 'POST', `/api/v1/workspaces/${who.workspace}/webhooks`, who.authorization, { url, events });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return created.json.webhook;
}

function versionOf(request: ReceivedWebhook): { site: string; version: number } {
  const data = request.json.data as { site: { id: string }; version: number };
  return { site: data.site.id, version: data.version };
}

test('two app servers and 1,000 site changes: every event reaches each webhook exactly once, in order per site, signed', async () => {
  const env = await environment();
  const [a, b] = await Promise.all([start(env), start(env)]);
  assert.ok(a !== undefined && b !== undefined);
  const who = await owner(a);
  const receivers = [await receiver(), await receiver()];
  const webhooks = [];
  for (const hooks of receivers) webhooks.push(await createWebhook(b, who, hooks.url, ['site.created', 'site.updated']));

  const SITES = 10;
  const CHANGES_PER_SITE = 100;
  const sites: string[] = [];
  for (let index = 0; index < SITES; index++) {
    const created = await call<{ site: { id: string } }>(index % 2 === 0 ? a : b, 'POST', '/api/v1/sites', who.authorization, { name: `Site ${index}` });
    assert.equal(created.status, 201);
    sites.push(created.json.site.id);
  }
  // Every site changed 100 times, the sites at once, each change through either server in turn.
  await Promise.all(
    sites.map(async (site, index) => {
      for (let change = 0; change < CHANGES_PER_SITE; change++) {
        const answer = await call(change % 2 === index % 2 ? a : b, 'PUT', `/api/v1/sites/${site}`, who.authorization, { ai_settings: `change ${change}` });
        assert.equal(answer.status, 200);
      }
    }),
  );

  const expected = SITES * (CHANGES_PER_SITE + 1);
  for (const hooks of receivers) await hooks.waitFor(expected, 180_000);
  // Both servers stopped (a stop waits for the sending under way): nothing more can arrive, so a
  // delivery sent twice is among what was received.
  await Promise.all([stopServer(a), stopServer(b)]);
  for (const [index, hooks] of receivers.entries()) {
    const ids = hooks.received.map((request) => request.headers['webhook-id']);
    assert.equal(hooks.received.length, expected, 'every event exactly once');
    assert.equal(new Set(ids).size, expected, 'no webhook-id twice');
    for (const site of sites) {
      const versions = hooks.received.map(versionOf).filter((event) => event.site === site);
      assert.deepEqual(
        versions.map((event) => event.version),
        Array.from({ length: CHANGES_PER_SITE + 1 }, (_unused, version) => version + 1),
        `the events of site ${site} arrived in order`,
      );
    }
    const secret = webhooks[index]?.secret ?? '';
    const verifier = new Webhook(secret);
    for (const request of hooks.received) assert.deepEqual(verifier.verify(request.body, request.headers), request.json);
  }
  const otherIds = new Set(receivers[1]?.received.map((request) => request.headers['webhook-id']));
  assert.ok(receivers[0]?.received.every((request) => !otherIds.has(request.headers['webhook-id'])), 'each webhook has its own delivery ids');
});

test('a server killed with a delivery in flight: after a restart the delivery is sent again with the same webhook-id', async () => {
  const env = await environment();
  let server = await start(env);
  const who = await owner(server);
  // The first request is never answered; the server dies while it waits.
  const hooks = await receiver((_request, index) => (index === 0 ? 'hang' : 200));
  const webhook = await createWebhook(server, who, hooks.url, ['site.created']);
  const created = await call<{ site: { id: string } }>(server, 'POST', '/api/v1/sites', who.authorization, { name: 'In flight' });
  assert.equal(created.status, 201);
  await hooks.waitFor(1);
  server.process.kill('SIGKILL');
  await new Promise((resolve) => server.process.once('exit', resolve));

  server = await start(env);
  // The dead server's claim runs out (the 10 s answer time and 20 s more), then the delivery is due again.
  await hooks.waitFor(2, 60_000);
  const [first, second] = hooks.received;
  assert.equal(second?.headers['webhook-id'], first?.headers['webhook-id']);
  assert.equal(second?.body, first?.body);
  assert.deepEqual(new Webhook(webhook.secret).verify(second?.body ?? '', second?.headers ?? {}), second?.json);
  assert.equal((second?.json.data as { site: { id: string } }).site.id, created.json.site.id);
  type DeliveryLog = { deliveries: Array<{ status: string; attempts: Array<{ response_status: number | null }> }> };
  let log: DeliveryLog = { deliveries: [] };
  const running = server;
  await until(
    async () => {
      log = (await call<DeliveryLog>(running, 'GET', `/api/v1/workspaces/${who.workspace}/webhooks/${webhook.id}/deliveries`, who.authorization)).json;
      return log.deliveries[0]?.status === 'succeeded';
    },
    () => `the delivery to end: ${JSON.stringify(log)}`,
    { intervalMs: 50 },
  );
  // The killed attempt left no record; the one that was answered did.
  assert.deepEqual(
    log.deliveries[0]?.attempts.map((attempt) => attempt.response_status),
    [200],
  );
  assert.equal(hooks.received.length, 2);
});
