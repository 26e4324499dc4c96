import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, type DatabaseOutage } from '../db/outage.js';
import { AppError, type ErrorCode, PROBLEM_CONTENT_TYPE, problem, type Problem } from '../errors.js';
import { headersFor, type ResponseHeaders } from './security-headers.js';
import { fieldErrors } from './validation.js';
import { HTTP_ERRORS } from './errors.js';

function send(reply: FastifyReply, body: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Fastify's own client errors, each turned into a stable code and a sentence a person can act on. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: HTTP_ERRORS.BODY_TOO_LARGE, detail: 'The request body is larger than 1 MiB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: HTTP_ERRORS.UNSUPPORTED_MEDIA_TYPE, detail: 'Send the body as application/json.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: HTTP_ERRORS.EMPTY_BODY, detail: 'The body is empty; send a JSON object.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: HTTP_ERRORS.BAD_CONTENT_LENGTH, detail: 'Content-Length does not match the body.' },
  FST_ERR_BAD_URL: { status: 400, code: HTTP_ERRORS.BAD_URL, detail: 'The URL is malformed: a percent-escape in its path does not decode.' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: HTTP_ERRORS.URI_TOO_LONG, detail: 'A segment of the URL path is too long.' },
};

type ErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * The one error handler. Client errors become RFC 9457 problems with a stable code; anything else
 * is logged in full and answered with a bare 500, so no stack trace or internal detail leaks. A
 * request refused because the database is away is told to retry; the outage is logged by
 * `outage`, once, not by every refusal. Every problem of our own is shown to `observe` first
 * (the security log's refusals).
 */
export function errorHandler(outage: DatabaseOutage, observe: (request: FastifyRequest, error: AppError) => void): ErrorHandler {
  return (error, request, reply) => {
    if (error instanceof AppError) {
      observe(request, error);
      return send(reply, problem(error.status, error.code, error.detail, error.options.errors, error.options.extensions), error.options.headers);
    }
    if (error.validation !== undefined) {
      const errors = fieldErrors(error.validation, error.validationContext);
      const detail = errors.map((field) => `${field.path || '/'}: ${field.message}`).join('; ');
      return send(reply, problem(400, HTTP_ERRORS.VALIDATION_FAILED, detail, errors));
    }
    const known = error.code === undefined ? undefined : FRAMEWORK_ERRORS[error.code];
    if (known !== undefined) return send(reply, problem(known.status, known.code, known.detail));
    if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return send(reply, problem(400, HTTP_ERRORS.INVALID_JSON, 'The body is not valid JSON.'));
    }
    if (isDatabaseUnavailable(error)) {
      outage.refused(error);
      return send(reply, problem(503, HTTP_ERRORS.DATABASE_UNAVAILABLE, 'The database is unavailable; try again shortly.'), { 'retry-after': '5' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return send(reply, problem(status, HTTP_ERRORS.BAD_REQUEST, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, problem(500, HTTP_ERRORS.INTERNAL_ERROR, 'Something went wrong on our side. It has been logged.'));
  };
}

/**
 * For Fastify's frameworkErrors option: errors raised before routing (a malformed URL), so before
 * the onRequest hook that sets the security headers. They get those headers here, then the same
 * treatment as every other error.
 */
export function frameworkErrorHandler(headers: ResponseHeaders, handleError: ErrorHandler): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    reply.headers(headersFor(headers, request.url));
    handleError(error, request, reply);
  };
}

/** The problem for an error node:http reports on a connection (see clientErrorHandler). */
function clientErrorProblem(code: string | undefined): Problem {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return problem(408, HTTP_ERRORS.REQUEST_TIMEOUT, 'The request did not arrive in time; the connection is closed.');
  if (code === 'HPE_HEADER_OVERFLOW') return problem(431, HTTP_ERRORS.HEADERS_TOO_LARGE, 'The request headers are larger than the server accepts.');
  return problem(400, HTTP_ERRORS.MALFORMED_REQUEST, 'The request is not valid HTTP/1.1.');
}

/**
 * A whole HTTP/1.1 response carrying a problem, for a socket on which there is no request object to
 * answer through: the same body and headers Fastify's path sends, and the connection closed, since
 * after a malformed or late request the next one cannot be found in the byte stream.
 */
export function rawProblemResponse(body: Problem, headers: Readonly<Record<string, string>>): string {
  const json = JSON.stringify(body);
  const all = { ...headers, 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': String(Buffer.byteLength(json)), connection: 'close' };
  const lines = [`HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${json}`;
}

/**
 * For Fastify's clientErrorHandler option: a request line or headers node:http cannot parse, headers
 * past its size limit (431), or a request that did not arrive within the request or headers timeout
 * (408). Answered with a problem when the socket can still take it, then closed.
 */
export function clientErrorHandler(headers: ResponseHeaders): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) socket.write(rawProblemResponse(clientErrorProblem(error.code), headers.noStore));
    socket.destroy();
  };
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return send(reply, problem(404, HTTP_ERRORS.ROUTE_NOT_FOUND, `There is no ${request.method} ${request.url.split('?')[0]} endpoint.`));
}
