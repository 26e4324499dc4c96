/** The webhooks' vocabulary and limits. No imports: the dashboard reads them from here. */

/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'site.created',
  'site.updated',
  'site.deleted',
  'site.restored',
  'partner.status_changed',
  'member.joined',
  'member.removed',
  'change_request.opened',
  'change_request.applied',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent by "test" only; no webhook subscribes to it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const WEBHOOK_URL_MAX_LENGTH = 2000;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
/** Webhooks one workspace may have. */
export const WEBHOOKS_PER_WORKSPACE = 20;
export const WEBHOOK_DELIVERIES_DEFAULT_LIMIT = 20;
export const WEBHOOK_DELIVERIES_MAX_LIMIT = 100;
/** How long the secret before a rotation keeps signing, so receivers can switch without losing a message. */
export const WEBHOOK_SECRET_OVERLAP_HOURS = 24;
/** A webhook whose every attempt has failed for this long is turned off, and its admins told. */
export const WEBHOOK_DISABLE_AFTER_DAYS = 3;
/** An answer slower than this is a failed attempt. */
export const WEBHOOK_TIMEOUT_SECONDS = 10;
