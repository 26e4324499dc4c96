import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildTestApp, createAccessToken, createSite, signUp, type SignedUpUser, type TestApp, type TestAppOptions } from '../../test/helpers.js';
import { startStatelessMcpServer } from '../../test/partner-servers.js';
import { startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';
import { until } from '../../test/wait.js';
import { type ReceivedWebhook, startReceiver, type TestReceiver } from '../../test/webhook-receiver.js';
import { HTTP_ERRORS } from '../http/errors.js';
import { SecretBox } from '../lib/crypto.js';
import { Mailer, OutboxTransport } from '../mail/mailer.js';
import { pruneStaleRows } from '../maintenance/prune.js';
import { defaultAddressPolicy } from '../outbound/network-guard.js';
import { RateLimiter } from '../rate-limit/rate-limit.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { EMAIL_VERIFICATION_ERRORS } from '../email-verification/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOKS_PER_WORKSPACE } from './contract.js';
import { WEBHOOK_ERRORS } from './errors.js';
import type { DeliveryJson, DeliveryPageJson, WebhookJson, WebhookWithSecretJson } from './schema.js';
import { WebhookSender } from './sender.js';
import { WebhookService } from './service.js';

// Webhooks end to end on SQLite and (with TEST_DATABASE_URL) PostgreSQL: real receivers on
// loopback, signatures verified by the standardwebhooks package, the app's clock moved by hand.

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const PARTNER_TOKEN = 'partner-token-that-must-never-travel';

let t: TestApp | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await t?.close();
  t = undefined;
});

/**
 * Shorter than production's timeout, so a test of a hanging receiver ends quickly; not so short that a
 * loaded machine's slow answer times out, as its retry would wait for a clock the tests move by hand.
 */
async function app(options: TestAppOptions = {}): Promise<TestApp> {
  t = await buildTestApp({ ...options, env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', ...options.env }, webhooks: { timeoutMs: 2000, ...options.webhooks } });
  return t;
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<TestReceiver> {
  const started = await startReceiver(answer);
  closers.push(() => started.close());
  return started;
}

/** Signs up with the address confirmed, as making webhooks needs (set directly: the mail is tested elsewhere). */
async function person(app: TestApp): Promise<SignedUpUser> {
  const user = await signUp(app.app);
  await app.database.db.updateTable('users').set({ email_verified_at: app.clock.now().toISOString() }).where('id', '=', user.id).execute();
  return user;
}

async function personalWorkspace(app: TestApp, user: SignedUpUser): Promise<string> {
  const response = await app.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { authorization: user.bearer } });
  return response.json<{ workspaces: Array<{ id: string; personal: boolean }> }>().workspaces.find((workspace) => workspace.personal)?.id ?? '';
}

async function createWebhook(app: TestApp, user: SignedUpUser, workspaceId: string, body: Record<string, unknown>): Promise<WebhookWithSecretJson> {
  const response = await app.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspaceId}/webhooks`, headers: { authorization: user.bearer }, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ webhook: WebhookWithSecretJson }>().webhook;
}

async function deliveries(app: TestApp, user: SignedUpUser, workspaceId: string, webhookId: string): Promise<DeliveryJson[]> {
  const response = await app.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspaceId}/webhooks/${webhookId}/deliveries?limit=100`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<DeliveryPageJson>().deliveries;
}

/** Polls the delivery log until `matches` holds (the sender works in the background). */
async function untilDeliveries(app: TestApp, user: SignedUpUser, workspaceId: string, webhookId: string, matches: (list: DeliveryJson[]) => boolean): Promise<DeliveryJson[]> {
  let list: DeliveryJson[] = [];
  await until(async () => matches((list = await deliveries(app, user, workspaceId, webhookId))), () => `the deliveries to match: ${JSON.stringify(list)}`, { timeoutMs: 15_000, intervalMs: 20 });
  return list;
}

/**
 * Verifies a received request with the independent standardwebhooks implementation. It checks the
 * timestamp against Date.now(), so Date.now() is the app's clock for the (synchronous) call.
 */
function verify(secret: string, request: ReceivedWebhook, now: Date): unknown {
  const realNow = Date.now;
  Date.now = () => now.getTime();
  try {
    return new Webhook(secret).verify(request.body, request.headers);
  } finally {
    Date.now = realNow;
  }
}

async function put(app: TestApp, user: SignedUpUser, siteId: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.app.inject({ method: 'PUT', url: `/api/v1/sites/${siteId}`, headers: { authorization: user.bearer, ...headers }, payload });
}

