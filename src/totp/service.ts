import type { Kysely } from 'kysely';
import { RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import { AppError, unauthorized } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { UserRow } from '../users/queries.js';
import {
  acceptTimeStep,
  countUnusedRecoveryCodes,
  disableTotp,
  enableTotp,
  findUserTotp,
  type RecoveryCodeRow,
  replaceRecoveryCodes,
  savePendingSecret,
  useRecoveryCode,
  type UserTotpRow,
} from './queries.js';
import { isRecoveryCodeShape, isTotpCodeShape, legacyRecoveryCodeDigest, newRecoveryCodes, normalizeCode, type RecoveryCodeDigest } from './recovery-codes.js';
import { matchingTimeStep, newTotpSecret, otpauthUrl, qrCodeSvg } from './totp.js';
import { TOTP_ERRORS } from './errors.js';

// The failures of this feature, each with its stable code.
/** Sign-in: the account has TOTP on and no code was sent. */
export const otpRequired = () =>
  unauthorized(TOTP_ERRORS.OTP_REQUIRED, 'This account uses two-factor authentication: send the code from your authenticator app, or a recovery code, in "otp".');
/** Sign-in: the code is wrong, already used, or out of the time window. */
export const otpInvalidAtSignIn = () => unauthorized(TOTP_ERRORS.OTP_INVALID, 'The code is wrong or has already been used.');
/** Account settings: the signed-in user confirmed a change with a wrong code (not a sign-out, so not 401). */
const otpInvalidForChange = () => new AppError(403, TOTP_ERRORS.OTP_INVALID, 'The code is wrong or has already been used.');
const otpRequiredForChange = () =>
  new AppError(403, TOTP_ERRORS.OTP_REQUIRED, 'This account uses two-factor authentication: send the code from your authenticator app, or a recovery code, in "otp".');
const totpAlreadyEnabled = () =>
  new AppError(409, TOTP_ERRORS.TOTP_ALREADY_ENABLED, 'Two-factor authentication is already on. Turn it off first to move it to another device.');
const totpNotEnabled = () => new AppError(409, TOTP_ERRORS.TOTP_NOT_ENABLED, 'Two-factor authentication is not on for this account.');
const totpSetupRequired = () => new AppError(409, TOTP_ERRORS.TOTP_SETUP_REQUIRED, 'Start with POST /api/v1/me/totp/setup, then confirm with a code from the app.');

export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
  qrSvg: string;
}

/** Which second factor a sign-in was finished with. */
export type SecondFactorKind = 'totp' | 'recovery_code';

export interface TotpStatus {
  enabled: boolean;
  recoveryCodesRemaining: number;
}

function isEnabled(row: UserTotpRow | undefined): row is UserTotpRow & { secret: string } {
  return row !== undefined && row.enabled_at !== null && row.secret !== null;
}

/**
 * TOTP two-factor authentication and recovery codes. The secret is stored encrypted (a database
 * leak alone yields no codes), every code is accepted once, and wrong codes are limited per
 * account wherever they are tried (API login, web sign-in step, account settings).
 */
