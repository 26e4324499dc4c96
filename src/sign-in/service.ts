import { AppError, unauthorized } from '../errors.js';
import type { RequestOrigin, SecurityEvents } from '../security/events.js';
import type { SecondFactorKind, TotpService } from '../totp/service.js';
import type { UserRow } from '../users/queries.js';
import { normalizeEmail, type NewUser, type UserService } from '../users/service.js';
import type { IssuedJwt, JwtService } from '../auth/jwt.js';
import type { PasswordHasher } from '../passwords/passwords.js';
import { failedPasswordKey, RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { assertEnabled } from '../auth/disabled.js';

export interface SignedIn {
  user: UserRow;
  jwt: IssuedJwt;
}

export interface WebSignIn {
  user: UserRow;
  /** The first factor passed but the account has TOTP on and no code came with it. */
  secondFactorPending: boolean;
}

/** Password sign-in and sign-up for the API, with the limits that keep guessing expensive. */
export class AuthService {
  constructor(
    private readonly users: UserService,
    private readonly hasher: PasswordHasher,
    private readonly jwt: JwtService,
    private readonly limiter: RateLimiter,
    private readonly totp: TotpService,
    private readonly events: SecurityEvents,
  ) {}

  /** The API's login: a JWT only once both factors are in (the code rides along in `otp`). */
  async login(email: string, password: string, otp: string | undefined, origin: RequestOrigin): Promise<SignedIn> {
    const user = await this.#firstFactor(email, password, origin);
    const method = (await this.#secondFactor(user, otp, origin)) ?? 'password';
    await this.events.record({ type: 'sign_in.succeeded', user, origin, method, credential: 'jwt' });
    return { user, jwt: this.jwt.issue(user.id, user.jwt_generation) };
  }

  /**
   * The web's password sign-in. With TOTP on, a code sent along finishes it at once; without one
   * the caller gets only a pending session, and the second step follows (`completeSecondFactor`).
   */
  async passwordSignIn(email: string, password: string, otp: string | undefined, origin: RequestOrigin): Promise<WebSignIn> {
    const user = await this.#firstFactor(email, password, origin);
    if (!(await this.totp.isEnabled(user.id))) {
      await this.events.record({ type: 'sign_in.succeeded', user, origin, method: 'password', credential: 'session' });
      return { user, secondFactorPending: false };
    }
    if (otp === undefined || otp.trim() === '') return { user, secondFactorPending: true };
    await this.completeSecondFactor(user, otp, origin);
    return { user, secondFactorPending: false };
  }

  /** The web's second step: the code for a sign-in that passed its first factor and waits. */
  async completeSecondFactor(user: UserRow, code: string, origin: RequestOrigin): Promise<void> {
    const method = (await this.#secondFactor(user, code, origin)) ?? 'password';
    await this.events.record({ type: 'sign_in.succeeded', user, origin, method, credential: 'session' });
  }

  /** The password, with its failure or refusal recorded as a security event. */
  async #firstFactor(email: string, password: string, origin: RequestOrigin): Promise<UserRow> {
    try {
      return await this.verifyPassword(email, password, origin.ip);
    } catch (error) {
      // The account, when the address names one: its owner's history shows the failed guesses.
      const user = error instanceof AppError ? ((await this.users.findByEmail(email)) ?? null) : null;
      await this.events.recordSignInError(error, { user, origin, method: 'password' });
      throw error;
    }
  }

  /** The TOTP or recovery code, when the account has 2FA on, with its failure recorded. */
  async #secondFactor(user: UserRow, code: string | undefined, origin: RequestOrigin): Promise<SecondFactorKind | undefined> {
    try {
      return await this.totp.verifySignInCode(user.id, code);
    } catch (error) {
      await this.events.recordSignInError(error, { user, origin, method: 'totp' });
      throw error;
    }
  }

  /** The first factor, shared by the API's JWT login and the web sign-in. */
  async verifyPassword(emailInput: string, password: string, clientIp: string): Promise<UserRow> {
    const email = normalizeEmail(emailInput);
    // Counted before the password is checked: parallel guesses cannot all pass a limit read before
    // any of them was counted. A locked account answers 429 even to the right password, so the
    // lock tells a guesser nothing. The key is the address as typed (normalised), known or not, so
    // the limit does not reveal which addresses have accounts.
    const reservation = await this.limiter.reserve([
      [failedPasswordKey(email), RATE_LIMITS.loginFailuresPerAccount],
      [`login:ip:${clientIp}`, RATE_LIMITS.loginFailuresPerIp],
    ]);

    const user = await this.users.findByEmail(email);
    // Unknown addresses take the same path and time as a wrong password: no account enumeration.
    const valid = user === undefined ? await this.hasher.verifyAgainstDummy(password) : await this.hasher.verify(user.password_hash, password);
    if (user === undefined || !valid) throw unauthorized(AUTH_ERRORS.INVALID_CREDENTIALS, 'The e-mail address or password is wrong.');
    // Only failures use up the limits: the right password gives its places back.
    await reservation.refund();
    // Said after the password was checked: the answer tells only the account's holder that it is disabled.
    assertEnabled(user);
    return user;
  }

  async signup(input: NewUser, clientIp: string): Promise<SignedIn> {
    // Every attempt counts, successful or not, and before the argon2id hash it costs.
    await this.limiter.reserve([[`signup:ip:${clientIp}`, RATE_LIMITS.signupsPerIp]]);
    const user = await this.users.createUser(input);
    return { user, jwt: this.jwt.issue(user.id, user.jwt_generation) };
  }
}
