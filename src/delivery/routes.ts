import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { type PublicAnswer, type PublicAnswers, writeAnswer } from './answers.js';
import { isPublicKey } from '../lib/public-keys.js';
import type { PublicConfigs } from './public-configs.js';
import { type PublicStreams, writeStreamHead } from './streams.js';
import { NoQuery, PreviewQuery, PublicConfigSchema, PublicKeyParams } from './schema.js';
import { publicConfig } from './document.js';
import type { PublicSiteRow } from './queries.js';

export interface PublicRouteDeps {
  configs: PublicConfigs;
  answers: PublicAnswers;
  streams: PublicStreams;
  /** Told of each answer about a site, with the request's Origin or Referer (origins.ts). */
  answered: (siteId: string, origin: string | undefined, referer: string | undefined) => void;
  /** Told of each configuration answered (200) or revalidated (304), previews aside (src/usage/counter.ts). */
  counted: (siteId: string, status: number, origin: string | undefined, referer: string | undefined) => void;
  /** Told of each event stream opened (src/usage/counter.ts). */
  streamOpened: (siteId: string) => void;
  /** The configuration as a change request would leave it, for its preview token; undefined when the token names none of this key's site. */
  preview: (publicKey: string, token: string) => Promise<PublicSiteRow | undefined>;
}

const tags = ['public'];

/**
 * Sends an answer as the fast path does (answers.ts), byte for byte: Fastify would add a
 * Content-Type to a 304 and end it with a second write. Its request line is still written when
 * the response finishes.
 */
function send(reply: FastifyReply, answer: PublicAnswer): FastifyReply {
  reply.hijack();
  writeAnswer(reply.raw, answer);
  return reply;
}

/**
 * The public path: what visitors' browsers fetch, with no credentials and no cookies. Warm
 * answers of the configuration are sent by the fast path (fast-path.ts) before Fastify; this route
 * answers the rest with the same bytes, reading the database when the cache does not hold the site.
 */
export function registerPublicRoutes(app: App, deps: PublicRouteDeps): void {
  app.get(
    '/public/v1/sites/:public_key',
    {
      compress: false,
      schema: {
        summary:
          "A site's public configuration, for visitors' browsers: its name, colour and public groups (widget, portal, branding, public_theme), each the JSON object its text holds or null. No credentials; cacheable by anyone for PUBLIC_MAX_AGE_SECONDS; If-None-Match gives 304",
        tags,
        security: [],
        params: PublicKeyParams,
        querystring: PreviewQuery,
        response: { 200: PublicConfigSchema, 304: Type.Null(), 400: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (request, reply) => {
      const key = request.params.public_key;
      if (!isPublicKey(key)) return send(reply, deps.answers.invalidKey);
      // A preview never goes through the cache of documents, and is sent with no-store: it must
      // not reach anyone without the token, from this process or from a cache in front.
      const token = request.query.preview;
      if (token !== undefined) {
        const previewed = await deps.preview(key, token);
        return send(reply, previewed === undefined ? deps.answers.previewNotFound : deps.answers.preview(JSON.stringify(publicConfig(previewed))));
      }
      const document = await deps.configs.load(key);
      if (document === undefined) return send(reply, deps.answers.notFound);
      deps.answered(document.siteId, request.headers.origin, request.headers.referer);
      const answer = deps.answers.config(document, request.headers['if-none-match'], request.headers['accept-encoding']);
      deps.counted(document.siteId, answer.status, request.headers.origin, request.headers.referer);
      return send(reply, answer);
    },
  );

  app.get(
    '/public/v1/sites/:public_key/events',
    {
      compress: false,
      exposeHeadRoute: false,
      schema: {
        summary:
          "The site's public configuration as Server-Sent Events: an event `config` (id: the version) at once, unless Last-Event-ID names the current version, then one for each new version; a comment every 25 s. At most PUBLIC_STREAMS_MAX per server and PUBLIC_STREAMS_PER_ADDRESS per client address (503 with Retry-After past either)",
        tags,
        security: [],
        params: PublicKeyParams,
        querystring: NoQuery,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ description: 'The id of the last event received: the version held' })) }),
        response: { 200: Type.String({ description: 'text/event-stream' }), 400: ProblemSchema, 404: ProblemSchema, 503: ProblemSchema },
      },
    },
    async (request, reply) => {
      const key = request.params.public_key;
      if (!isPublicKey(key)) return send(reply, deps.answers.invalidKey);
      // The bounds are counted before the site is read: requests arriving together cannot all pass
      // them. The client's address is Fastify's, which behind TRUST_PROXY is the one the proxy names.
      const address = request.ip;
      const refusal = deps.streams.reserve(address);
      if (refusal !== undefined) return send(reply, refusal === 'address_full' ? deps.answers.tooManyStreamsFromAddress : deps.answers.tooManyStreams);
      let document;
      try {
        document = await deps.configs.load(key);
      } catch (error) {
        deps.streams.release(address);
        throw error;
      }
      if (document === undefined) {
        deps.streams.release(address);
        return send(reply, deps.answers.notFound);
      }
      deps.answered(document.siteId, request.headers.origin, request.headers.referer);
      reply.hijack();
      // The stream's liveness is its heartbeat and its writes; an idle timer per socket would only cost memory.
      request.raw.socket.setTimeout(0);
      writeStreamHead(reply.raw, deps.answers.streamHeaders);
      deps.streams.open(reply.raw, key, address, document, request.headers['last-event-id']);
      deps.streamOpened(document.siteId);
      return reply;
    },
  );

  // A page's script may ask with If-None-Match or Last-Event-ID, which a browser asks leave for
  // first (CORS preflight): given to any origin, for a day.
  app.options(
    '/public/v1/*',
    { schema: { hide: true } },
    async (_request, reply) =>
      reply
        .code(204)
        .headers({
          'access-control-allow-methods': 'GET, HEAD',
          'access-control-allow-headers': 'If-None-Match, Last-Event-ID, Cache-Control',
          'access-control-max-age': '86400',
          'cache-control': 'public, max-age=86400',
        })
        .send(),
  );
}