test('a site change reaches the receiver signed, with the site (no token), version, changed paths and actor; the log shows the attempt', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const created = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.updated', 'site.created'], description: '  Deploys  ' });
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.deepEqual(
    { ...created, id: '', secret: '', created_at: '', updated_at: '' },
    {
      id: '',
      workspace_id: workspace,
      url: hooks.url,
      description: 'Deploys',
      events: ['site.updated', 'site.created'],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
      secret: '',
      created_at: '',
      updated_at: '',
    },
  );

  const site = await createSite(t.app, owner.bearer, { name: 'Help centre' });
  const updated = await put(t, owner, site.id, { ai_settings: 'Be brief.', partner_settings: { access_token: PARTNER_TOKEN } });
  assert.equal(updated.statusCode, 200, updated.body);
  await hooks.waitFor(2);

  const [first, second] = hooks.received;
  assert.ok(first !== undefined && second !== undefined);
  assert.deepEqual(
    hooks.received.map((request) => request.json.type),
    ['site.created', 'site.updated'],
  );
  for (const request of hooks.received) {
    assert.deepEqual(verify(created.secret, request, t.clock.now()), request.json);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['user-agent'], 'Siteward-webhooks/1.0');
    assert.equal(request.headers['webhook-timestamp'], String(Math.floor(t.clock.now().getTime() / 1000)));
  }
  assert.throws(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, second, t.clock.now()), /No matching signature/);
  const data = second.json.data as { site: Record<string, unknown> & { partner_settings: Record<string, unknown> }; version: number; changed: string[]; access_token: string; actor: unknown; via: unknown };
  assert.equal(second.json.timestamp, t.clock.now().toISOString());
  assert.equal(data.version, 2);
  assert.deepEqual(data.changed, ['/ai_settings', '/partner_settings/access_token']);
  assert.equal(data.access_token, 'set');
  assert.equal(data.site.ai_settings, 'Be brief.');
  assert.equal(data.site.partner_settings.access_token_configured, true);
  assert.deepEqual(data.actor, { id: owner.id, email: owner.email, name: '' });
  assert.deepEqual(data.via, { type: 'jwt' });
  for (const request of hooks.received) assert.ok(!request.body.includes(PARTNER_TOKEN), 'the partner token travelled');

  const log = await untilDeliveries(t, owner, workspace, created.id, (list) => list.length === 2 && list.every((delivery) => delivery.status === 'succeeded'));
  assert.deepEqual(
    log.map((delivery) => [delivery.event_type, delivery.status, delivery.next_attempt_at, delivery.attempts.map((attempt) => [attempt.response_status, attempt.error])]),
    [
      ['site.updated', 'succeeded', null, [[204, null]]],
      ['site.created', 'succeeded', null, [[204, null]]],
    ],
  );
  assert.deepEqual(
    log.map((delivery) => delivery.id),
    [second.headers['webhook-id'], first.headers['webhook-id']],
  );
  const one = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${created.id}/deliveries/${log[0]?.id}`, headers: { authorization: owner.bearer } });
  assert.equal(one.statusCode, 200);
  assert.deepEqual(one.json<{ delivery: { payload: unknown } }>().delivery.payload, second.json);

  // The secret is shown once: never by the list or a read, and not stored in clear.
  const listed = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks`, headers: { authorization: owner.bearer } });
  const read = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${created.id}`, headers: { authorization: owner.bearer } });
  assert.equal(listed.json<{ webhooks: WebhookJson[] }>().webhooks.length, 1);
  const secretText = created.secret.slice('whsec_'.length);
  for (const body of [listed.body, read.body, JSON.stringify(await t.database.db.selectFrom('webhooks').selectAll().execute()), t.logs()]) {
    assert.ok(!body.includes(secretText), 'the secret was shown or stored in clear');
  }
  if (t.database.dialect === 'sqlite') {
    for (const file of readdirSync(t.dataDir).filter((name) => name.startsWith('siteward.db'))) {
      assert.ok(!readFileSync(path.join(t.dataDir, file)).includes(secretText), `${file} holds the secret`);
    }
  }
});

test('a receiver answering 500 then 200 gets the same webhook-id twice and the delivery ends succeeded', async () => {
  const t = await app();
  const hooks = await receiver((_request, index) => (index === 0 ? 500 : 200));
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.created'] });
  await createSite(t.app, owner.bearer);
  await hooks.waitFor(1);
  const [failed] = await untilDeliveries(t, owner, workspace, webhook.id, (list) => list[0]?.attempts.length === 1 && list[0].next_attempt_at !== null);
  assert.equal(failed?.status, 'pending');
  assert.deepEqual(
    failed?.attempts.map((attempt) => [attempt.response_status, attempt.error]),
    [[500, 'the receiver answered HTTP 500']],
  );
  // The first retry comes within 10 s of the failure (5 s, give or take a fifth).
  const wait = Date.parse(failed?.next_attempt_at ?? '') - t.clock.now().getTime();
  assert.ok(wait >= 4_000 && wait <= 6_000, `first retry after ${wait} ms`);
  const failing = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}`, headers: { authorization: owner.bearer } });
  assert.equal(failing.json<{ webhook: WebhookJson }>().webhook.failing_since, t.clock.now().toISOString());

  t.clock.advance(10_000);
  await hooks.waitFor(2);
  const [done] = await untilDeliveries(t, owner, workspace, webhook.id, (list) => list[0]?.status === 'succeeded');
  assert.deepEqual(
    done?.attempts.map((attempt) => attempt.response_status),
    [500, 200],
  );
  assert.equal(hooks.received[0]?.headers['webhook-id'], hooks.received[1]?.headers['webhook-id']);
  assert.equal(hooks.received[0]?.body, hooks.received[1]?.body);
  assert.equal(hooks.received.length, 2);
  const recovered = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}`, headers: { authorization: owner.bearer } });
  assert.equal(recovered.json<{ webhook: WebhookJson }>().webhook.failing_since, null);
});

test('a receiver that never answers is timed out, and a later site change waits behind it', async () => {
  const t = await app({ webhooks: { timeoutMs: 500 } });
  const hooks = await receiver(() => 'hang');
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.created', 'site.updated'] });
  const site = await createSite(t.app, owner.bearer);
  await put(t, owner, site.id, { name: 'Renamed' });
  const list = await untilDeliveries(t, owner, workspace, webhook.id, (rows) => rows.some((row) => row.attempts.length === 1));
  const [later, first] = list;
  assert.deepEqual(first?.attempts.map((attempt) => [attempt.response_status, attempt.error]), [[null, 'no answer within 0.5 s']]);
  assert.ok((first?.attempts[0]?.duration_ms ?? 0) >= 400);
  // In order per site: the update is not sent while the creation has not ended.
  assert.equal(later?.event_type, 'site.updated');
  assert.deepEqual(later?.attempts, []);
  assert.equal(hooks.received.length, 1);
});

test('a receiver that is always down ends with the webhook turned off after 3 days, and the admins mailed once', async () => {
  const smtp: TestSmtpServer = await startSmtpServer();
  closers.push(() => smtp.close());
  const t = await app({ env: { SMTP_URL: smtp.url } });
  const down = await receiver();
  const url = down.url;
  await down.close();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: `${url}?token=receiver-query-secret`, events: ['site.created', 'site.updated'] });
  // Another webhook, whose receiver answers: a delivery of it shows the sender has looked.
  const witness = await receiver();
  const watching = await createWebhook(t, owner, workspace, { url: witness.url, events: ['site.updated'] });
  const site = await createSite(t.app, owner.bearer);
  const [first] = await untilDeliveries(t, owner, workspace, webhook.id, (rows) => rows[0]?.attempts.length === 1);
  assert.equal(first?.attempts[0]?.error, 'the connection was refused');
  const mailsBefore = smtp.messages.length;

  // Every retry fails, each when it is due; the delivery ends failed after the last, about a day later.
  for (let attempt = 2; attempt <= 8; attempt++) {
    const [pending] = await deliveries(t, owner, workspace, webhook.id);
    t.clock.advance(Date.parse(pending?.next_attempt_at ?? '') - t.clock.now().getTime());
    await untilDeliveries(t, owner, workspace, webhook.id, (rows) => rows[0]?.attempts.length === attempt);
  }
  const lastAttempt = Date.parse((await deliveries(t, owner, workspace, webhook.id))[0]?.attempts.at(-1)?.at ?? '');
  const firstAttempt = Date.parse(first?.attempts[0]?.at ?? '');
  assert.ok(lastAttempt - firstAttempt > 20 * HOUR_MS && lastAttempt - firstAttempt < 34 * HOUR_MS, `retried over ${(lastAttempt - firstAttempt) / HOUR_MS} hours`);
  const [ended] = await deliveries(t, owner, workspace, webhook.id);
  assert.equal(ended?.status, 'failed');
  assert.equal(ended?.next_attempt_at, null);
  let read = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}`, headers: { authorization: owner.bearer } });
  assert.equal(read.json<{ webhook: WebhookJson }>().webhook.enabled, true, 'not yet 3 days');

  // Three days after the first failure, the next failed attempt turns it off.
  t.clock.advance(3 * DAY_MS);
  assert.equal((await put(t, owner, site.id, { name: 'Still down' })).statusCode, 200);
  await untilDeliveries(t, owner, workspace, webhook.id, (rows) => rows[0]?.attempts.length === 1);
  read = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}`, headers: { authorization: owner.bearer } });
  const off = read.json<{ webhook: WebhookJson }>().webhook;
  assert.equal(off.enabled, false);
  assert.equal(off.disabled_reason, 'failing');
  const mail = await smtp.waitForMessage(mailsBefore, (message) => message.subject.startsWith('Webhook turned off'));
  assert.ok(mail.to.includes(owner.email));
  assert.equal(mail.subject, `Webhook turned off in Personal: ${url}`);
  assert.ok(!mail.text.includes('receiver-query-secret'), 'the URL query was mailed');
  assert.ok(mail.text.includes(`/settings/workspaces/${workspace}/webhooks`));
  const audit = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/audit-log?action=webhook.disabled`, headers: { authorization: owner.bearer } });
  const events = audit.json<{ events: Array<{ actor: unknown; via: unknown; details: Record<string, unknown> }> }>().events;
  assert.equal(events.length, 1);
  assert.deepEqual([events[0]?.actor, events[0]?.via, events[0]?.details.reason], [null, { type: 'system' }, 'failing']);

  // Turned off: changes queue nothing more, and nothing is tried; one e-mail only. Its pending
  // delivery would be due a day on; the other webhook's delivery of a change made then shows the
  // sender has looked since (it claims every due delivery in the look that finds that one).
  const count = (await deliveries(t, owner, workspace, webhook.id)).length;
  const attempts = (await deliveries(t, owner, workspace, webhook.id)).map((delivery) => delivery.attempts.length);
  t.clock.advance(DAY_MS);
  assert.equal((await put(t, owner, site.id, { name: 'Meanwhile' })).statusCode, 200);
  await untilDeliveries(t, owner, workspace, watching.id, (rows) => rows[0]?.status === 'succeeded');
  await t.mailer.idle();
  assert.equal((await deliveries(t, owner, workspace, webhook.id)).length, count);
  assert.deepEqual(
    (await deliveries(t, owner, workspace, webhook.id)).map((delivery) => delivery.attempts.length),
    attempts,
  );
  assert.equal(smtp.messages.filter((message) => message.subject.startsWith('Webhook turned off')).length, 1);
  const test = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/test`, headers: { authorization: owner.bearer } });
  assert.equal(test.statusCode, 409);
  assert.equal(test.json<{ code: string }>().code, WEBHOOK_ERRORS.WEBHOOK_DISABLED);

  // Turned on again, its failure record starts afresh.
  const on = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}`, headers: { authorization: owner.bearer }, payload: { enabled: true } });
  assert.equal(on.statusCode, 200, on.body);
  assert.deepEqual(
    (({ enabled, disabled_reason, failing_since }) => ({ enabled, disabled_reason, failing_since }))(on.json<{ webhook: WebhookJson }>().webhook),
    { enabled: true, disabled_reason: null, failing_since: null },
  );
});

