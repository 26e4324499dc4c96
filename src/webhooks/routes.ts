import { Type } from 'typebox';
import { WEBHOOK_DELIVERIES_DEFAULT_LIMIT } from './contract.js';
import type { Guard } from '../auth/guard.js';
import { changeOriginOf } from '../audit/origin.js';
import { currentUser } from '../auth/principal.js';
import { assertEmailVerified } from '../email-verification/service.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import {
  DeliveryEnvelope,
  DeliveryPage,
  DeliveryParams,
  DeliveryPayloadEnvelope,
  DeliveryQuery,
  WebhookCreateBody,
  WebhookEnvelope,
  WebhookList,
  WebhookParams,
  WebhookSecretEnvelope,
  WebhookUpdateBody,
  WorkspaceWebhooksParams,
} from './schema.js';
import type { WebhookSender } from './sender.js';
import type { WebhookService } from './service.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }];
const tags = ['webhooks'];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema };

/**
 * A workspace's webhooks, for its owners and admins, signed in (an access token cannot reach
 * them, as it cannot reach workspaces). Pointing a workspace's events at a new URL, and seeing a
 * secret, also need a recent sign-in: a borrowed session cannot quietly copy every change away.
 * Creating one or pointing it elsewhere needs a confirmed address too, as inviting does.
 */
export function registerWebhookRoutes(app: App, deps: { guard: Guard; webhooks: WebhookService; sender: WebhookSender }): void {
  // Every route here is of one workspace: closed to a member who lacks the second factor it requires.
  const onRequest = deps.guard.require('signed_in', { workspaceParam: 'id' });
  const { webhooks, sender } = deps;
  const base = '/api/v1/workspaces/:id/webhooks';

  app.get(
    base,
    { onRequest, schema: { summary: "List a workspace's webhooks (admin); secrets are never shown again", tags, security, params: WorkspaceWebhooksParams, response: { 200: WebhookList, ...errors } } },
    async (request) => ({ webhooks: await webhooks.list(currentUser(request).id, request.params.id) }),
  );

  app.post(
    base,
    {
      onRequest,
      schema: {
        summary: 'Create a webhook (admin, recent sign-in, confirmed e-mail address); the answer shows its signing secret, once',
        tags,
        security,
        params: WorkspaceWebhooksParams,
        body: WebhookCreateBody,
        response: { 201: WebhookSecretEnvelope, ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      deps.guard.assertRecent(request);
      assertEmailVerified(currentUser(request));
      const webhook = await webhooks.create(changeOriginOf(request), request.params.id, request.body);
      return reply.code(201).header('location', `/api/v1/workspaces/${request.params.id}/webhooks/${webhook.id}`).send({ webhook });
    },
  );

  app.get(
    `${base}/:webhook_id`,
    { onRequest, schema: { summary: 'Read a webhook (admin)', tags, security, params: WebhookParams, response: { 200: WebhookEnvelope, ...errors } } },
    async (request) => ({ webhook: await webhooks.get(currentUser(request).id, request.params.id, request.params.webhook_id) }),
  );

  app.patch(
    `${base}/:webhook_id`,
    {
      onRequest,
      schema: {
        summary: 'Change the URL (recent sign-in, confirmed e-mail address), events or description, or turn it off or on again (admin)',
        tags,
        security,
        params: WebhookParams,
        body: WebhookUpdateBody,
        response: { 200: WebhookEnvelope, ...errors },
      },
    },
    async (request) => {
      if (request.body.url !== undefined) {
        deps.guard.assertRecent(request);
        assertEmailVerified(currentUser(request));
      }
      const webhook = await webhooks.update(changeOriginOf(request), request.params.id, request.params.webhook_id, request.body);
      // Turned on again: what waited is due now.
      if (request.body.enabled === true) sender.poke();
      return { webhook };
    },
  );

  app.delete(
    `${base}/:webhook_id`,
    { onRequest, schema: { summary: 'Delete a webhook and its delivery log (admin)', tags, security, params: WebhookParams, response: { 204: Type.Null(), ...errors } } },
    async (request, reply) => {
      await webhooks.delete(changeOriginOf(request), request.params.id, request.params.webhook_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${base}/:webhook_id/rotate-secret`,
    {
      onRequest,
      schema: {
        summary: 'Make a new signing secret, shown in this answer only (admin, recent sign-in); the old one also signs for 24 hours',
        tags,
        security,
        params: WebhookParams,
        response: { 200: WebhookSecretEnvelope, ...errors },
      },
    },
    async (request) => {
      deps.guard.assertRecent(request);
      return { webhook: await webhooks.rotateSecret(changeOriginOf(request), request.params.id, request.params.webhook_id) };
    },
  );

  app.post(
    `${base}/:webhook_id/test`,
    {
      onRequest,
      schema: { summary: 'Send a webhook.test event to this webhook (admin)', tags, security, params: WebhookParams, response: { 202: DeliveryEnvelope, ...errors, 409: ProblemSchema } },
    },
    async (request, reply) => {
      const delivery = await webhooks.test(changeOriginOf(request), request.params.id, request.params.webhook_id);
      sender.poke();
      return reply.code(202).send({ delivery });
    },
  );

  app.get(
    `${base}/:webhook_id/deliveries`,
    {
      onRequest,
      schema: {
        summary: "A webhook's deliveries, newest first, with every attempt (admin)",
        tags,
        security,
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: { 200: DeliveryPage, ...errors },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      return webhooks.deliveries(currentUser(request).id, request.params.id, request.params.webhook_id, limit ?? WEBHOOK_DELIVERIES_DEFAULT_LIMIT, cursor);
    },
  );

  app.get(
    `${base}/:webhook_id/deliveries/:delivery_id`,
    { onRequest, schema: { summary: 'One delivery with the body it sends (admin)', tags, security, params: DeliveryParams, response: { 200: DeliveryPayloadEnvelope, ...errors } } },
    async (request) => ({ delivery: await webhooks.delivery(currentUser(request).id, request.params.id, request.params.webhook_id, request.params.delivery_id) }),
  );

  app.post(
    `${base}/:webhook_id/deliveries/:delivery_id/redeliver`,
    {
      onRequest,
      schema: {
        summary: 'Send a delivery again now, with the same webhook-id, and retry it as a new one (admin)',
        tags,
        security,
        params: DeliveryParams,
        response: { 202: DeliveryEnvelope, ...errors, 409: ProblemSchema },
      },
    },
    async (request, reply) => {
      const delivery = await webhooks.redeliver(changeOriginOf(request), request.params.id, request.params.webhook_id, request.params.delivery_id);
      sender.poke();
      return reply.code(202).send({ delivery });
    },
  );
}
