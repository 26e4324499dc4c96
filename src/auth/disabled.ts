import { AppError } from '../errors.js';
import { AUTH_ERRORS } from './errors.js';

/**
 * The credential or sign-in is the account's own, but an instance administrator disabled the
 * account. Said only after the credential was checked, so it tells a guesser nothing.
 */
export const accountDisabled = () => new AppError(403, AUTH_ERRORS.ACCOUNT_DISABLED, 'This account is disabled; ask the administrator of this Siteward server.');

/** Throws 403 account_disabled for a disabled account. */
export function assertEnabled(user: { disabled_at: string | null }): void {
  if (user.disabled_at !== null) throw accountDisabled();
}
