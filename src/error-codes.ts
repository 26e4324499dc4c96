import type { ACCESS_TOKEN_ERRORS } from './access-tokens/errors.js';
import type { ACCOUNT_ERRORS } from './account/errors.js';
import type { AUTH_ERRORS } from './auth/errors.js';
import type { EMAIL_VERIFICATION_ERRORS } from './email-verification/errors.js';
import type { HTTP_ERRORS } from './http/errors.js';
import type { PASSKEY_ERRORS } from './passkeys/errors.js';
import type { SITE_ERRORS } from './sites/errors.js';
import type { TOTP_ERRORS } from './totp/errors.js';
import type { USER_ERRORS } from './users/errors.js';

type CodesOf<List> = List[keyof List];

/**
 * Every `code` a problem from this API can carry: the union of the features' own lists, each
 * defined beside its feature. AppError takes only these, so a code no list holds does not compile,
 * and the dashboard's messages are keyed by this type, so a new code needs a message there too.
 */
export type ErrorCode =
  | CodesOf<typeof HTTP_ERRORS>
  | CodesOf<typeof AUTH_ERRORS>
  | CodesOf<typeof ACCESS_TOKEN_ERRORS>
  | CodesOf<typeof USER_ERRORS>
  | CodesOf<typeof ACCOUNT_ERRORS>
  | CodesOf<typeof TOTP_ERRORS>
  | CodesOf<typeof PASSKEY_ERRORS>
  | CodesOf<typeof EMAIL_VERIFICATION_ERRORS>
  | CodesOf<typeof SITE_ERRORS>;
