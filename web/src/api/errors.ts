// What a failed request becomes: an ApiError carrying the server's problem+json, so a screen can
// show the detail and put each field error next to the field it names (client.ts throws them).

import { AUTH_ERRORS } from '@server/auth/errors';
import type { ErrorCode } from '@server/error-codes';
import type { FieldError, Problem, ProblemExtensions } from '@server/problem';
import { CODES_WITH_SPECIFIC_DETAIL, ERROR_MESSAGES } from '../errorMessages';

export type { FieldError };

/** Failures the dashboard meets without a problem from the server to say what happened. */
export const CLIENT_ERRORS = { NETWORK_ERROR: 'network_error', HTTP_ERROR: 'http_error' } as const;
export type ClientErrorCode = (typeof CLIENT_ERRORS)[keyof typeof CLIENT_ERRORS];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly retryAfterSeconds?: number,
    /** What the problem carries beyond the standard members (the workspaces to hand over, a change request's conflicts). */
    readonly extensions: ProblemExtensions = {},
  ) {
    super(detail);
  }

  /** The message for one field, matched by the last segments of its path ("base_url" or "partner_settings/base_url"). */
  fieldMessage(field: string): string | undefined {
    const wanted = field.replace(/^\/+/, '');
    return this.errors.find((error) => error.path.replace(/^\/+/, '') === wanted || error.path.endsWith(`/${wanted}`))?.message;
  }
}

/** A readable message for anything a request may throw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429 && error.retryAfterSeconds !== undefined) {
      // The server's detail may already name the wait in seconds; say it once, in words people read.
      const reason = error.detail.replace(/\s*Try again in \d+ seconds?\.?\s*$/i, '');
      return `${reason} Try again in ${formatWait(error.retryAfterSeconds)}.`;
    }
    if (error.code === CLIENT_ERRORS.NETWORK_ERROR || error.code === CLIENT_ERRORS.HTTP_ERROR) return error.detail;
    // The server's detail is written for API clients; people read the dashboard's own sentence,
    // unless the detail names the very field or check that failed.
    return CODES_WITH_SPECIFIC_DETAIL.has(error.code) ? error.detail : ERROR_MESSAGES[error.code];
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

/** A wait the server asked for (Retry-After), in words: "45 seconds", "3 minutes". */
export function formatWait(seconds: number): string {
  if (seconds === 1) return '1 second';
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** The server could not be reached (the request never got an answer). */
export function networkError(): ApiError {
  return new ApiError(0, CLIENT_ERRORS.NETWORK_ERROR, 'The server could not be reached. Check your connection and try again.');
}

/** The ApiError for an answer that is not 2xx, from whatever its body holds. */
export function problemError(response: Response, body: unknown): ApiError {
  // Whatever the body holds: a proxy in between may answer with something else entirely.
  const problem = (typeof body === 'object' && body !== null ? body : {}) as Partial<Problem>;
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    problem.code ?? CLIENT_ERRORS.HTTP_ERROR,
    problem.detail ?? problem.title ?? `The server answered ${response.status}.`,
    Array.isArray(problem.errors) ? problem.errors : [],
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    { ...(Array.isArray(problem.workspaces) ? { workspaces: problem.workspaces } : {}), ...(Array.isArray(problem.conflicts) ? { conflicts: problem.conflicts } : {}) },
  );
}

/** The answers that mean "your session is gone", as opposed to a wrong password or code. */
const SESSION_ENDED_CODES: ReadonlySet<string> = new Set([AUTH_ERRORS.UNAUTHENTICATED, AUTH_ERRORS.SESSION_EXPIRED, AUTH_ERRORS.INVALID_TOKEN]);

export function isSessionEnded(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && SESSION_ENDED_CODES.has(error.code);
}
