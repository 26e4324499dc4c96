/**
 * The lists of error codes, one member per feature (`sites: typeof SITE_ERRORS`). Each feature's
 * errors.ts adds its own list here (declaration merging, as Fastify's types are extended), so this
 * layer names no feature while AppError still takes only a code some list holds. src/error-codes.ts
 * gathers the same lists as values.
 */
export interface ErrorCodeLists {}

/** Every `code` a problem can carry: the values of every registered list. */
export type ErrorCode = { [Feature in keyof ErrorCodeLists]: ErrorCodeLists[Feature][keyof ErrorCodeLists[Feature]] }[keyof ErrorCodeLists];

/** RFC 9457 problem documents, as every error of the API is sent. */
export interface FieldError {
  /** JSON Pointer into the request body or query, e.g. "/partner_settings/base_url". */
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  /** ownership_transfer_required: the workspaces whose ownership must be handed over first. */
  workspaces?: Array<{ id: string; name: string }>;
  /** change_request_conflict: every path the site changed since the request's base, to another value than the proposal's (a value left out where the setting is not set). */
  conflicts?: Array<{ path: string; base?: unknown; current?: unknown; proposed?: unknown }>;
}

/** The members a problem may carry beyond the standard ones (RFC 9457 extensions). */
export type ProblemExtensions = Omit<Problem, 'type' | 'title' | 'status' | 'detail' | 'code' | 'errors'>;
