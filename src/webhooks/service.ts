import type { Kysely, Transaction } from 'kysely';
import { recordAuditEvent } from '../audit/queries.js';
import type { PersonOrigin } from '../audit/origin.js';
import type { DialectName } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { assertCan, workspaceNotFound } from '../memberships/permissions.js';
import { findWorkspaceOf, lockWorkspaceOf } from '../memberships/queries.js';
import { OUTBOUND_FAILURE, OutboundError } from '../outbound/errors.js';
import { type AddressPolicy, AddressRefusedError, type Resolver, resolveAllowedAddresses } from '../outbound/network-guard.js';
import { WEBHOOK_SECRET_OVERLAP_HOURS, WEBHOOK_TEST_EVENT, WEBHOOKS_PER_WORKSPACE } from './contract.js';
import { invalidCursor } from '../pagination/cursor.js';
import { WEBHOOK_ERRORS } from './errors.js';
import { webhookBody } from './outbox.js';
import {
  countWebhooks,
  deleteWebhook,
  findDelivery,
  findWebhook,
  insertDelivery,
  insertWebhook,
  listAttempts,
  listDeliveries,
  listWebhooks,
  requeueDelivery,
  updateWebhook,
  type WebhookRow,
} from './queries.js';
import type { DeliveryJson, DeliveryPageJson, DeliveryWithPayloadJson, WebhookCreateJson, WebhookJson, WebhookUpdateJson, WebhookWithSecretJson } from './schema.js';
import { deliveryToJson, webhookToJson } from './presenter.js';
import { newWebhookSecret } from './signing.js';

const HOUR_MS = 60 * 60 * 1000;
/** How long resolving a new URL's host may take before it is saved unresolved (the sender resolves it again anyway). */
const URL_CHECK_TIMEOUT_MS = 3_000;

/** Binds a secret's ciphertext to its webhook: copied into another row it does not decrypt. */
export function webhookSecretContext(webhookId: string): string {
  return `webhook:${webhookId}:secret`;
}

function webhookNotFound(): AppError {
  return new AppError(404, WEBHOOK_ERRORS.WEBHOOK_NOT_FOUND, 'This workspace has no webhook with this id.');
}

function deliveryNotFound(): AppError {
  return new AppError(404, WEBHOOK_ERRORS.DELIVERY_NOT_FOUND, 'This webhook has no delivery with this id.');
}

function webhookDisabled(): AppError {
  return new AppError(409, WEBHOOK_ERRORS.WEBHOOK_DISABLED, 'The webhook is turned off; turn it on (PATCH enabled: true) to send to it.');
}

export interface WebhookServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  secrets: SecretBox;
  policy: AddressPolicy;
  resolver: Resolver;
}