test('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.created'] });
  const rotated = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/rotate-secret`, headers: { authorization: owner.bearer } });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const fresh = rotated.json<{ webhook: WebhookWithSecretJson }>().webhook;
  assert.notEqual(fresh.secret, webhook.secret);
  assert.equal(fresh.previous_secret_expires_at, new Date(t.clock.now().getTime() + DAY_MS).toISOString());

  await createSite(t.app, owner.bearer, { name: 'During the overlap' });
  await hooks.waitFor(1);
  const during = hooks.received[0];
  assert.ok(during !== undefined);
  assert.equal(during.headers['webhook-signature']?.split(' ').length, 2);
  assert.deepEqual(verify(fresh.secret, during, t.clock.now()), during.json);
  assert.deepEqual(verify(webhook.secret, during, t.clock.now()), during.json);

  t.clock.advance(DAY_MS + 1_000);
  await createSite(t.app, owner.bearer, { name: 'After the overlap' });
  await hooks.waitFor(2);
  const after = hooks.received[1];
  assert.ok(after !== undefined);
  assert.deepEqual(verify(fresh.secret, after, t.clock.now()), after.json);
  assert.throws(() => verify(webhook.secret, after, t.clock.now()), /No matching signature/);
});

test('a test event and a redelivery go out with their webhook-ids; subscriptions are respected', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.deleted'] });
  const site = await createSite(t.app, owner.bearer);
  await put(t, owner, site.id, { name: 'Not subscribed' });
  const test = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/test`, headers: { authorization: owner.bearer } });
  assert.equal(test.statusCode, 202, test.body);
  const queued = test.json<{ delivery: DeliveryJson }>().delivery;
  assert.deepEqual([queued.event_type, queued.status, queued.attempts], ['webhook.test', 'pending', []]);
  await hooks.waitFor(1);
  const received = hooks.received[0];
  assert.ok(received !== undefined);
  assert.equal(received.headers['webhook-id'], queued.id);
  assert.deepEqual(verify(webhook.secret, received, t.clock.now()), received.json);
  assert.equal(received.json.type, 'webhook.test');
  assert.deepEqual(received.json.data.webhook, { id: webhook.id, url: hooks.url });

  assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${site.id}`, headers: { authorization: owner.bearer } })).statusCode, 204);
  await hooks.waitFor(2);
  assert.equal(hooks.received[1]?.json.type, 'site.deleted');
  assert.equal((hooks.received[1]?.json.data.site as { id: string }).id, site.id);

  await untilDeliveries(t, owner, workspace, webhook.id, (list) => list.length === 2 && list.every((delivery) => delivery.status === 'succeeded'));
  const again = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/deliveries/${queued.id}/redeliver`, headers: { authorization: owner.bearer } });
  assert.equal(again.statusCode, 202, again.body);
  assert.equal(again.json<{ delivery: DeliveryJson }>().delivery.status, 'pending');
  await hooks.waitFor(3);
  assert.equal(hooks.received[2]?.headers['webhook-id'], queued.id);
  assert.equal(hooks.received[2]?.body, received.body);
  const log = await untilDeliveries(t, owner, workspace, webhook.id, (list) => list.find((delivery) => delivery.id === queued.id)?.attempts.length === 2);
  assert.equal(log.find((delivery) => delivery.id === queued.id)?.status, 'succeeded');

  const unknown = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/deliveries/0190d6a0-0000-7000-8000-000000000000/redeliver`, headers: { authorization: owner.bearer } });
  assert.equal(unknown.json<{ code: string }>().code, WEBHOOK_ERRORS.DELIVERY_NOT_FOUND);
  const badCursor = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/deliveries?cursor=nope`, headers: { authorization: owner.bearer } });
  assert.equal(badCursor.statusCode, 400);
});

