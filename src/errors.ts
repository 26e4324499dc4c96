import { STATUS_CODES } from 'node:http';
import { HTTP_ERRORS } from './http/errors.js';
import type { ErrorCode, FieldError, Problem, ProblemExtensions } from './problem.js';

// The problem document's shape lives in an import-free module the dashboard can compile too.
export type { ErrorCode, FieldError, Problem, ProblemExtensions } from './problem.js';

/**
 * A failure a client can act on. Each carries a stable `code` defined next to the feature that
 * raises it, and becomes an RFC 9457 problem document in the one error handler.
 */
export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      /** RFC 9457 extension members a client can act on (the workspaces to hand over); never a secret. */
      extensions?: ProblemExtensions;
    } = {},
  ) {
    super(detail);
  }
}

/**
 * 400 `validation_failed` naming each field and what is wrong with it, as schema validation
 * answers: what a service throws for input the schema could not judge (a blank name, an address).
 */
export function validationError(errors: FieldError[]): AppError {
  const detail = errors.map((error) => `${error.path || '/'}: ${error.message}`).join('; ');
  return new AppError(400, HTTP_ERRORS.VALIDATION_FAILED, detail, { errors });
}

export function problem(status: number, code: ErrorCode, detail: string, errors?: FieldError[], extensions: ProblemExtensions = {}): Problem {
  // Extensions first, so none can replace a member every problem has.
  const body: Problem = { ...extensions, type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code };
  if (errors !== undefined && errors.length > 0) body.errors = errors;
  return body;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** The schemes a 401 names, so a client learns how to authenticate from the refusal itself. */
export const WWW_AUTHENTICATE = 'Bearer realm="siteward", Token realm="siteward"';

/** A 401: the request carries no usable credential. */
export function unauthorized(code: ErrorCode, detail: string): AppError {
  return new AppError(401, code, detail, { headers: { 'www-authenticate': WWW_AUTHENTICATE } });
}
