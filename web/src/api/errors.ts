// The one way the dashboard talks to the server: same-origin fetch with the session cookie.
// Every failure becomes an ApiError carrying the server's problem+json, so a screen can show the
// detail and put each field error next to the field it names.

import { AUTH_ERRORS } from '@server/auth/errors';
import type { ErrorCode } from '@server/error-codes';
import type { FieldError, Problem, ProblemExtensions } from '@server/problem';
import { CODES_WITH_SPECIFIC_DETAIL, ERROR_MESSAGES } from './errorMessages';

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
    /** What the problem carries beyond the standard members (the workspaces to hand over). */
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

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * false: a 401 is the answer itself (asking who is signed in), not a session that ended under
   * the person's feet, so no sign-in dialog opens.
   */
  signInPrompt?: boolean;
  /** Cancels the request (a query that is no longer wanted). */
  signal?: AbortSignal | undefined;
  /** The answer's text as it came (an NDJSON export), not parsed as JSON; errors are parsed as ever. */
  text?: boolean;
}

/**
 * Asks the person to confirm who they are; resolves true once the server has taken it, false when
 * they gave up. Registered by the ReauthenticationProvider, so every screen gets the dialog without
 * knowing about it.
 */
export type ReauthenticationPrompt = () => Promise<boolean>;
let reauthenticationPrompt: ReauthenticationPrompt | undefined;

export function setReauthenticationPrompt(prompt: ReauthenticationPrompt | undefined): void {
  reauthenticationPrompt = prompt;
}

/**
 * Asks the person to sign in again after their session ended (expired, or signed out from another
 * device); resolves true once a new session exists. Registered by the SignInAgainProvider, so a
 * screen with unsaved work keeps it and the refused request goes out again.
 */
export type SignInPrompt = () => Promise<boolean>;
let signInPrompt: SignInPrompt | undefined;

export function setSignInPrompt(prompt: SignInPrompt | undefined): void {
  signInPrompt = prompt;
}

/** The answers that mean "your session is gone", as opposed to a wrong password or code. */
const SESSION_ENDED_CODES: ReadonlySet<string> = new Set([AUTH_ERRORS.UNAUTHENTICATED, AUTH_ERRORS.SESSION_EXPIRED, AUTH_ERRORS.INVALID_TOKEN]);

export function isSessionEnded(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && SESSION_ENDED_CODES.has(error.code);
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

/**
 * One request. A change refused for want of a recent sign-in opens the confirmation dialog, and a
 * request refused because the session ended opens the sign-in dialog; once the person has done
 * that, the request is sent again: they carry on with what they were doing.
 */
async function request<T>(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  try {
    return await send<T>(method, url, options);
  } catch (error) {
    const reauthenticate = reauthenticationPrompt;
    if (error instanceof ApiError && error.code === AUTH_ERRORS.REAUTHENTICATION_REQUIRED && reauthenticate !== undefined) {
      if (!(await reauthenticate())) throw error;
      return send<T>(method, url, options);
    }
    const signIn = signInPrompt;
    // The sign-in endpoints answer 401 for wrong credentials: that is theirs to show.
    if (isSessionEnded(error) && options.signInPrompt !== false && !url.startsWith('/auth/') && signIn !== undefined) {
      if (!(await signIn())) throw error;
      return request<T>(method, url, options);
    }
    throw error;
  }
}

async function send<T>(method: string, url: string, options: RequestOptions): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, credentials: 'same-origin', cache: 'no-store', signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    throw new ApiError(0, CLIENT_ERRORS.NETWORK_ERROR, 'The server could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    // Whatever the body holds: a proxy in between may answer with something else entirely.
    const problem = (parsed ?? {}) as Partial<Problem>;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(
      response.status,
      problem.code ?? CLIENT_ERRORS.HTTP_ERROR,
      problem.detail ?? problem.title ?? `The server answered ${response.status}.`,
      Array.isArray(problem.errors) ? problem.errors : [],
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      Array.isArray(problem.workspaces) ? { workspaces: problem.workspaces } : {},
    );
  }
  return { status: response.status, data: (options.text === true ? text : parsed) as T, headers: response.headers };
}

export const api = {
  get: <T>(url: string, options?: RequestOptions) => request<T>('GET', url, options),
  post: <T>(url: string, body?: unknown, options?: RequestOptions) => request<T>('POST', url, { ...options, body }),
  put: <T>(url: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', url, { ...options, body }),
  patch: <T>(url: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', url, { ...options, body }),
  delete: <T = null>(url: string, body?: unknown, options?: RequestOptions) => request<T>('DELETE', url, { ...options, body }),
};

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

// ---- Shapes the server answers: the server's own schemas' types, never copies ----

export type { AccessTokenJson as AccessToken } from '@server/access-tokens/schema';
export type { SessionJson as WebSession } from '@server/account/schema';
export type { PasskeyJson as Passkey } from '@server/passkeys/schema';
export type { PendingEmailChangeJson as PendingEmailChange } from '@server/profile/schema';
export type { PartnerSettings, SiteJson as Site } from '@server/sites/schema';
export type { UserJson as User } from '@server/users/schema';
export type { WorkspaceJson as Workspace } from '@server/workspaces/schema';