test('the delivery log pages newest first by cursor', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.created'] });
  for (let index = 0; index < 5; index++) await createSite(t.app, owner.bearer, { name: `Site ${index}` });
  await hooks.waitFor(5);
  const all = await deliveries(t, owner, workspace, webhook.id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/webhooks/${webhook.id}/deliveries${query}`, headers: { authorization: owner.bearer } });
    const page = response.json<DeliveryPageJson>();
    seen.push(...page.deliveries.map((delivery) => delivery.id));
    cursor = page.next_cursor;
  } while (cursor !== null);
  assert.deepEqual(
    seen,
    all.map((delivery) => delivery.id),
  );
  assert.equal(seen.length, 5);
  assert.deepEqual(
    hooks.received.map((request) => request.headers['webhook-id']),
    [...seen].reverse(),
  );
});

test('an idle sender only looks: no claim until a delivery is due, then it claims and sends it', async () => {
  const statements: string[] = [];
  const t = await app({ onQuery: (text) => statements.push(text.toLowerCase()) });
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  await createWebhook(t, owner, workspace, { url: hooks.url, events: [...WEBHOOK_EVENT_TYPES] });
  statements.length = 0;
  // About ten polls at the tests' 20 ms.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const claims = (list: string[]) => list.filter((text) => text.includes('join "webhooks"') || text.startsWith('update "webhook_deliveries"'));
  assert.ok(statements.filter((text) => text.includes('from "webhook_deliveries"')).length >= 3, `looks in ${JSON.stringify(statements)}`);
  assert.deepEqual(claims(statements), [], 'no claim (the locking read of due deliveries and their webhooks) and no lease');
  await createSite(t.app, owner.bearer);
  await hooks.waitFor(1);
  assert.equal(hooks.received[0]?.json.type, 'site.created');
  assert.ok(claims(statements).length >= 2, 'the due delivery was claimed and leased');
});

test('a change that is refused or rolls back queues nothing', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: [...WEBHOOK_EVENT_TYPES] });
  const site = await createSite(t.app, owner.bearer);
  await hooks.waitFor(1);
  const stale = await put(t, owner, site.id, { name: 'Stale' }, { 'if-match': '"999"' });
  assert.equal(stale.statusCode, 412);
  const invalid = await put(t, owner, site.id, { name: '   ' });
  assert.equal(invalid.statusCode, 400);
  const stranger = await person(t);
  assert.equal((await put(t, stranger, site.id, { name: 'Theirs' })).statusCode, 404);
  const rows = await t.database.db.selectFrom('webhook_deliveries').select(['event_type']).where('webhook_id', '=', webhook.id).execute();
  assert.deepEqual(
    rows.map((row) => row.event_type),
    ['site.created'],
  );
});

test('member events reach the webhook with who joined or left', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const member = await person(t);
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
  const workspace = created.json<{ workspace: { id: string } }>().workspace.id;
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['member.joined', 'member.removed'] });
  await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspace, member.id, 'editor');
  const left = await t.app.inject({ method: 'DELETE', url: `/api/v1/workspaces/${workspace}/members/${member.id}`, headers: { authorization: member.bearer } });
  assert.equal(left.statusCode, 204, left.body);
  await hooks.waitFor(2);
  assert.deepEqual(
    hooks.received.map((request) => [request.json.type, request.json.data.member, request.json.data.left, request.json.data.actor]),
    [
      ['member.joined', { id: member.id, email: member.email, name: '', role: 'editor' }, undefined, null],
      ['member.removed', { id: member.id, email: member.email, name: '', role: 'editor' }, true, { id: member.id, email: member.email, name: '' }],
    ],
  );
  for (const request of hooks.received) assert.deepEqual(verify(webhook.secret, request, t.clock.now()), request.json);
});

test('a partner connection that breaks and comes back sends one event and one e-mail per change, not per check', async () => {
  const smtp: TestSmtpServer = await startSmtpServer();
  closers.push(() => smtp.close());
  const t = await app({ env: { SMTP_URL: smtp.url } });
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['partner.status_changed'] });
  const mcp = await startStatelessMcpServer();
  const site = await createSite(t.app, owner.bearer, { name: 'Help centre', partner_settings: { enabled: true, mcp_url: mcp.url, auth_type: 'none' } });
  const check = async () => {
    const response = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${site.id}/partner/check`, headers: { authorization: owner.bearer } });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ site: { partner_settings: { last_status: string } } }>().site.partner_settings.last_status;
  };
  const subjects = () => smtp.messages.filter((message) => message.subject.startsWith('Partner connection')).map((message) => message.subject);
  assert.equal(await check(), 'ok');
  await mcp.close();
  assert.equal(await check(), 'error');
  assert.equal(await check(), 'error');
  assert.equal(await check(), 'error');
  // Back at another address: saving it changes no status; the next check does.
  const back = await startStatelessMcpServer();
  closers.push(() => back.close());
  assert.equal((await put(t, owner, site.id, { partner_settings: { mcp_url: back.url } })).statusCode, 200);
  assert.equal(await check(), 'ok');
  assert.equal(await check(), 'ok');
  await hooks.waitFor(2);
  await smtp.waitForMessage(0, (message) => message.subject === 'Partner connection working again: Help centre');
  assert.deepEqual(subjects(), ['Partner connection failing: Help centre', 'Partner connection working again: Help centre']);
  assert.deepEqual(
    hooks.received.map((request) => [request.json.type, request.json.data.status]),
    [
      ['partner.status_changed', { before: 'ok', after: 'error' }],
      ['partner.status_changed', { before: 'error', after: 'ok' }],
    ],
  );
  assert.deepEqual(hooks.received[0]?.json.data.site, { id: site.id, workspace_id: workspace, name: 'Help centre' });
  assert.match(String(hooks.received[0]?.json.data.error), /unreachable/);
  const audit = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/audit-log?action=partner.status_changed`, headers: { authorization: owner.bearer } });
  assert.equal(audit.json<{ events: unknown[] }>().events.length, 2);
  // Each status change queued its delivery with the check that made it, and a delivered one is
  // never sent again: two deliveries, both delivered, are all the receiver will get.
  await untilDeliveries(t, owner, workspace, webhook.id, (rows) => rows.every((row) => row.status === 'succeeded'));
  assert.equal((await deliveries(t, owner, workspace, webhook.id)).length, 2);
  assert.equal(hooks.received.length, 2);
});

test('webhook URLs on private, loopback and metadata addresses are refused unless private networks are allowed', async () => {
  const t = await app({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  for (const url of ['http://127.0.0.1:9/hooks', 'http://localhost:9/hooks', 'http://[::1]:9/', 'http://10.1.2.3/', 'http://192.168.0.10/', 'http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/']) {
    const response = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspace}/webhooks`, headers: { authorization: owner.bearer }, payload: { url, events: ['site.created'] } });
    assert.equal(response.statusCode, 400, url);
    const problem = response.json<{ code: string; errors: Array<{ path: string }> }>();
    assert.equal(problem.code, WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED, url);
    assert.equal(problem.errors[0]?.path, '/url');
  }
  assert.equal(await t.database.db.selectFrom('webhooks').select('id').executeTakeFirst(), undefined);
});

