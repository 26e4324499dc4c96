import { AppError } from '../errors.js';
import { AUTH_ERRORS } from './errors.js';
import type { Clock } from '../lib/clock.js';
import type { Principal } from './principal.js';

/** 403, not 401: the caller stays signed in and only has to confirm who they are. */
export const reauthenticationRequired = () =>
  new AppError(
    403,
    AUTH_ERRORS.REAUTHENTICATION_REQUIRED,
    'This change needs a recent sign-in. Confirm it is you with POST /api/v1/me/reauthenticate (your password, with a code when two-factor authentication is on, or a passkey), then send the request again.',
  );

/**
 * Recent authentication ("sudo"). A stolen session cookie or JWT must not be enough to make the
 * account the thief's for good (a new access token, passkey or TOTP secret, or a new password
 * without the old one): those changes need the person to have proved who they are within the
 * window. The proof's time rides with the credential (sessions.authenticated_at, the JWT's
 * auth_time), so checking it costs no query. A personal access token never proves a person.
 */
export class RecentAuthentication {
  constructor(
    private readonly clock: Clock,
    readonly windowMs: number,
  ) {}

  /** When the caller's recent authentication ends (or ended); null when it has none at all. */
  endsAt(principal: Principal): Date | null {
    if (principal.authenticatedAt === null || !Number.isFinite(principal.authenticatedAt)) return null;
    return new Date(principal.authenticatedAt + this.windowMs);
  }

  isRecent(principal: Principal): boolean {
    const ends = this.endsAt(principal);
    return ends !== null && this.clock.now().getTime() < ends.getTime();
  }

  /** Throws 403 reauthentication_required unless the caller proved who they are within the window. */
  assert(principal: Principal): void {
    if (!this.isRecent(principal)) throw reauthenticationRequired();
  }
}
