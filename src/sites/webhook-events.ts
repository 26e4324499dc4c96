import type { Transaction } from 'kysely';
import type { ChangeOrigin } from '../audit/origin.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { WebhookEventType } from '../webhooks/contract.js';
import { eventActor, publishWebhookEvent } from '../webhooks/outbox.js';
import { siteToJson } from './presenter.js';
import type { SiteRow } from './queries.js';

/**
 * Queues a site's change for its workspace's webhooks, in the change's transaction. The site is
 * shown as the API shows it (no token); the site's id orders its events.
 */
export function publishSiteEvent(trx: Transaction<Database>, clock: Clock, origin: ChangeOrigin, type: WebhookEventType, site: SiteRow, facts: Record<string, unknown>): Promise<void> {
  return publishWebhookEvent(trx, clock, {
    workspaceId: site.workspace_id,
    type,
    orderKey: site.id,
    data: () => ({ site: siteToJson(site), version: site.version, ...facts, ...eventActor(origin) }),
  });
}