test('a redirect is never followed, and a host that resolves to loopback when sending (DNS rebinding) is refused', async () => {
  const t = await app();
  const target = await receiver();
  const redirecting = await receiver(() => ({ status: 307, location: target.url }));
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: redirecting.url, events: ['site.created'] });
  await createSite(t.app, owner.bearer);
  const [redirected] = await untilDeliveries(t, owner, workspace, webhook.id, (list) => list[0]?.attempts.length === 1);
  assert.deepEqual(
    redirected?.attempts.map((attempt) => [attempt.response_status, attempt.error]),
    [[307, 'the receiver answered with a redirect (HTTP 307); webhooks do not follow redirects']],
  );
  assert.equal(target.received.length, 0);

  // Saved while its name resolved to a public address; sending finds loopback, which is refused.
  const secrets = new SecretBox(t.config.encryptionKey);
  const strict = defaultAddressPolicy(false);
  const publicAnswer = async () => [{ address: '93.184.215.14', family: 4 as const }];
  const loopbackAnswer = async () => [{ address: '127.0.0.1', family: 4 as const }];
  const service = new WebhookService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, secrets, policy: strict, resolver: publicAnswer });
  const origin = { actor: { id: owner.id, email: owner.email, name: '' }, via: { type: 'jwt' as const }, ip: null, userAgent: null };
  const rebound = await service.create(origin, workspace, { url: `http://rebinding.example:${new URL(target.url).port}/hooks`, events: ['site.created'] });
  await t.database.db.updateTable('webhooks').set({ enabled: 0 }).where('id', '=', webhook.id).execute();
  const sender = new WebhookSender(
    { db: t.database.db, dialect: t.database.dialect, clock: t.clock, secrets, policy: strict, resolver: loopbackAnswer, mailer: new Mailer(new OutboxTransport(path.join(t.dataDir, 'outbox')), 'siteward@example.com', t.app.log), log: t.app.log, publicUrl: t.config.publicUrl, onError: (error) => assert.fail(String(error)) },
    { timeoutMs: 500 },
  );
  // The app's own sender is stopped for this, so only the strict one sends.
  await t.app.close();
  await t.database.db.insertInto('webhook_deliveries').values({ id: 'rebinding-delivery', webhook_id: rebound.id, event_type: 'site.created', order_key: 'x', payload: '{}', status: 'pending', attempt_count: 0, next_attempt_at: t.clock.now().toISOString(), lease_owner: null, lease_until: null, created_at: t.clock.now().toISOString() }).execute();
  assert.equal(await sender.drain(), 1);
  const attempt = await t.database.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', 'rebinding-delivery').executeTakeFirstOrThrow();
  assert.equal(attempt.response_status, null);
  assert.match(attempt.error ?? '', /refused to connect to rebinding\.example \(127\.0\.0\.1\): loopback address/);
  assert.equal(target.received.length, 0);
});

