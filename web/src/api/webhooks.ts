// A workspace's webhooks and their deliveries. One function per call.
import { client, dataOf } from './client';
import type { RequestJson } from './types';

const path = (id: string, webhookId: string) => ({ params: { path: { id, webhook_id: webhookId } } });

export const fetchWebhooks = async (id: string, signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/workspaces/{id}/webhooks', { params: { path: { id } }, signal }))).webhooks;
export const createWebhook = async (id: string, body: RequestJson<'/api/v1/workspaces/{id}/webhooks', 'post'>) =>
  (await dataOf(client.POST('/api/v1/workspaces/{id}/webhooks', { params: { path: { id } }, body }))).webhook;
export const updateWebhook = async (id: string, webhookId: string, body: RequestJson<'/api/v1/workspaces/{id}/webhooks/{webhook_id}', 'patch'>) =>
  (await dataOf(client.PATCH('/api/v1/workspaces/{id}/webhooks/{webhook_id}', { ...path(id, webhookId), body }))).webhook;
export const deleteWebhook = (id: string, webhookId: string) => dataOf(client.DELETE('/api/v1/workspaces/{id}/webhooks/{webhook_id}', path(id, webhookId)));
export const sendTestEvent = async (id: string, webhookId: string) => (await dataOf(client.POST('/api/v1/workspaces/{id}/webhooks/{webhook_id}/test', path(id, webhookId)))).delivery;
export const rotateWebhookSecret = async (id: string, webhookId: string) =>
  (await dataOf(client.POST('/api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret', path(id, webhookId)))).webhook;

export const fetchDeliveries = (id: string, webhookId: string, cursor: string | null, limit: number, signal?: AbortSignal) =>
  dataOf(
    client.GET('/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries', {
      params: { path: { id, webhook_id: webhookId }, query: { limit, ...(cursor === null ? {} : { cursor }) } },
      signal,
    }),
  );
export const redeliverDelivery = (id: string, webhookId: string, deliveryId: string) =>
  dataOf(client.POST('/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { params: { path: { id, webhook_id: webhookId, delivery_id: deliveryId } } }));
