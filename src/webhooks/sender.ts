import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import pLimit from 'p-limit';
import { recordAuditEvent } from '../audit/queries.js';
import type { BackgroundJob } from '../background/jobs.js';
import { LeasedWork } from '../background/leased-work.js';
import { SYSTEM } from '../audit/origin.js';
import { newId } from '../lib/ids.js';
import { findAdminEmails, findWorkspaceName } from '../memberships/queries.js';
import type { Mailer } from '../mail/mailer.js';
import { webhookDisabledMessage } from '../mail/templates.js';
import { OutboundError } from '../outbound/errors.js';
import { createGuardedFetch } from '../outbound/guarded-fetch.js';
import { WEBHOOK_DISABLE_AFTER_DAYS, WEBHOOK_TIMEOUT_SECONDS } from './contract.js';
import { displayUrl, webhookSecretContext, webhookTarget, type WebhookServiceDeps } from './service.js';
import { anyDeliveryDue, clearFailingSince, type ClaimedDelivery, disableFailingWebhook, findDueDeliveries, findWebhookById, finishAttempt, insertAttempt, leaseDeliveries, setFailingSince } from './sender-queries.js';
import { signatureHeader } from './signing.js';

export const WEBHOOK_USER_AGENT = 'Siteward-webhooks/1.0';
const DAY_MS = 24 * 60 * 60 * 1000;
/** A receiver's answer is not read: past this it is cut off (the status line is what counts). */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookSenderOptions {
  /** How often every app server looks for due deliveries. */
  pollIntervalMs: number;
  /** An attempt without an answer by then has failed. */
  timeoutMs: number;
  /** How long a claimed delivery is held: past it (the sender died mid-send) another sender takes it. */
  leaseMs: number;
  /** Attempts one server makes at once. */
  concurrency: number;
  /** The waits before each retry; after the last, a failing delivery has failed for good. */
  retryDelaysMs: readonly number[];
}

/**
 * Retries as Standard Webhooks suggests: the first within seconds, the last about a day after the
 * event (27.6 hours in all, before jitter).
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];

export const DEFAULT_SENDER_OPTIONS: WebhookSenderOptions = {
  pollIntervalMs: 1_000,
  timeoutMs: WEBHOOK_TIMEOUT_SECONDS * 1000,
  leaseMs: WEBHOOK_TIMEOUT_SECONDS * 1000 + 20_000,
  concurrency: 8,
  retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
};

export interface WebhookSenderDeps extends WebhookServiceDeps {
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  /** Told when a background step fails (the database may be away). */
  onError: (error: unknown) => void;
}

interface Attempt {
  at: Date;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Sends the outbox. Every app server runs one; each attempt is made by exactly one of them: a
 * sender claims due deliveries with a lease in a short transaction (PostgreSQL: FOR UPDATE SKIP
 * LOCKED, so servers never wait for each other; SQLite: the write transaction is the claim), sends
 * without holding any lock, then records the attempt if it still holds the lease. A sender that
 * dies mid-send leaves a lease that runs out, and the delivery is sent again with the same
 * webhook-id. Deliveries with the same order key (a site) go one at a time, in the order of their
 * changes; a failing one holds back the later ones of its site until it ends.
 */
export class WebhookSender implements BackgroundJob {
  readonly #options: WebhookSenderOptions;
  readonly #work: LeasedWork<ClaimedDelivery>;

