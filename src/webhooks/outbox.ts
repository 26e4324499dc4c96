import type { Kysely, Transaction } from 'kysely';
import { type ChangeOrigin, originColumns, originJson } from '../audit/origin.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { WebhookEventType } from './contract.js';

/** A change as webhooks report it. */
export interface WebhookEvent {
  workspaceId: string;
  type: WebhookEventType;
  /** Events with the same key reach each webhook one at a time, in the order they were published: a site's id. */
  orderKey: string;
  /** The event's `data`; built only when some webhook receives it. Never a secret. */
  data: () => Record<string, unknown>;
}

// Read in the transaction of every site change, so built and compiled once.
const subscribedWebhooks = new PreparedQuery((db, p: { workspaceId: string }) =>
  db.selectFrom('webhooks').select(['id', 'events']).where('workspace_id', '=', p.workspaceId).where('enabled', '=', 1),
);

const insertDelivery = new PreparedQuery((db, p: { id: string; webhook_id: string; event_type: string; order_key: string; payload: string; created_at: string }) =>
  db.insertInto('webhook_deliveries').values({
    id: p.id,
    webhook_id: p.webhook_id,
    event_type: p.event_type,
    order_key: p.order_key,
    payload: p.payload,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: p.created_at,
    lease_owner: null,
    lease_until: null,
    created_at: p.created_at,
  }),
);

/** The body every attempt of a delivery sends, as Standard Webhooks shapes it. */
export function webhookBody(type: string, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * Queues the event for every enabled webhook of the workspace that receives its type, in the
 * caller's transaction: the change and its deliveries commit together or not at all. A webhook
 * created after this transaction's read receives the next change, not this one.
 */
export async function publishWebhookEvent(trx: Transaction<Database> | Kysely<Database>, clock: Clock, event: WebhookEvent): Promise<void> {
  const webhooks = await subscribedWebhooks.execute(trx, { workspaceId: event.workspaceId });
  const receivers = webhooks.filter((webhook) => (JSON.parse(webhook.events) as string[]).includes(event.type));
  if (receivers.length === 0) return;
  const now = clock.now();
  const payload = webhookBody(event.type, now, event.data());
  for (const webhook of receivers) {
    await insertDelivery.execute(trx, { id: newId(now), webhook_id: webhook.id, event_type: event.type, order_key: event.orderKey, payload, created_at: now.toISOString() });
  }
}

/** Who made a change and with which credential, as an event's data names them (a token by its name only). */
export function eventActor(origin: ChangeOrigin): { actor: { id: string; email: string; name: string } | null; via: ReturnType<typeof originJson>['via'] } {
  return originJson(originColumns(origin));
}

/** Someone joined or left a workspace, as webhooks report it; a workspace's member events keep their order. */
export function publishMemberEvent(
  trx: Transaction<Database>,
  clock: Clock,
  origin: ChangeOrigin,
  event: { type: 'member.joined' | 'member.removed'; workspace: { id: string; name: string }; member: { id: string; email: string; name: string }; role: string; left?: boolean },
): Promise<void> {
  return publishWebhookEvent(trx, clock, {
    workspaceId: event.workspace.id,
    type: event.type,
    orderKey: event.workspace.id,
    data: () => ({
      workspace: { id: event.workspace.id, name: event.workspace.name },
      member: { id: event.member.id, email: event.member.email, name: event.member.name, role: event.role },
      ...(event.left === undefined ? {} : { left: event.left }),
      ...eventActor(origin),
    }),
  });
}
