// What people read about webhooks: each event the server can send, a webhook's state and a
// delivery's attempts. Keyed by the server's own lists, so a new event needs words here.
import { WEBHOOK_DISABLE_AFTER_DAYS, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType } from '@server/webhooks/contract';
import type { Webhook, WebhookDelivery } from './api/types';
import { formatDateTime, formatRelative } from './format';

export type { Webhook, WebhookDelivery, WebhookWithSecret } from './api/types';

const EVENT_TEXT: Record<WebhookEventType, { label: string; description: string }> = {
  'site.created': { label: 'Site created', description: 'A site was added to the workspace.' },
  'site.updated': { label: 'Site changed', description: 'A site’s settings were saved, with the paths that changed.' },
  'site.deleted': { label: 'Site deleted', description: 'A site was moved to the trash.' },
  'site.restored': { label: 'Site restored', description: 'An earlier version was restored, or the site came back from the trash.' },
  'partner.status_changed': { label: 'Partner connection broke or recovered', description: 'A check found the partner connection failing after it worked, or working again.' },
  'member.joined': { label: 'Member joined', description: 'Someone joined the workspace.' },
  'member.removed': { label: 'Member left or was removed', description: 'Someone left the workspace or was removed from it.' },
  'change_request.opened': { label: 'Change proposed', description: 'Someone proposed a change to a site for review.' },
  'change_request.applied': { label: 'Change applied', description: 'A reviewed change went live as a new version of its site.' },
};

/** The events a webhook may receive, in the server's order, with words for each. */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_TYPES.map((type) => ({ type, ...EVENT_TEXT[type] }));

/** An event type as people read it; the test event too, and any type this dashboard does not know as it is. */
export function eventLabel(type: string): string {
  if (type === WEBHOOK_TEST_EVENT) return 'Test event';
  return (EVENT_TEXT as Record<string, { label: string } | undefined>)[type]?.label ?? type;
}

export type BadgeKind = 'success' | 'danger' | 'accent' | 'neutral';

/** A webhook's state at a glance: on, on but failing, or off (by a person, or by Siteward after days of failures). */
export function webhookState(webhook: Pick<Webhook, 'enabled' | 'disabled_reason' | 'failing_since'>): { label: string; kind: BadgeKind; detail?: string } {
  if (!webhook.enabled && webhook.disabled_reason === 'failing') {
    return { label: 'Turned off', kind: 'danger', detail: `Siteward turned it off after ${WEBHOOK_DISABLE_AFTER_DAYS} days of failed deliveries. Fix the receiver, then turn it on again.` };
  }
  if (!webhook.enabled) return { label: 'Off', kind: 'neutral', detail: 'No events are queued for it while it is off.' };
  if (webhook.failing_since !== null) {
    return {
      label: 'Failing',
      kind: 'danger',
      detail: `Every delivery has failed since ${formatDateTime(webhook.failing_since)}. After ${WEBHOOK_DISABLE_AFTER_DAYS} days of this it is turned off.`,
    };
  }
  return { label: 'Active', kind: 'success' };
}

export function deliveryState(delivery: Pick<WebhookDelivery, 'status' | 'next_attempt_at' | 'attempts'>, now = Date.now()): { label: string; kind: BadgeKind; detail?: string } {
  if (delivery.status === 'succeeded') return { label: 'Delivered', kind: 'success' };
  if (delivery.status === 'failed') return { label: 'Failed', kind: 'danger', detail: 'Every retry failed. Redeliver it once the receiver works.' };
  if (delivery.attempts.length === 0) return { label: 'Pending', kind: 'accent', detail: 'Not sent yet.' };
  const next = delivery.next_attempt_at === null ? '' : ` Next try ${formatRelative(delivery.next_attempt_at, now)}.`;
  return { label: 'Retrying', kind: 'accent', detail: `The last attempt failed.${next}` };
}

/** One attempt in a few words: the receiver's answer and how long it took, or why none came. */
export function attemptText(attempt: WebhookDelivery['attempts'][number]): string {
  const took = `${attempt.duration_ms.toLocaleString('en')} ms`;
  if (attempt.response_status === null) return `No answer after ${took}: ${attempt.error ?? 'the request failed'}`;
  const redirect = attempt.response_status >= 300 && attempt.response_status < 400 ? ' (a redirect, which webhooks do not follow)' : '';
  return `HTTP ${attempt.response_status} in ${took}${redirect}`;
}