/** A workspace's webhooks, for its admins: settings, secrets, the delivery log and redelivery. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async list(userId: string, workspaceId: string): Promise<WebhookJson[]> {
    await this.#assertMayManage(userId, workspaceId);
    return (await listWebhooks(this.deps.db, workspaceId)).map(webhookToJson);
  }

  async get(userId: string, workspaceId: string, webhookId: string): Promise<WebhookJson> {
    return webhookToJson(await this.#find(userId, workspaceId, webhookId));
  }

  /** Creates a webhook; the answer is the only time its secret is shown. */
  async create(origin: PersonOrigin, workspaceId: string, input: WebhookCreateJson): Promise<WebhookWithSecretJson> {
    const url = await this.#checkUrl(input.url);
    const now = this.deps.clock.now();
    const id = newId(now);
    const secret = newWebhookSecret();
    const row: WebhookRow = {
      id,
      workspace_id: workspaceId,
      url,
      description: input.description?.trim() ?? '',
      events: JSON.stringify(input.events),
      enabled: 1,
      secret: this.deps.secrets.encrypt(secret, webhookSecretContext(id)),
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      disabled_reason: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.#locked(origin, workspaceId, async (trx) => {
      if ((await countWebhooks(trx, workspaceId)) >= WEBHOOKS_PER_WORKSPACE) {
        throw new AppError(409, WEBHOOK_ERRORS.TOO_MANY_WEBHOOKS, `A workspace has at most ${WEBHOOKS_PER_WORKSPACE} webhooks; delete one first.`);
      }
      await insertWebhook(trx, row);
      await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'webhook.created', target: webhookTarget(row), details: { events: input.events } });
    });
    return { ...webhookToJson(row), secret };
  }

  /** Changes the URL, events, description or whether it is on. Turning it on clears its failure record. */
  async update(origin: PersonOrigin, workspaceId: string, webhookId: string, input: WebhookUpdateJson): Promise<WebhookJson> {
    const url = input.url === undefined ? undefined : await this.#checkUrl(input.url);
    return this.#locked(origin, workspaceId, async (trx) => {
      const row = await findWebhook(trx, workspaceId, webhookId);
      if (row === undefined) throw webhookNotFound();
      const changes: Partial<WebhookRow> = { updated_at: this.deps.clock.now().toISOString() };
      if (url !== undefined) changes.url = url;
      if (input.events !== undefined) changes.events = JSON.stringify(input.events);
      if (input.description !== undefined) changes.description = input.description.trim();
      if (input.enabled !== undefined && (input.enabled ? 1 : 0) !== row.enabled) {
        changes.enabled = input.enabled ? 1 : 0;
        changes.disabled_reason = null;
        changes.failing_since = null;
      }
      const updated = { ...row, ...changes };
      await updateWebhook(trx, webhookId, changes);
      const changed = (['url', 'events', 'description', 'enabled'] as const).filter((field) => updated[field] !== row[field]);
      if (changed.length > 0) await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'webhook.updated', target: webhookTarget(updated), details: { changed } });
      return webhookToJson(updated);
    });
  }

  /** Deletes the webhook with its delivery log; pending deliveries are not sent. */
  async delete(origin: PersonOrigin, workspaceId: string, webhookId: string): Promise<void> {
    await this.#locked(origin, workspaceId, async (trx) => {
      const row = await findWebhook(trx, workspaceId, webhookId);
      if (row === undefined) throw webhookNotFound();
      await deleteWebhook(trx, webhookId);
      await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'webhook.deleted', target: webhookTarget(row) });
    });
  }

  /**
   * A new secret, shown in this answer only. The one it replaces keeps signing for 24 hours, so a
   * receiver can switch without refusing a message; rotating again ends that overlap at once.
   */
  async rotateSecret(origin: PersonOrigin, workspaceId: string, webhookId: string): Promise<WebhookWithSecretJson> {
    const secret = newWebhookSecret();
    return this.#locked(origin, workspaceId, async (trx) => {
      const row = await findWebhook(trx, workspaceId, webhookId);
      if (row === undefined) throw webhookNotFound();
      const now = this.deps.clock.now();
      const changes: Partial<WebhookRow> = {
        secret: this.deps.secrets.encrypt(secret, webhookSecretContext(webhookId)),
        previous_secret: row.secret,
        previous_secret_expires_at: new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_HOURS * HOUR_MS).toISOString(),
        updated_at: now.toISOString(),
      };
      await updateWebhook(trx, webhookId, changes);
      await recordAuditEvent(trx, this.deps.clock, origin, { workspaceId, action: 'webhook.secret_rotated', target: webhookTarget(row) });
      return { ...webhookToJson({ ...row, ...changes }), secret };
    });
  }

  /** Queues a `webhook.test` event for this webhook alone; it goes out like any other delivery. */
  async test(origin: PersonOrigin, workspaceId: string, webhookId: string): Promise<DeliveryJson> {
    return this.#locked(origin, workspaceId, async (trx) => {
      const row = await findWebhook(trx, workspaceId, webhookId);
      if (row === undefined) throw webhookNotFound();
      if (row.enabled !== 1) throw webhookDisabled();
      const now = this.deps.clock.now();
      const id = newId(now);
      const payload = webhookBody(WEBHOOK_TEST_EVENT, now, { webhook: { id: row.id, url: row.url }, actor: { id: origin.actor.id, email: origin.actor.email, name: origin.actor.name } });
      const delivery = {
        id,
        webhook_id: row.id,
        event_type: WEBHOOK_TEST_EVENT,
        // Its own key: a test never waits behind a site's deliveries, nor holds them up.
        order_key: id,
        payload,
        status: 'pending' as const,
        attempt_count: 0,
        next_attempt_at: now.toISOString(),
        lease_owner: null,
        lease_until: null,
        created_at: now.toISOString(),
      };
      await insertDelivery(trx, delivery);
      return deliveryToJson(delivery, []);
    });
  }

  /** The delivery log, newest first, each delivery with every attempt. */
  async deliveries(userId: string, workspaceId: string, webhookId: string, limit: number, cursor: string | undefined): Promise<DeliveryPageJson> {
    const webhook = await this.#find(userId, workspaceId, webhookId);
    return this.#snapshot(async (trx) => {
      let beforeSeq: number | undefined;
      if (cursor !== undefined) {
        const from = await findDelivery(trx, webhook.id, cursor);
        if (from === undefined) throw invalidCursor('is not a delivery of this webhook');
        beforeSeq = from.seq;
      }
      // One row more than asked says whether another page follows.
      const rows = await listDeliveries(trx, webhook.id, beforeSeq, limit + 1);
      const page = rows.slice(0, limit);
      const attempts = await listAttempts(
        trx,
        page.map((row) => row.id),
      );
      return { deliveries: page.map((row) => deliveryToJson(row, attempts)), next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
    });
  }

  /** One delivery with the body it sends. */
  async delivery(userId: string, workspaceId: string, webhookId: string, deliveryId: string): Promise<DeliveryWithPayloadJson> {
    const webhook = await this.#find(userId, workspaceId, webhookId);
    return this.#snapshot(async (trx) => {
      const row = await findDelivery(trx, webhook.id, deliveryId);
      if (row === undefined) throw deliveryNotFound();
      return { ...deliveryToJson(row, await listAttempts(trx, [row.id])), payload: JSON.parse(row.payload) as unknown };
    });
  }

  /**
   * Reads a delivery and its attempts as of one moment. The sender writes an attempt and the
   * delivery's next state in one transaction; read in two statements outside one, a delivery could
   * show its new attempt with its old state (due now, say) on PostgreSQL, whose statements each
   * see the latest commit unless the transaction is repeatable read.
   */
  #snapshot<T>(read: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.deps.db.transaction().setIsolationLevel('repeatable read').execute(read);
  }

  /**
   * Sends a delivery again, now, with the same webhook-id and body, and a fresh round of retries.
   * Receivers that de-duplicate by webhook-id see the same message.
   */
  async redeliver(origin: PersonOrigin, workspaceId: string, webhookId: string, deliveryId: string): Promise<DeliveryJson> {
    return this.#locked(origin, workspaceId, async (trx) => {
      const webhook = await findWebhook(trx, workspaceId, webhookId);
      if (webhook === undefined) throw webhookNotFound();
      if (webhook.enabled !== 1) throw webhookDisabled();
      const row = await findDelivery(trx, webhookId, deliveryId);
      if (row === undefined) throw deliveryNotFound();
      const now = this.deps.clock.now().toISOString();
      await requeueDelivery(trx, row.id, now);
      return deliveryToJson({ ...row, status: 'pending', attempt_count: 0, next_attempt_at: now }, await listAttempts(trx, [row.id]));
    });
  }

  async #assertMayManage(userId: string, workspaceId: string): Promise<void> {
    const workspace = await findWorkspaceOf(this.deps.db, userId, workspaceId);
    assertCan(workspace?.role, 'webhook.manage', workspaceNotFound);
  }

  async #find(userId: string, workspaceId: string, webhookId: string): Promise<WebhookRow> {
    await this.#assertMayManage(userId, workspaceId);
    const row = await findWebhook(this.deps.db, workspaceId, webhookId);
    if (row === undefined) throw webhookNotFound();
    return row;
  }

  /** Runs a change under the workspace's row lock, by an admin or owner of it. */
  #locked<T>(origin: PersonOrigin, workspaceId: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.deps.db.transaction().execute(async (trx) => {
      const workspace = await lockWorkspaceOf(trx, this.deps.dialect, origin.actor.id, workspaceId);
      assertCan(workspace?.role, 'webhook.manage', workspaceNotFound);
      return work(trx);
    });
  }

  /**
   * The URL as it will be used: absolute http(s), no user:password, and (unless private networks
   * are allowed) a host that does not resolve to a private, loopback or metadata address. A host
   * that does not resolve yet is accepted: every delivery checks again before it connects.
   */
  async #checkUrl(text: string): Promise<string> {
    const refuse = (message: string) => new AppError(400, WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED, `/url: ${message}`, { errors: [{ path: '/url', message }] });
    let url: URL;
    try {
      url = new URL(text.trim());
    } catch {
      throw validationError([{ path: '/url', message: 'must be an absolute http(s) URL' }]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError([{ path: '/url', message: 'must be an absolute http(s) URL' }]);
    if (url.username !== '' || url.password !== '') throw refuse('must not carry user:password; receivers check the signature instead');
    if (url.hash !== '') throw refuse('must not have a #fragment; it is never sent');
    try {
      await resolveAllowedAddresses(url.hostname, this.deps.policy, withTimeout(this.deps.resolver, URL_CHECK_TIMEOUT_MS));
    } catch (error) {
      if (error instanceof AddressRefusedError) throw refuse(`must not lead to a ${error.reason}`);
      if (!(error instanceof OutboundError)) throw error;
    }
    return url.href;
  }
}

function withTimeout(resolver: Resolver, ms: number): Resolver {
  return (hostname) =>
    Promise.race([
      resolver(hostname),
      new Promise<never>((_resolve, reject) => {
        setTimeout(() => reject(new OutboundError(OUTBOUND_FAILURE.unreachable, 'the DNS lookup took too long')), ms).unref();
      }),
    ]);
}

/** The webhook as the audit log names it: by its URL without the query. */
export function webhookTarget(row: Pick<WebhookRow, 'id' | 'url'>): { type: 'webhook'; id: string; name: string } {
  return { type: 'webhook', id: row.id, name: displayUrl(row.url) };
}

/** A URL as mail and the audit log name it: without its query, which some receivers use for a token. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

