/** Error codes of two-factor authentication (TOTP and recovery codes). Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const TOTP_ERRORS = {
  OTP_REQUIRED: 'otp_required',
  OTP_INVALID: 'otp_invalid',
  TOTP_ALREADY_ENABLED: 'totp_already_enabled',
  TOTP_NOT_ENABLED: 'totp_not_enabled',
  TOTP_SETUP_REQUIRED: 'totp_setup_required',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    totp: typeof TOTP_ERRORS;
  }
}