  constructor(
    private readonly deps: WebhookSenderDeps,
    options: Partial<WebhookSenderOptions> = {},
  ) {
    this.#options = { ...DEFAULT_SENDER_OPTIONS, ...options };
    const claimLimit = this.#options.concurrency * 2;
    this.#work = new LeasedWork(
      deps,
      {
        anyDue: anyDeliveryDue,
        due: (trx, now) => findDueDeliveries(trx, deps.dialect, now, claimLimit),
        lease: leaseDeliveries,
        handle: async (claimed) => {
          const limit = pLimit(this.#options.concurrency);
          await Promise.all(claimed.map((delivery) => limit(() => this.#deliver(delivery))));
        },
      },
      this.#options,
    );
  }

  start(): void {
    this.#work.start();
  }

  /** Looks for due deliveries now, unless a look is under way. */
  poke(): void {
    this.#work.poke();
  }

  /** Sends due deliveries until none is left; resolves with how many attempts were made. */
  drain(): Promise<number> {
    return this.#work.drain();
  }

  /** Stops looking and waits for the attempts under way. */
  close(): Promise<void> {
    return this.#work.close();
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const at = this.deps.clock.now();
    const started = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const timestamp = Math.floor(at.getTime() / 1000);
      const fetch = createGuardedFetch({
        policy: this.deps.policy,
        resolver: this.deps.resolver,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        maxRedirects: 0,
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        credentialOrigin: null,
        userAgent: WEBHOOK_USER_AGENT,
      });
      const response = await fetch(delivery.url, {
        method: 'POST',
        // Never followed: a redirect could lead a signed event anywhere, private addresses included.
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(this.#signingSecrets(delivery, at), delivery.id, timestamp, delivery.payload),
        },
        body: delivery.payload,
      });
      responseStatus = response.status;
      await response.body?.cancel();
      if (responseStatus >= 300 && responseStatus < 400) error = `the receiver answered with a redirect (HTTP ${responseStatus}); webhooks do not follow redirects`;
      else if (responseStatus < 200 || responseStatus >= 300) error = `the receiver answered HTTP ${responseStatus}`;
    } catch (caught) {
      const described = describeFailure(caught, this.#options.timeoutMs);
      if (described === undefined) this.deps.log.warn({ err: caught, webhookId: delivery.webhook_id, deliveryId: delivery.id }, 'a webhook attempt failed unexpectedly');
      error = described ?? 'the request failed';
    }
    await this.#record(delivery, { at, responseStatus, durationMs: Math.round(performance.now() - started), error });
  }

  /** The current secret, and the one before a rotation while it still signs. */
  #signingSecrets(delivery: ClaimedDelivery, at: Date): string[] {
    const secrets = [this.deps.secrets.decrypt(delivery.secret, webhookSecretContext(delivery.webhook_id))];
    if (delivery.previous_secret !== null && delivery.previous_secret_expires_at !== null && Date.parse(delivery.previous_secret_expires_at) > at.getTime()) {
      secrets.push(this.deps.secrets.decrypt(delivery.previous_secret, webhookSecretContext(delivery.webhook_id)));
    }
    return secrets;
  }

  /**
   * Stores the attempt and what follows from it: the delivery ends, or is due again after the next
   * wait (with jitter, so receivers coming back are not met by every retry at once). A webhook
   * whose attempts have all failed for 3 days is turned off and its admins are told.
   */
  async #record(delivery: ClaimedDelivery, attempt: Attempt): Promise<void> {
    const { db, clock } = this.deps;
    const atText = attempt.at.toISOString();
    const disabled = await db.transaction().execute(async (trx) => {
      const attempts = delivery.attempt_count + 1;
      const delay = this.#options.retryDelaysMs[attempts - 1];
      const next =
        attempt.error === null
          ? { status: 'succeeded' as const, next_attempt_at: null }
          : delay === undefined
            ? { status: 'failed' as const, next_attempt_at: null }
            : { status: 'pending' as const, next_attempt_at: new Date(clock.now().getTime() + withJitter(delay)).toISOString() };
      // The lease ran out and another sender took the delivery (its outcome is the one that counts),
      // or the webhook was deleted meanwhile: nothing to record.
      if (!(await finishAttempt(trx, delivery.id, this.#work.owner, { ...next, attempt_count: attempts }))) return undefined;
      await insertAttempt(trx, { id: newId(attempt.at), delivery_id: delivery.id, at: atText, response_status: attempt.responseStatus, duration_ms: attempt.durationMs, error: attempt.error });
      if (attempt.error === null) {
        await clearFailingSince(trx, delivery.webhook_id);
        return undefined;
      }
      const webhook = await findWebhookById(trx, delivery.webhook_id);
      if (webhook === undefined || webhook.enabled !== 1) return undefined;
      const failingSince = webhook.failing_since ?? atText;
      if (webhook.failing_since === null) await setFailingSince(trx, webhook.id, failingSince);
      if (Date.parse(failingSince) > attempt.at.getTime() - WEBHOOK_DISABLE_AFTER_DAYS * DAY_MS) return undefined;
      await disableFailingWebhook(trx, webhook.id, clock.now().toISOString());
      await recordAuditEvent(trx, clock, SYSTEM, {
        workspaceId: webhook.workspace_id,
        action: 'webhook.disabled',
        target: webhookTarget(webhook),
        details: { reason: 'failing', failing_since: failingSince },
      });
      return { webhook, failingSince, workspaceName: (await findWorkspaceName(trx, webhook.workspace_id)) ?? '', admins: await findAdminEmails(trx, webhook.workspace_id) };
    });
    if (disabled === undefined) return;
    this.deps.log.info({ webhookId: disabled.webhook.id }, 'webhook turned off after failing for %d days', WEBHOOK_DISABLE_AFTER_DAYS);
    const link = new URL(`/settings/workspaces/${disabled.webhook.workspace_id}/webhooks`, this.deps.publicUrl).href;
    for (const to of disabled.admins) {
      this.deps.mailer.send(webhookDisabledMessage(to, { url: displayUrl(disabled.webhook.url), workspaceName: disabled.workspaceName, failingSince: disabled.failingSince, link }));
    }
  }
}

/** ±20%: retries of many deliveries spread out instead of arriving together. */
function withJitter(delayMs: number): number {
  return Math.round(delayMs * (0.8 + Math.random() * 0.4));
}

/** A failed attempt in our words, or undefined for a failure we did not expect (logged). */
function describeFailure(error: unknown, timeoutMs: number): string | undefined {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs / 1000} s`;
  if (error instanceof OutboundError) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was closed before an answer came';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT'))) return `TLS failed (${code})`;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `the connection failed (${code})`;
  return undefined;
}