test('admins only, signed in: editors and viewers 403, strangers and other workspaces 404, access tokens refused', async () => {
  const t = await app();
  const owner = await person(t);
  const people = { admin: await person(t), editor: await person(t), viewer: await person(t) };
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Team' } });
  const workspace = created.json<{ workspace: { id: string } }>().workspace.id;
  const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  for (const [role, person] of Object.entries(people)) await workspaces.addMember(workspace, person.id, role as 'admin' | 'editor' | 'viewer');
  const webhook = await createWebhook(t, people.admin, workspace, { url: 'http://127.0.0.1:9/', events: ['site.created'] });
  const base = `/api/v1/workspaces/${workspace}/webhooks`;
  const routes: Array<[string, string, Record<string, unknown> | undefined]> = [
    ['GET', base, undefined],
    ['POST', base, { url: 'http://127.0.0.1:9/', events: ['site.created'] }],
    ['GET', `${base}/${webhook.id}`, undefined],
    ['PATCH', `${base}/${webhook.id}`, { description: 'x' }],
    ['POST', `${base}/${webhook.id}/rotate-secret`, undefined],
    ['POST', `${base}/${webhook.id}/test`, undefined],
    ['GET', `${base}/${webhook.id}/deliveries`, undefined],
    ['DELETE', `${base}/${webhook.id}`, undefined],
  ];
  const stranger = await person(t);
  const token = await createAccessToken(t.app, owner);
  for (const [method, url, payload] of routes) {
    const ask = (authorization: string) => t.app.inject({ method: method as 'GET', url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) });
    for (const person of [people.editor, people.viewer]) {
      const refused = await ask(person.bearer);
      assert.equal(refused.statusCode, 403, `${method} ${url}`);
      assert.equal(refused.json<{ code: string }>().code, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    }
    const hidden = await ask(stranger.bearer);
    assert.equal(hidden.statusCode, 404, `${method} ${url}`);
    assert.equal(hidden.json<{ code: string }>().code, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    const byToken = await ask(token.header);
    assert.equal(byToken.statusCode, 403);
    assert.equal(byToken.json<{ code: string }>().code, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
  }
  // Another workspace's webhook id through one's own workspace: not found.
  const strangerWorkspace = await personalWorkspace(t, stranger);
  const elsewhere = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${strangerWorkspace}/webhooks/${webhook.id}`, headers: { authorization: stranger.bearer } });
  assert.equal(elsewhere.statusCode, 404);
  assert.equal(elsewhere.json<{ code: string }>().code, WEBHOOK_ERRORS.WEBHOOK_NOT_FOUND);
  const still = await t.database.db.selectFrom('webhooks').select(['id', 'description']).execute();
  assert.deepEqual(still, [{ id: webhook.id, description: '' }]);

  // Creating one, changing its URL and rotating its secret need a recent sign-in.
  t.clock.advance(HOUR_MS);
  const late = await t.app.inject({ method: 'POST', url: base, headers: { authorization: owner.bearer }, payload: { url: 'http://127.0.0.1:9/', events: ['site.created'] } });
  assert.equal(late.statusCode, 403);
  assert.equal(late.json<{ code: string }>().code, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
  const moved = await t.app.inject({ method: 'PATCH', url: `${base}/${webhook.id}`, headers: { authorization: owner.bearer }, payload: { url: 'http://127.0.0.1:10/' } });
  assert.equal(moved.json<{ code: string }>().code, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
  const renamed = await t.app.inject({ method: 'PATCH', url: `${base}/${webhook.id}`, headers: { authorization: owner.bearer }, payload: { description: 'Still allowed' } });
  assert.equal(renamed.statusCode, 200);
  const audit = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/audit-log`, headers: { authorization: owner.bearer } });
  assert.deepEqual(
    audit
      .json<{ events: Array<{ action: string }> }>()
      .events.map((event) => event.action)
      .filter((action) => action.startsWith('webhook.')),
    ['webhook.updated', 'webhook.created'],
  );
});

