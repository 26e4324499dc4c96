import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, PROBLEM_CONTENT_TYPE, problem, type Problem } from '../errors.js';
import { fieldErrors } from './validation.js';

function send(reply: FastifyReply, body: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Fastify's own client errors, each turned into a stable code and a sentence a person can act on. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large', detail: 'The request body is larger than 1 MiB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', detail: 'Send the body as application/json.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'empty_body', detail: 'The body is empty; send a JSON object.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_content_length', detail: 'Content-Length does not match the body.' },
};

/**
 * The one error handler. Client errors become RFC 9457 problems with a stable code; anything else
 * is logged in full and answered with a bare 500, so no stack trace or internal detail leaks.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AppError) {
    return send(reply, problem(error.status, error.code, error.detail, error.options.errors), error.options.headers);
  }
  if (error.validation !== undefined) {
    const errors = fieldErrors(error.validation, error.validationContext);
    const detail = errors.map((field) => `${field.path || '/'}: ${field.message}`).join('; ');
    return send(reply, problem(400, 'validation_failed', detail, errors));
  }
  const known = error.code === undefined ? undefined : FRAMEWORK_ERRORS[error.code];
  if (known !== undefined) return send(reply, problem(known.status, known.code, known.detail));
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return send(reply, problem(400, 'invalid_json', 'The body is not valid JSON.'));
  }
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return send(reply, problem(503, 'database_unavailable', 'The database is unavailable; try again shortly.'), { 'retry-after': '5' });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return send(reply, problem(status, 'bad_request', error.message));
  }
  request.log.error({ err: error }, 'unhandled error');
  return send(reply, problem(500, 'internal_error', 'Something went wrong on our side. It has been logged.'));
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return send(reply, problem(404, 'route_not_found', `There is no ${request.method} ${request.url.split('?')[0]} endpoint.`));
}

/** Connection-level PostgreSQL failures (a restart, a network cut), as opposed to query errors. */
const DATABASE_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

function isDatabaseUnavailable(error: FastifyError): boolean {
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && DATABASE_DOWN_CODES.has(code)) || /^Connection terminated/.test(error.message);
}
