import type { IncomingMessage, ServerResponse } from 'node:http';
import { type PublicAnswers, writeAnswer } from './answers.js';
import { PUBLIC_KEY_LENGTH, PUBLIC_KEY_PREFIX } from './contract.js';
import type { PublicConfigs } from './public-configs.js';
import type { ServedMethod, ServedStatus } from './served-log.js';

const PATH_PREFIX = `/public/v1/sites/${PUBLIC_KEY_PREFIX}`;
const KEY_START = '/public/v1/sites/'.length;
const URL_LENGTH = KEY_START + PUBLIC_KEY_LENGTH;

/** What the fast path tells of each answer it sends (its log and metrics, where it was fetched from). */
export type AnsweredRequest = (request: IncomingMessage, method: ServedMethod, status: ServedStatus, startedAt: number, siteId: string) => void;

/**
 * GET and HEAD /public/v1/sites/{public_key} answered before Fastify, when the cache holds the
 * document: the one request every visitor's browser makes, answered with bytes prepared once per
 * version (docs/decisions/delivery-public-fast-path.md). Everything else, a cold
 * cache, a query string, a body, a missing Host or an Expect header, any other method or path, goes to Fastify, whose route answers
 * the same bytes (routes.ts), so a request cannot tell which answered it.
 *
 * Returns whether it answered.
 */
export function publicFastPath(deps: { configs: PublicConfigs; answers: PublicAnswers; answered: AnsweredRequest }): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const startedAt = performance.now();
    const url = request.url;
    if (url === undefined || url.length !== URL_LENGTH || !url.startsWith(PATH_PREFIX)) return false;
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const headers = request.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    // node:http's own answers (no Host, an Expect) are Fastify's to give as problems (http/server.ts).
    if (headers.host === undefined || headers.expect !== undefined) return false;
    const document = deps.configs.held(url.slice(KEY_START));
    if (document === undefined) return false;
    const answer = deps.answers.config(document, headers['if-none-match'], headers['accept-encoding']);
    writeAnswer(response, answer);
    deps.answered(request, method, answer.status, startedAt, document.siteId);
    return true;
  };
}
