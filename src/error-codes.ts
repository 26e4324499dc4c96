import { ACCESS_TOKEN_ERRORS } from './access-tokens/errors.js';
import { ACCOUNT_ERRORS } from './account/errors.js';
import { ADMIN_ERRORS } from './admin/errors.js';
import { AUTH_ERRORS } from './auth/errors.js';
import { CHANGE_REQUEST_ERRORS } from './change-requests/errors.js';
import { DELIVERY_ERRORS } from './delivery/errors.js';
import { EMAIL_VERIFICATION_ERRORS } from './email-verification/errors.js';
import { HTTP_ERRORS } from './http/errors.js';
import { OIDC_ERRORS } from './oidc/errors.js';
import { PARTNER_ERRORS } from './partner/errors.js';
import { PAGINATION_ERRORS } from './pagination/errors.js';
import { PASSKEY_ERRORS } from './passkeys/errors.js';
import { PROFILE_ERRORS } from './profile/errors.js';
import { RATE_LIMIT_ERRORS } from './rate-limit/errors.js';
import { SITE_ERRORS } from './sites/errors.js';
import { SETTINGS_SCHEMA_ERRORS } from './sites/settings-schema-errors.js';
import { TOTP_ERRORS } from './totp/errors.js';
import { USER_ERRORS } from './users/errors.js';
import { WEBHOOK_ERRORS } from './webhooks/errors.js';
import { WORKSPACE_ERRORS } from './memberships/errors.js';

/** The features' own lists of codes, each defined beside its feature; a new feature's list is added here. */
export const ERROR_CODE_LISTS = [
  HTTP_ERRORS,
  AUTH_ERRORS,
  RATE_LIMIT_ERRORS,
  ACCESS_TOKEN_ERRORS,
  USER_ERRORS,
  ACCOUNT_ERRORS,
  TOTP_ERRORS,
  PASSKEY_ERRORS,
  EMAIL_VERIFICATION_ERRORS,
  PROFILE_ERRORS,
  SITE_ERRORS,
  PAGINATION_ERRORS,
  PARTNER_ERRORS,
  WORKSPACE_ERRORS,
  SETTINGS_SCHEMA_ERRORS,
  WEBHOOK_ERRORS,
  OIDC_ERRORS,
  DELIVERY_ERRORS,
  CHANGE_REQUEST_ERRORS,
  ADMIN_ERRORS,
] as const;

/** Distributes over the union of lists: `keyof` of a union would keep only the keys all share. */
type CodesOf<List> = List extends unknown ? List[keyof List] : never;

/**
 * Every `code` a problem from this API can carry: the union of the features' lists. AppError takes
 * only these, so a code no list holds does not compile, and the dashboard's messages are keyed by
 * this type, so a new code needs a message there too.
 */
export type ErrorCode = CodesOf<(typeof ERROR_CODE_LISTS)[number]>;
