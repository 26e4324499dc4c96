import { ACCESS_TOKEN_ERRORS } from './access-tokens/errors.js';
import { ACCOUNT_ERRORS } from './account/errors.js';
import { ADMIN_ERRORS } from './admin/errors.js';
import { AUTH_ERRORS } from './auth/errors.js';
import { CHANGE_REQUEST_ERRORS } from './change-requests/errors.js';
import { DELIVERY_ERRORS } from './delivery/errors.js';
import { EMAIL_VERIFICATION_ERRORS } from './email-verification/errors.js';
import { HTTP_ERRORS } from './http/errors.js';
import { OIDC_ERRORS } from './oidc/errors.js';
import { PAGINATION_ERRORS } from './pagination/errors.js';
import { PARTNER_ERRORS } from './partner/errors.js';
import { PASSKEY_ERRORS } from './passkeys/errors.js';
import { PROFILE_ERRORS } from './profile/errors.js';
import { RATE_LIMIT_ERRORS } from './rate-limit/errors.js';
import { SETTINGS_SCHEMA_ERRORS } from './sites/settings-schema-errors.js';
import { SITE_ERRORS } from './sites/errors.js';
import { TOTP_ERRORS } from './totp/errors.js';
import { USER_ERRORS } from './users/errors.js';
import { WEBHOOK_ERRORS } from './webhooks/errors.js';
import { WORKSPACE_ERRORS } from './memberships/errors.js';
import type { ErrorCodeLists } from './problem.js';

/**
 * Every feature's list of error codes, gathered where the application is composed (beside app.ts)
 * for what needs them all at once: the docs' table of errors and the dashboard's messages. The low
 * layer (errors.ts, problem.ts, http/) names no feature: each list registers itself there instead
 * (ErrorCodeLists), and `satisfies` holds this object to exactly the registered lists, none
 * missing and none extra. A new feature's list is registered beside it and added here.
 */
export const ERROR_CODE_LISTS = {
  http: HTTP_ERRORS,
  auth: AUTH_ERRORS,
  rateLimit: RATE_LIMIT_ERRORS,
  accessTokens: ACCESS_TOKEN_ERRORS,
  users: USER_ERRORS,
  account: ACCOUNT_ERRORS,
  totp: TOTP_ERRORS,
  passkeys: PASSKEY_ERRORS,
  emailVerification: EMAIL_VERIFICATION_ERRORS,
  profile: PROFILE_ERRORS,
  sites: SITE_ERRORS,
  pagination: PAGINATION_ERRORS,
  partner: PARTNER_ERRORS,
  workspaces: WORKSPACE_ERRORS,
  settingsSchemas: SETTINGS_SCHEMA_ERRORS,
  webhooks: WEBHOOK_ERRORS,
  oidc: OIDC_ERRORS,
  delivery: DELIVERY_ERRORS,
  changeRequests: CHANGE_REQUEST_ERRORS,
  admin: ADMIN_ERRORS,
} as const satisfies ErrorCodeLists;

/**
 * Every `code` a problem from this API can carry. Imported from here, it holds every feature's codes
 * in a program that loads no feature itself (the dashboard): its messages are keyed by this type, so
 * a new code needs a message there too.
 */
export type { ErrorCode } from './problem.js';