test('bad input is refused with the field named, and a workspace has at most 20 webhooks', async () => {
  const t = await app();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const base = `/api/v1/workspaces/${workspace}/webhooks`;
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ events: ['site.created'] }, HTTP_ERRORS.VALIDATION_FAILED, ''],
    [{ url: 'ftp://127.0.0.1/', events: ['site.created'] }, HTTP_ERRORS.VALIDATION_FAILED, '/url'],
    [{ url: 'not a url', events: ['site.created'] }, HTTP_ERRORS.VALIDATION_FAILED, '/url'],
    [{ url: 'http://user:pass@127.0.0.1/', events: ['site.created'] }, WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED, '/url'],
    [{ url: 'http://127.0.0.1/#frag', events: ['site.created'] }, WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED, '/url'],
    [{ url: 'http://127.0.0.1/', events: [] }, HTTP_ERRORS.VALIDATION_FAILED, '/events'],
    [{ url: 'http://127.0.0.1/', events: ['site.exploded'] }, HTTP_ERRORS.VALIDATION_FAILED, '/events/0'],
    [{ url: 'http://127.0.0.1/', events: ['webhook.test'] }, HTTP_ERRORS.VALIDATION_FAILED, '/events/0'],
    [{ url: 'http://127.0.0.1/', events: ['site.created', 'site.created'] }, HTTP_ERRORS.VALIDATION_FAILED, '/events'],
    [{ url: 'http://127.0.0.1/', events: ['site.created'], description: 'x'.repeat(201) }, HTTP_ERRORS.VALIDATION_FAILED, '/description'],
    [{ url: 'http://127.0.0.1/', events: ['site.created'], secret: 'whsec_mine' }, HTTP_ERRORS.VALIDATION_FAILED, ''],
    [{ url: `http://127.0.0.1/${'a'.repeat(2001)}`, events: ['site.created'] }, HTTP_ERRORS.VALIDATION_FAILED, '/url'],
  ];
  for (const [payload, code, field] of cases) {
    const response = await t.app.inject({ method: 'POST', url: base, headers: { authorization: owner.bearer }, payload });
    assert.equal(response.statusCode, 400, JSON.stringify(payload));
    const problem = response.json<{ code: string; errors?: Array<{ path: string }> }>();
    assert.equal(problem.code, code, JSON.stringify(payload));
    if (field !== '') assert.ok(problem.errors?.some((error) => error.path.startsWith(field)), `${JSON.stringify(payload)}: ${response.body}`);
  }
  const empty = await t.app.inject({ method: 'PATCH', url: `${base}/0190d6a0-0000-7000-8000-000000000000`, headers: { authorization: owner.bearer }, payload: {} });
  assert.equal(empty.statusCode, 400);
  const missing = await t.app.inject({ method: 'PATCH', url: `${base}/0190d6a0-0000-7000-8000-000000000000`, headers: { authorization: owner.bearer }, payload: { enabled: false } });
  assert.equal(missing.json<{ code: string }>().code, WEBHOOK_ERRORS.WEBHOOK_NOT_FOUND);

  // Fired together past the limit: exactly 20 land.
  const attempts = await Promise.all(
    Array.from({ length: WEBHOOKS_PER_WORKSPACE + 5 }, (_unused, index) =>
      t.app.inject({ method: 'POST', url: base, headers: { authorization: owner.bearer }, payload: { url: `http://127.0.0.1:9/${index}`, events: ['site.created'] } }),
    ),
  );
  assert.equal(attempts.filter((response) => response.statusCode === 201).length, WEBHOOKS_PER_WORKSPACE);
  const refused = attempts.filter((response) => response.statusCode !== 201);
  assert.ok(refused.every((response) => response.statusCode === 409 && response.json<{ code: string }>().code === WEBHOOK_ERRORS.TOO_MANY_WEBHOOKS));
});

