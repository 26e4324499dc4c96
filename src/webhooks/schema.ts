import { type Static, Type } from 'typebox';
import { describedId, Id } from '../http/params.js';
import {
  WEBHOOK_DELIVERIES_DEFAULT_LIMIT,
  WEBHOOK_DELIVERIES_MAX_LIMIT,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_URL_MAX_LENGTH,
} from './contract.js';

const Url = Type.String({ minLength: 1, maxLength: WEBHOOK_URL_MAX_LENGTH, description: 'Where events are POSTed: an absolute http(s) URL' });
const Events = Type.Array(Type.Enum(WEBHOOK_EVENT_TYPES), { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: 'The events it receives' });
const Description = Type.String({ maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH });

export const WebhookSchema = Type.Object({
  id: Type.String(),
  workspace_id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.Literal('failing'), Type.Null()], { description: '"failing" when Siteward turned it off after 3 days of failed deliveries' }),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Since when every attempt has failed; null after a success' }),
  previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Until when the secret before the last rotation also signs' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type WebhookJson = Static<typeof WebhookSchema>;

const WithSecret = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.String({ description: 'The signing secret (whsec_…). Shown in this answer only: store it now' }),
});
export type WebhookWithSecretJson = Static<typeof WithSecret>;

export const WebhookEnvelope = Type.Object({ webhook: WebhookSchema });
export const WebhookSecretEnvelope = Type.Object({ webhook: WithSecret });
export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookSchema) });

export const WebhookCreateBody = Type.Object({ url: Url, events: Events, description: Type.Optional(Description) }, { additionalProperties: false });
export type WebhookCreateJson = Static<typeof WebhookCreateBody>;
export const WebhookUpdateBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookUpdateJson = Static<typeof WebhookUpdateBody>;

export const WorkspaceWebhooksParams = Type.Object({ id: Id });
export const WebhookParams = Type.Object({ id: Id, webhook_id: Id });
export const DeliveryParams = Type.Object({ id: Id, webhook_id: Id, delivery_id: Id });

export const AttemptSchema = Type.Object({
  at: Type.String({ format: 'date-time' }),
  response_status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status; null when no answer came" }),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], { description: 'What went wrong; null for a 2xx answer' }),
});

export const DeliverySchema = Type.Object({
  id: Type.String({ description: 'Sent as webhook-id, the same on every attempt' }),
  event_type: Type.String(),
  status: Type.Enum(WEBHOOK_DELIVERY_STATUSES),
  created_at: Type.String({ format: 'date-time' }),
  attempts: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' }),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a pending delivery is tried next' }),
});
export type DeliveryJson = Static<typeof DeliverySchema>;

const DeliveryWithPayload = Type.Object({
  ...DeliverySchema.properties,
  payload: Type.Unknown({ description: 'The body sent: {type, timestamp, data}' }),
});
export type DeliveryWithPayloadJson = Static<typeof DeliveryWithPayload>;

export const DeliveryEnvelope = Type.Object({ delivery: DeliverySchema });
export const DeliveryPayloadEnvelope = Type.Object({ delivery: DeliveryWithPayload });
export const DeliveryPage = Type.Object({
  deliveries: Type.Array(DeliverySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next (older) page; null on the last' }),
});
export type DeliveryPageJson = Static<typeof DeliveryPage>;

export const DeliveryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: WEBHOOK_DELIVERIES_MAX_LIMIT, default: WEBHOOK_DELIVERIES_DEFAULT_LIMIT })),
    cursor: Type.Optional(describedId('next_cursor of the page before: the last delivery of that page')),
  },
  { additionalProperties: false },
);