export class TotpService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly secrets: SecretBox,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    private readonly recoveryCodeDigest: RecoveryCodeDigest,
  ) {}

  async isEnabled(userId: string): Promise<boolean> {
    return isEnabled(await findUserTotp(this.db, userId));
  }

  async status(userId: string): Promise<TotpStatus> {
    const row = await findUserTotp(this.db, userId);
    if (!isEnabled(row)) return { enabled: false, recoveryCodesRemaining: 0 };
    return { enabled: true, recoveryCodesRemaining: await countUnusedRecoveryCodes(this.db, userId) };
  }

  /** A new pending secret for the app to scan; 2FA is on only once a code from it is confirmed. */
  async setup(user: UserRow): Promise<TotpSetup> {
    if (isEnabled(await findUserTotp(this.db, user.id))) throw totpAlreadyEnabled();
    const secret = newTotpSecret();
    await savePendingSecret(this.db, user.id, this.#encrypt(user.id, secret), this.clock.now().toISOString());
    const url = otpauthUrl(secret, user.email);
    return { secret, otpauthUrl: url, qrSvg: await qrCodeSvg(url) };
  }

  /**
   * Confirms the pending secret with a code from the app and turns 2FA on. The confirming code's
   * step is recorded as used, so it cannot sign anyone in afterwards. Returns the recovery codes,
   * which exist in clear only in this answer.
   */
  async enable(userId: string, code: string): Promise<string[]> {
    const row = await findUserTotp(this.db, userId);
    if (isEnabled(row)) throw totpAlreadyEnabled();
    const pendingSecret = row?.pending_secret ?? null;
    if (pendingSecret === null) throw totpSetupRequired();

    const step = await this.#attempt(userId, code, async (normalized) => {
      if (!isTotpCodeShape(normalized)) return undefined;
      return matchingTimeStep(this.#decrypt(userId, pendingSecret), normalized, this.clock.now());
    });
    if (step === undefined) throw otpInvalidForChange();

    const codes = newRecoveryCodes();
    const now = this.clock.now().toISOString();
    const enabled = await enableTotp(this.db, { userId, pendingSecret, step, now, recoveryCodes: this.#recoveryCodeRows(userId, codes) });
    if (!enabled) throw totpAlreadyEnabled();
    return codes;
  }

  /** Turns 2FA off after a valid TOTP or recovery code (a stolen session alone cannot do it). */
  async disable(userId: string, code: string): Promise<void> {
    await this.#confirmChange(userId, code);
    await disableTotp(this.db, userId);
  }

  /** A new set of recovery codes after a valid TOTP or recovery code; the old set dies. */
  async regenerateRecoveryCodes(userId: string, code: string): Promise<string[]> {
    await this.#confirmChange(userId, code);
    const codes = newRecoveryCodes();
    await replaceRecoveryCodes(this.db, userId, this.#recoveryCodeRows(userId, codes));
    return codes;
  }

  /**
   * The second factor of a sign-in. Does nothing for an account without 2FA (undefined); otherwise
   * the code (TOTP or recovery) must be sent and valid: 401 `otp_required` / `otp_invalid`, 429
   * when the account has used up its wrong codes. Answers which kind of code it was.
   */
  async verifySignInCode(userId: string, code: string | undefined): Promise<SecondFactorKind | undefined> {
    const row = await findUserTotp(this.db, userId);
    if (!isEnabled(row)) return undefined;
    if (code === undefined || normalizeCode(code) === '') throw otpRequired();
    const kind = await this.#checkEnabledCode(row, code);
    if (kind === undefined) throw otpInvalidAtSignIn();
    return kind;
  }

  /**
   * The second factor of a re-authentication: like a sign-in's, under the same per-account limit,
   * but refusals are 403 (the caller stays signed in): `otp_required`, `otp_invalid`.
   */
  /** With 2FA on, the code a re-authentication must carry; which kind it was, or undefined with 2FA off. */
  async verifyReauthenticationCode(userId: string, code: string | undefined): Promise<SecondFactorKind | undefined> {
    const row = await findUserTotp(this.db, userId);
    if (!isEnabled(row)) return undefined;
    if (code === undefined || normalizeCode(code) === '') throw otpRequiredForChange();
    const kind = await this.#checkEnabledCode(row, code);
    if (kind === undefined) throw otpInvalidForChange();
    return kind;
  }

  async #confirmChange(userId: string, code: string): Promise<void> {
    const row = await findUserTotp(this.db, userId);
    if (!isEnabled(row)) throw totpNotEnabled();
    if ((await this.#checkEnabledCode(row, code)) === undefined) throw otpInvalidForChange();
  }

  /** A TOTP code for a step not used yet, or an unused recovery code; either is used up by this. */
  async #checkEnabledCode(row: UserTotpRow & { secret: string }, code: string): Promise<SecondFactorKind | undefined> {
    return this.#attempt(row.user_id, code, async (normalized): Promise<SecondFactorKind | undefined> => {
      if (isTotpCodeShape(normalized)) {
        const step = matchingTimeStep(this.#decrypt(row.user_id, row.secret), normalized, this.clock.now());
        return step !== undefined && (await acceptTimeStep(this.db, row.user_id, row.secret, step)) ? 'totp' : undefined;
      }
      if (isRecoveryCodeShape(normalized)) {
        // Looked up by its keyed digest: the comparison the database makes (an index lookup, not
        // constant-time) can at most reveal a prefix of an HMAC the caller cannot compute.
        const digests = [this.recoveryCodeDigest.digest(normalized), legacyRecoveryCodeDigest(normalized)];
        return (await useRecoveryCode(this.db, row.user_id, digests, this.clock.now().toISOString())) ? 'recovery_code' : undefined;
      }
      return undefined;
    });
  }

  /**
   * One code attempt under the per-account limit. The attempt is counted before the code is
   * checked (so concurrent guesses cannot all slip under the limit) and given back when it
   * succeeds: only wrong codes use up the 10 per 15 minutes. While the account is locked even a
   * right code gets 429, so the lock tells a guesser nothing. `check` answers undefined for a
   * wrong code.
   */
  async #attempt<T>(userId: string, code: string, check: (normalized: string) => Promise<T | undefined>): Promise<T | undefined> {
    const reservation = await this.limiter.reserve([[`totp:account:${userId}`, RATE_LIMITS.codeFailuresPerAccount]]);
    const result = await check(normalizeCode(code));
    if (result !== undefined) await reservation.refund();
    return result;
  }

  #recoveryCodeRows(userId: string, codes: string[]): RecoveryCodeRow[] {
    const now = this.clock.now();
    return codes.map((code) => ({
      id: newId(now),
      user_id: userId,
      code_hash: this.recoveryCodeDigest.digest(normalizeCode(code)),
      created_at: now.toISOString(),
      used_at: null,
    }));
  }

  /** The user id is bound as associated data: a secret copied into another user's row does not open. */
  #encrypt(userId: string, secret: string): string {
    return this.secrets.encrypt(secret, `user:${userId}:totp_secret`);
  }

  #decrypt(userId: string, stored: string): string {
    return this.secrets.decrypt(stored, `user:${userId}:totp_secret`);
  }
}
