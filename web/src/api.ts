// The one way the dashboard talks to the server: same-origin fetch with the session cookie.
// Every failure becomes an ApiError carrying the server's problem+json, so a screen can show the
// detail and put each field error next to the field it names.

export interface FieldError {
  /** JSON pointer-like path the server names, e.g. "/partner_settings/base_url". */
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }

  /** The message for one field, matched by the last segments of its path ("base_url" or "partner_settings/base_url"). */
  fieldMessage(field: string): string | undefined {
    const wanted = field.replace(/^\/+/, '');
    return this.errors.find((error) => error.path.replace(/^\/+/, '') === wanted || error.path.endsWith(`/${wanted}`))?.message;
  }
}

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: FieldError[];
}

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

/** The server's answer to a change that needs a recent sign-in (src/auth/recent-authentication.ts). */
export const REAUTHENTICATION_REQUIRED = 'reauthentication_required';

/** Another account already uses the address (src/users/service.ts). */
export const EMAIL_TAKEN = 'email_taken';

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

export interface ApiResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

/**
 * One request. A change refused for want of a recent sign-in opens the confirmation dialog and,
 * once confirmed, is sent again, once: the person carries on with what they were doing.
 */
async function request<T>(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  try {
    return await send<T>(method, url, options);
  } catch (error) {
    const prompt = reauthenticationPrompt;
    if (!(error instanceof ApiError) || error.code !== REAUTHENTICATION_REQUIRED || prompt === undefined) throw error;
    if (!(await prompt())) throw error;
    return send<T>(method, url, options);
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
    response = await fetch(url, { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'network_error', 'The server could not be reached. Check your connection and try again.');
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
    const problem = (parsed ?? {}) as Problem;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(
      response.status,
      problem.code ?? 'http_error',
      problem.detail ?? problem.title ?? `The server answered ${response.status}.`,
      Array.isArray(problem.errors) ? problem.errors : [],
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  return { status: response.status, data: parsed as T, headers: response.headers };
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
    // Seen only when the person closed the confirmation dialog; the server's detail speaks to API clients.
    if (error.code === REAUTHENTICATION_REQUIRED) return 'This change needs you to confirm it’s you. Try again, and enter your password or use a passkey when asked.';
    if (error.status === 429 && error.retryAfterSeconds !== undefined) {
      // The server's detail may already name the wait in seconds; say it once, in words people read.
      const reason = error.detail.replace(/\s*Try again in \d+ seconds?\.?\s*$/i, '');
      return `${reason} Try again in ${formatWait(error.retryAfterSeconds)}.`;
    }
    return error.detail;
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

function formatWait(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

// ---- Shapes the server answers (see /api/v1/openapi.json) ----

export interface User {
  id: string;
  email: string;
  name: string;
  /** Whether the holder of the address has confirmed it. */
  email_verified: boolean;
  /** False after an account reset: a password is set without a current one. */
  has_password: boolean;
  created_at: string;
}

/** A change of address waiting for the link mailed to the new address. */
export interface PendingEmailChange {
  email: string;
  expires_at: string;
}

export interface PartnerSettings {
  enabled: boolean;
  base_url: string;
  mcp_url: string;
  project_id: string;
  auth_type: string;
  access_token_configured: boolean;
  read_enabled: boolean;
  write_enabled: boolean;
  collections: string[];
  widget_project_id: string;
  widget_search_sources: string[];
  last_status: string;
  last_error: string | null;
  last_checked_at: string | null;
}

export interface Site {
  id: string;
  name: string;
  color: string;
  ai_settings: string;
  email_settings: string;
  widget: string;
  portal: string;
  branding: string;
  public_theme: string;
  knowledge_sources: string;
  partner_settings: PartnerSettings;
  created_at: string;
  updated_at: string;
}

export interface AccessToken {
  id: string;
  name: string;
  scopes: string[];
  last_four: string;
  created_at: string;
  last_used_at: string | null;
}

export interface WebSession {
  id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  user_agent: string;
  ip: string;
  current: boolean;
  second_factor_pending: boolean;
}

export interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  device_type: 'single_device' | 'multi_device';
  backed_up: boolean;
}
