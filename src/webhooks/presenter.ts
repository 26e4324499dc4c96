import type { DeliveryRow, WebhookRow } from './queries.js';
import type { DeliveryJson, WebhookJson } from './schema.js';

export function webhookToJson(row: WebhookRow): WebhookJson {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason === 'failing' ? 'failing' : null,
    failing_since: row.failing_since,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function deliveryToJson(row: Omit<DeliveryRow, 'seq'>, attempts: ReadonlyArray<{ delivery_id: string; at: string; response_status: number | null; duration_ms: number; error: string | null }>): DeliveryJson {
  return {
    id: row.id,
    event_type: row.event_type,
    status: row.status,
    created_at: row.created_at,
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .map((attempt) => ({ at: attempt.at, response_status: attempt.response_status, duration_ms: attempt.duration_ms, error: attempt.error })),
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
  };
}
