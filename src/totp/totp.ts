import { HOTP, Secret, TOTP } from 'otpauth';
import { secretsEqual } from '../lib/crypto.js';

/**
 * RFC 6238 as every authenticator app implements it: HMAC-SHA-1, 6 digits, 30-second steps.
 * Apps ignore other parameters in the otpauth URL often enough that anything else would lock
 * people out.
 */
export const TOTP_ALGORITHM = 'SHA1';
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** One step either side (±30 s) for a phone's clock drifting from the server's. */
export const TOTP_DRIFT_STEPS = 1;
export const TOTP_ISSUER = 'Siteward';
/** 160 bits, the HMAC-SHA-1 block output size RFC 4226 recommends as the minimum. */
const SECRET_BYTES = 20;

/** A new random secret, base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The RFC 6238 time step (T) at a moment: Unix seconds divided by the period. */
export function timeStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The otpauth:// URL an authenticator app scans: issuer "Siteward", account the e-mail address. */
export function otpauthUrl(secretBase32: string, accountName: string): string {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: accountName,
    secret: Secret.fromBase32(secretBase32),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}

/**
 * The URL as an SVG QR code, to show inline on the setup page. The encoder is loaded at the first
 * setup, not at start-up (docs/decisions/lazy-libraries.md).
 */
export async function qrCodeSvg(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * The time step, within the drift window around `now`, whose code is `code`; undefined when none
 * is. Every candidate is computed and compared in constant time, with no early exit, so the
 * answer's timing says nothing about which step (or how much of a code) matched. Where two steps
 * share a code, the latest wins, so the replay guard moves as far forward as it can.
 */
export function matchingTimeStep(secretBase32: string, code: string, now: Date): number | undefined {
  const secret = Secret.fromBase32(secretBase32);
  const current = timeStep(now);
  let matched: number | undefined;
  for (let step = current - TOTP_DRIFT_STEPS; step <= current + TOTP_DRIFT_STEPS; step++) {
    const expected = HOTP.generate({ secret, algorithm: TOTP_ALGORITHM, digits: TOTP_DIGITS, counter: step });
    if (secretsEqual(expected, code)) matched = step;
  }
  return matched;
}
