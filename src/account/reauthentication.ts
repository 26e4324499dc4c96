import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { Principal } from '../auth/principal.js';
import type { IssuedJwt, JwtService } from '../auth/jwt.js';
import type { PasswordHasher } from '../passwords/passwords.js';
import { failedPasswordKey, RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import type { RecentAuthentication } from '../auth/recent-authentication.js';
import type { SessionService } from '../auth/sessions.js';
import type { SessionRow } from '../auth/queries.js';
import type { Database } from '../db/schema.js';
import { AppError, unauthorized } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { AuthenticationResponse } from '../passkeys/schema.js';
import type { PasskeyService } from '../passkeys/service.js';
import type { SecondFactorKind, TotpService } from '../totp/service.js';
import { findUserById } from '../users/queries.js';
import { ACCOUNT_ERRORS } from './errors.js';
import { AUTH_ERRORS } from '../auth/errors.js';

/** 403, not 401: a wrong answer does not sign the caller out. */
const passwordInvalid = () => new AppError(403, ACCOUNT_ERRORS.PASSWORD_INVALID, 'The password is wrong.', { errors: [{ path: '/password', message: 'is wrong' }] });

/** What the caller offers as proof: the password (and a code when 2FA is on), or a passkey. */
export type ReauthenticationProof =
  | { kind: 'password'; password: string; otp: string | undefined }
  | { kind: 'passkey'; challengeId: string; response: Static<typeof AuthenticationResponse>; clientIp: string };

export interface Reauthenticated {
  /** How the caller proved it: a passkey, the password alone, or the password and which second factor. */
  method: 'password' | 'passkey' | SecondFactorKind;
  /** When this proof stops counting as recent. */
  until: Date;
  /** For a JWT caller: a fresh JWT that carries the new time (a JWT cannot change). */
  jwt: IssuedJwt | null;
  /** For a web session: its new cookie value and row, to set the cookie from. */
  session: { cookieValue: string; session: SessionRow } | null;
}

/**
 * POST /api/v1/me/reauthenticate: a signed-in person proves again who they are, so that changes
 * needing a recent authentication go through. The proof is as strong as a sign-in (password and,
 * with 2FA on, a code; or a passkey with user verification), and wrong answers use up the same
 * per-account limits as sign-in: a stolen session is no place to guess the password.
 */
export class ReauthenticationService {
  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      hasher: PasswordHasher;
      limiter: RateLimiter;
      totp: TotpService;
      passkeys: PasskeyService;
      sessions: SessionService;
      jwt: JwtService;
      clock: Clock;
      recentAuthentication: RecentAuthentication;
    },
  ) {}

  async reauthenticate(principal: Principal, proof: ReauthenticationProof): Promise<Reauthenticated> {
    const { sessions, jwt, clock, recentAuthentication } = this.deps;
    let method: Reauthenticated['method'] = proof.kind;
    if (proof.kind === 'password') method = (await this.#checkPassword(principal.user.id, proof.password, proof.otp)) ?? 'password';
    else await this.deps.passkeys.reauthenticate(principal.user, proof.challengeId, proof.response, proof.clientIp);

    const now = clock.now();
    const session = principal.sessionId === null ? null : await sessions.markAuthenticated(principal.user.id, principal.sessionId, now);
    return {
      session,
      method,
      until: new Date(now.getTime() + recentAuthentication.windowMs),
      jwt: principal.method === 'jwt' ? jwt.issue(principal.user.id, principal.user.jwt_generation) : null,
    };
  }

  /** The password, then with 2FA on the code: which second factor it was, if any. */
  async #checkPassword(userId: string, password: string, otp: string | undefined): Promise<SecondFactorKind | undefined> {
    const { db, hasher, limiter, totp } = this.deps;
    // Read afresh, not from the request's principal, which may have been cached.
    const user = await findUserById(db, userId);
    if (user === undefined) throw unauthorized(AUTH_ERRORS.INVALID_TOKEN, 'The credential is invalid, expired or revoked.');
    // Sign-in, the password form and this share the account's failures; counted before the check,
    // so parallel guesses cannot all pass under the limit, and given back when right.
    const reservation = await limiter.reserve([[failedPasswordKey(user.email), RATE_LIMITS.loginFailuresPerAccount]]);
    if (!(await hasher.verify(user.password_hash, password))) throw passwordInvalid();
    await reservation.refund();
    return totp.verifyReauthenticationCode(user.id, otp);
  }
}