test('an account whose address is not confirmed cannot create a webhook or point one elsewhere', async () => {
  const t = await app();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const webhook = await createWebhook(t, owner, workspace, { url: 'http://127.0.0.1:9/hooks?key=receiver-key', events: ['site.created'] });
  // The audit log names it without the query, which some receivers use for a key of theirs.
  const audit = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/audit-log?action=webhook.created`, headers: { authorization: owner.bearer } });
  assert.equal(audit.json<{ events: Array<{ target: { name: string } }> }>().events[0]?.target.name, 'http://127.0.0.1:9/hooks');
  assert.ok(!audit.body.includes('receiver-key'));
  // An admin of the same workspace who never confirmed the address.
  const unconfirmed = await signUp(t.app);
  const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  assert.equal(await workspaces.addMember(workspace, unconfirmed.id, 'admin'), true);
  const base = `/api/v1/workspaces/${workspace}/webhooks`;
  const refusals = [
    await t.app.inject({ method: 'POST', url: base, headers: { authorization: unconfirmed.bearer }, payload: { url: 'http://127.0.0.1:9/mine', events: ['site.created'] } }),
    await t.app.inject({ method: 'PATCH', url: `${base}/${webhook.id}`, headers: { authorization: unconfirmed.bearer }, payload: { url: 'http://127.0.0.1:9/mine' } }),
  ];
  for (const response of refusals) {
    assert.equal(response.statusCode, 403, response.body);
    assert.equal(response.json<{ code: string }>().code, EMAIL_VERIFICATION_ERRORS.EMAIL_NOT_VERIFIED);
  }
  const [stored] = await t.database.db.selectFrom('webhooks').select(['url']).execute();
  assert.equal(stored?.url, 'http://127.0.0.1:9/hooks?key=receiver-key');
  assert.equal((await t.database.db.selectFrom('webhooks').select('id').execute()).length, 1);
  // What only manages the webhook stays open to any admin.
  const paused = await t.app.inject({ method: 'PATCH', url: `${base}/${webhook.id}`, headers: { authorization: unconfirmed.bearer }, payload: { enabled: false } });
  assert.equal(paused.statusCode, 200, paused.body);
});

test('deleting a webhook deletes its log and stops its deliveries, one in flight too; retention keeps pending ones and drops old ended ones', async () => {
  const t = await app();
  const hooks = await receiver();
  const owner = await person(t);
  const workspace = await personalWorkspace(t, owner);
  const kept = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.created'] });
  const gone = await createWebhook(t, owner, workspace, { url: hooks.url, events: ['site.created'] });
  await createSite(t.app, owner.bearer);
  await hooks.waitFor(2);
  await untilDeliveries(t, owner, workspace, kept.id, (list) => list[0]?.status === 'succeeded');
  await untilDeliveries(t, owner, workspace, gone.id, (list) => list[0]?.status === 'succeeded');
  const removed = await t.app.inject({ method: 'DELETE', url: `/api/v1/workspaces/${workspace}/webhooks/${gone.id}`, headers: { authorization: owner.bearer } });
  assert.equal(removed.statusCode, 204);
  const left = await t.database.db.selectFrom('webhook_deliveries').select('webhook_id').execute();
  assert.deepEqual(
    left.map((row) => row.webhook_id),
    [kept.id],
  );

  // Deleted while an attempt is in flight: the attempt's end finds nothing to record, and no error.
  const slow = await receiver(() => 'hang');
  const inFlight = await createWebhook(t, owner, workspace, { url: slow.url, events: ['site.created'] });
  await createSite(t.app, owner.bearer, { name: 'In flight' });
  await slow.waitFor(1);
  const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/workspaces/${workspace}/webhooks/${inFlight.id}`, headers: { authorization: owner.bearer } });
  assert.equal(deleted.statusCode, 204);
  // Its receiver goes away, which ends the attempt. The sender tries one batch at a time, so the
  // next delivery's attempt (below) is made only once this one has ended.
  await slow.close();

  // A pending delivery (its receiver down) survives retention; the ended one goes after 30 days.
  await t.database.db.updateTable('webhooks').set({ url: 'http://127.0.0.1:9/' }).where('id', '=', kept.id).execute();
  await createSite(t.app, owner.bearer, { name: 'Pending' });
  await untilDeliveries(t, owner, workspace, kept.id, (list) => list[0]?.attempts.length === 1);
  assert.equal((await t.database.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', inFlight.id).execute()).length, 0);
  assert.ok(!t.logs().includes('sending webhooks failed'), t.logs());
  t.clock.advance(31 * DAY_MS);
  await t.app.close();
  await pruneStaleRows(t.database.db, new RateLimiter(t.database.db, t.clock), t.clock, { auditDays: 365, trashDays: 30 });
  const after = await t.database.db.selectFrom('webhook_deliveries').select(['status']).execute();
  assert.deepEqual(
    after.map((row) => row.status),
    ['pending'],
  );
  assert.equal((await t.database.db.selectFrom('webhook_attempts').select('id').execute()).length, 1);
});
