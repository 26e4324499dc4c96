import { randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import { RATE_LIMITS, type RateLimiter } from '../rate-limit/rate-limit.js';
import type { Database } from '../db/schema.js';
import { AppError, unauthorized, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { secretsEqual, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { UserRow } from '../users/queries.js';
import {
  type Ceremony,
  consumeChallengeById,
  consumeRegistrationChallenge,
  countPasskeys,
  deletePasskey,
  findPasskeyWithUser,
  insertChallenge,
  insertPasskey,
  listPasskeys,
  type PasskeyRow,
  pruneChallenges,
  recordPasskeyUse,
  renamePasskey,
} from './queries.js';
import { passkeyToJson } from './presenter.js';
import type { AuthenticationResponse, PasskeyJson, RegistrationResponse } from './schema.js';
import { PASSKEY_ERRORS } from './errors.js';

/** How long a ceremony may take, from options to response; also the browser's timeout. */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
/** 32 random bytes: WebAuthn asks for at least 16. */
const CHALLENGE_BYTES = 32;
/** A generous ceiling that keeps excludeCredentials (and the list page) small. */
export const MAX_PASSKEYS_PER_USER = 50;
/**
 * COSE algorithms offered: EdDSA, ES256, RS256. Pinned rather than the library's default, which
 * adds ML-DSA on runtimes that support it: app servers on different Node versions must all be
 * able to verify every stored passkey.
 */
const SUPPORTED_ALGORITHMS = [-8, -7, -257];
const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const DEFAULT_NAME = 'Passkey';

// The failures of this feature, each with its stable code. Sign-in failures are 401; failures
// while adding a passkey are 400, since the caller is signed in and stays so.
const challengeInvalidAtSignIn = () =>
  unauthorized(PASSKEY_ERRORS.PASSKEY_CHALLENGE_INVALID, 'This sign-in attempt is unknown, used or expired (5 minutes); start again with POST /auth/passkey/options.');
const challengeInvalidAtRegistration = () =>
  new AppError(400, PASSKEY_ERRORS.PASSKEY_CHALLENGE_INVALID, 'This passkey was made for an unknown, used or expired challenge (5 minutes); start again with POST /api/v1/me/passkeys/options.');
const unknownCredential = () =>
  unauthorized(PASSKEY_ERRORS.PASSKEY_UNKNOWN_CREDENTIAL, 'This passkey is not registered with Siteward (it may have been deleted); sign in another way.');
const signInFailed = (reason: string) => unauthorized(PASSKEY_ERRORS.PASSKEY_VERIFICATION_FAILED, `The passkey sign-in could not be verified: ${reason}`);
const registrationFailed = (reason: string) => new AppError(400, PASSKEY_ERRORS.PASSKEY_VERIFICATION_FAILED, `The new passkey could not be verified: ${reason}`);
const counterNotIncreased = () =>
  unauthorized(
    PASSKEY_ERRORS.PASSKEY_COUNTER_NOT_INCREASED,
    "The passkey's signature counter did not increase since its last use, which is what a copied (cloned) security key looks like. Sign in another way and remove this passkey if you do not recognise this.",
  );
const alreadyRegistered = () => new AppError(409, PASSKEY_ERRORS.PASSKEY_ALREADY_REGISTERED, 'This passkey is already registered.');
const tooManyPasskeys = () => new AppError(409, PASSKEY_ERRORS.TOO_MANY_PASSKEYS, `An account can hold at most ${MAX_PASSKEYS_PER_USER} passkeys; remove one first.`);
const passkeyNotFound = () => new AppError(404, PASSKEY_ERRORS.PASSKEY_NOT_FOUND, 'No passkey with this id.');
const challengeInvalidAtReauthentication = () =>
  new AppError(403, PASSKEY_ERRORS.PASSKEY_CHALLENGE_INVALID, 'This confirmation is unknown, used or expired (5 minutes); start again with POST /api/v1/me/reauthenticate/passkey-options.');
const noPasskeys = () => new AppError(409, PASSKEY_ERRORS.NO_PASSKEYS, 'This account has no passkeys; confirm with your password instead.');
const notYourPasskey = () => new AppError(403, PASSKEY_ERRORS.PASSKEY_UNKNOWN_CREDENTIAL, 'This passkey does not belong to your account; use one of yours, or your password.');

export interface RelyingParty {
  /** PUBLIC_URL's host name: passkeys are bound to it, and work on it and nowhere else. */
  id: string;
  name: string;
  /** PUBLIC_URL's origin: the only origin whose responses are accepted. */
  origin: string;
}

/**
 * The WebAuthn user handle: the user id's 16 bytes. It is stored on the authenticator and returned
 * at every sign-in, so it holds no e-mail address or name.
 */
function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}

/** The challenge the authenticator signed, read from the client data; undefined when unreadable. */
function signedChallenge(clientDataJSON: string): string | undefined {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    if (typeof clientData !== 'object' || clientData === null) return undefined;
    const { challenge } = clientData as { challenge?: unknown };
    return typeof challenge === 'string' && challenge !== '' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The library reports a failed check by throwing; its sentence says which check. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : 'the response is malformed';
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server. Challenges live in the database, not in memory,
 * so the options and the response of one ceremony may reach different app servers; each is
 * tagged with its ceremony, expires after 5 minutes, and is consumed once, before the response is
 * checked, so a failed response burns it too. User verification is required in both ceremonies:
 * a passkey sign-in is two factors in one (the device and its PIN or biometric) and needs no TOTP.
 */
export class PasskeyService {
  /**
   * The WebAuthn library is loaded at the first ceremony, not at start-up: it holds megabytes of
   * heap, in every process, for a feature most requests never touch (docs/decisions/lazy-libraries.md).
   */
  static readonly #webauthn = () => import('@simplewebauthn/server');

  constructor(
    private readonly db: Kysely<Database>,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    private readonly relyingParty: RelyingParty,
  ) {}

  /** Options for navigator.credentials.create(): a resident (discoverable) key with user verification. */
  async registrationOptions(user: UserRow): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await listPasskeys(this.db, user.id);
    if (existing.length >= MAX_PASSKEYS_PER_USER) throw tooManyPasskeys();
    const challenge = await this.#newChallenge('registration', user.id);
    const { generateRegistrationOptions } = await PasskeyService.#webauthn();
    return generateRegistrationOptions({
      rpName: this.relyingParty.name,
      rpID: this.relyingParty.id,
      userName: user.email,
      userDisplayName: user.name === '' ? user.email : user.name,
      userID: userHandleOf(user.id),
      challenge,
      timeout: CHALLENGE_LIFETIME_MS,
      attestationType: 'none',
      // The browser refuses to make a second passkey on an authenticator that already holds one.
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credential_id, transports: transportList(passkey.transports) })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  }

  /** Checks the authenticator's answer to the registration options and stores the passkey. */
  async register(user: UserRow, input: { name?: string | undefined; response: Static<typeof RegistrationResponse> }): Promise<PasskeyJson> {
    const name = (input.name ?? DEFAULT_NAME).trim();
    if (name === '') throw validationError([{ path: '/name', message: 'must not be blank' }]);
    const { response } = input;

    const challenge = signedChallenge(response.response.clientDataJSON);
    if (challenge === undefined) throw registrationFailed('clientDataJSON carries no challenge');
    const now = this.clock.now();
    if (!(await consumeRegistrationChallenge(this.db, sha256(challenge), user.id, now.toISOString()))) throw challengeInvalidAtRegistration();
    if ((await countPasskeys(this.db, user.id)) >= MAX_PASSKEYS_PER_USER) throw tooManyPasskeys();

    const registration: RegistrationResponseJSON = {
      id: response.id,
      rawId: response.rawId,
      type: response.type,
      response: {
        clientDataJSON: response.response.clientDataJSON,
        attestationObject: response.response.attestationObject,
        ...(response.response.transports === undefined ? {} : { transports: response.response.transports }),
      },
      clientExtensionResults: response.clientExtensionResults ?? {},
    };
    const { verifyRegistrationResponse } = await PasskeyService.#webauthn();
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response: registration,
        expectedChallenge: challenge,
        expectedOrigin: this.relyingParty.origin,
        expectedRPID: this.relyingParty.id,
        requireUserPresence: true,
        requireUserVerification: true,
        supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      });
    } catch (error) {
      throw registrationFailed(reasonOf(error));
    }
    if (!verified.verified) throw registrationFailed('the attestation does not verify');
    const info = verified.registrationInfo;

    const row: PasskeyRow = {
      id: newId(now),
      user_id: user.id,
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: (response.response.transports ?? []).filter((transport) => KNOWN_TRANSPORTS.has(transport)).join(' '),
      device_type: info.credentialDeviceType === 'multiDevice' ? 'multi_device' : 'single_device',
      backed_up: info.credentialBackedUp ? 1 : 0,
      name,
      created_at: now.toISOString(),
      last_used_at: null,
    };
    if (!(await insertPasskey(this.db, row))) throw alreadyRegistered();
    return passkeyToJson(row);
  }

  async list(userId: string): Promise<PasskeyJson[]> {
    return (await listPasskeys(this.db, userId)).map(passkeyToJson);
  }

  async rename(userId: string, id: string, nameInput: string): Promise<PasskeyJson> {
    const name = nameInput.trim();
    if (name === '') throw validationError([{ path: '/name', message: 'must not be blank' }]);
    const row = await renamePasskey(this.db, userId, id, name);
    if (row === undefined) throw passkeyNotFound();
    return passkeyToJson(row);
  }

  /** Removes the passkey and answers its name, for the owner's notice. */
  async remove(userId: string, id: string): Promise<{ name: string }> {
    const name = await deletePasskey(this.db, userId, id);
    if (name === undefined) throw passkeyNotFound();
    return { name };
  }

  /**
   * Options for navigator.credentials.get() without a user: allowCredentials stays empty, so the
   * browser offers every passkey it holds for this site (discoverable credentials), and the
   * response names its user. Each call stores a row, so calls are limited per client address.
   */
  async signInOptions(clientIp: string): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; challengeId: string }> {
    await this.limiter.reserve([[`passkey:options:ip:${clientIp}`, RATE_LIMITS.passkeyOptionsPerIp]]);
    const challengeId = newId(this.clock.now());
    const challenge = await this.#newChallenge('authentication', null, challengeId);
    const { generateAuthenticationOptions } = await PasskeyService.#webauthn();
    const options = await generateAuthenticationOptions({
      rpID: this.relyingParty.id,
      allowCredentials: [],
      challenge,
      timeout: CHALLENGE_LIFETIME_MS,
      userVerification: 'required',
    });
    return { options, challengeId };
  }

  /**
   * Checks a passkey sign-in and answers its user. Each attempt is counted against the client
   * address before it is checked and given back when it succeeds, so only failures use up the
   * limit and parallel attempts cannot overshoot it.
   */
  async signIn(challengeId: string, response: Static<typeof AuthenticationResponse>, clientIp: string): Promise<UserRow> {
    const reservation = await this.limiter.reserve([[`passkey:failures:ip:${clientIp}`, RATE_LIMITS.passkeyFailuresPerIp]]);
    const user = await this.#verifySignIn(challengeId, response);
    await reservation.refund();
    return user;
  }

  /**
   * Options for navigator.credentials.get() when a signed-in user confirms who they are: the
   * challenge is issued to that user, and only their passkeys are offered.
   */
  async reauthenticationOptions(user: UserRow, clientIp: string): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; challengeId: string }> {
    await this.limiter.reserve([[`passkey:options:ip:${clientIp}`, RATE_LIMITS.passkeyOptionsPerIp]]);
    const passkeys = await listPasskeys(this.db, user.id);
    if (passkeys.length === 0) throw noPasskeys();
    const challengeId = newId(this.clock.now());
    const challenge = await this.#newChallenge('reauthentication', user.id, challengeId);
    const { generateAuthenticationOptions } = await PasskeyService.#webauthn();
    const options = await generateAuthenticationOptions({
      rpID: this.relyingParty.id,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.credential_id, transports: transportList(passkey.transports) })),
      challenge,
      timeout: CHALLENGE_LIFETIME_MS,
      userVerification: 'required',
    });
    return { options, challengeId };
  }

  /**
   * Checks a signed-in user's passkey confirmation: a challenge issued to them, answered by one of
   * their own passkeys. Counted like a passkey sign-in (the same limit per client address), and
   * every failure is 403: the caller stays signed in.
   */
  async reauthenticate(user: UserRow, challengeId: string, response: Static<typeof AuthenticationResponse>, clientIp: string): Promise<void> {
    const reservation = await this.limiter.reserve([[`passkey:failures:ip:${clientIp}`, RATE_LIMITS.passkeyFailuresPerIp]]);
    const now = this.clock.now().toISOString();
    const challengeHash = await consumeChallengeById(this.db, challengeId, 'reauthentication', user.id, now);
    if (challengeHash === undefined) throw challengeInvalidAtReauthentication();
    const found = await findPasskeyWithUser(this.db, response.id);
    if (found === undefined || found.user.id !== user.id) throw notYourPasskey();
    try {
      await this.#verifyAssertion(challengeHash, found, response, now);
    } catch (error) {
      // The sign-in checks answer 401; here the session or JWT is still good, so the same refusal is 403.
      if (error instanceof AppError && error.status === 401) throw new AppError(403, error.code, error.detail);
      throw error;
    }
    await reservation.refund();
  }

  async #verifySignIn(challengeId: string, response: Static<typeof AuthenticationResponse>): Promise<UserRow> {
    const now = this.clock.now().toISOString();
    const challengeHash = await consumeChallengeById(this.db, challengeId, 'authentication', null, now);
    if (challengeHash === undefined) throw challengeInvalidAtSignIn();

    const found = await findPasskeyWithUser(this.db, response.id);
    if (found === undefined) throw unknownCredential();
    await this.#verifyAssertion(challengeHash, found, response, now);
    return found.user;
  }

  /**
   * The assertion's user handle, signature (over the consumed challenge, origin and relying party)
   * and sign counter; records the use. Failures are the sign-in's 401s.
   */
  async #verifyAssertion(
    challengeHash: string,
    { passkey, user }: { passkey: PasskeyRow; user: UserRow },
    response: Static<typeof AuthenticationResponse>,
    now: string,
  ): Promise<void> {
    // Discoverable sign-in: the authenticator names the account; it must be the passkey's owner.
    const userHandle = response.response.userHandle;
    if (typeof userHandle === 'string' && userHandle !== '' && !secretsEqual(userHandle, Buffer.from(userHandleOf(user.id)).toString('base64url'))) {
      throw signInFailed('the user handle does not belong to this passkey');
    }

    const assertion: AuthenticationResponseJSON = {
      id: response.id,
      rawId: response.rawId,
      type: response.type,
      response: {
        clientDataJSON: response.response.clientDataJSON,
        authenticatorData: response.response.authenticatorData,
        signature: response.response.signature,
        ...(typeof userHandle === 'string' ? { userHandle } : {}),
      },
      clientExtensionResults: response.clientExtensionResults ?? {},
    };
    const { verifyAuthenticationResponse } = await PasskeyService.#webauthn();
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response: assertion,
        // Compared by hash, in constant time: the database holds only the hash.
        expectedChallenge: (challenge) => secretsEqual(sha256(challenge), challengeHash),
        expectedOrigin: this.relyingParty.origin,
        expectedRPID: this.relyingParty.id,
        // The counter is checked below, after the signature, with a clear error of its own.
        credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')), counter: 0, transports: transportList(passkey.transports) },
        requireUserVerification: true,
      });
    } catch (error) {
      throw signInFailed(reasonOf(error));
    }
    if (!verified.verified) throw signInFailed('the signature does not verify');

    // Synced passkeys report 0 every time; a device-bound key counts up. A counter that does not
    // go up once it has started means two authenticators hold the same key: refuse it.
    const { newCounter, credentialBackedUp } = verified.authenticationInfo;
    const counts = passkey.counter > 0 || newCounter > 0;
    if (counts && newCounter <= passkey.counter) throw counterNotIncreased();
    if (!(await recordPasskeyUse(this.db, { id: passkey.id, counter: newCounter, backedUp: credentialBackedUp, now }))) {
      // Another sign-in with this counter value landed first (or the passkey was just removed).
      throw counterNotIncreased();
    }
  }

  /**
   * Stores a new challenge (its SHA-256) and answers the challenge bytes. Expired challenges are
   * swept here, so the table holds about five minutes of ceremonies.
   */
  async #newChallenge(ceremony: Ceremony, userId: string | null, id?: string): Promise<Uint8Array<ArrayBuffer>> {
    const now = this.clock.now();
    const challenge = new Uint8Array(randomBytes(CHALLENGE_BYTES));
    await pruneChallenges(this.db, now.toISOString());
    await insertChallenge(this.db, {
      id: id ?? newId(now),
      challenge_hash: sha256(Buffer.from(challenge).toString('base64url')),
      ceremony,
      user_id: userId,
      expires_at: new Date(now.getTime() + CHALLENGE_LIFETIME_MS).toISOString(),
      used_at: null,
    });
    return challenge;
  }
}

function transportList(stored: string): string[] {
  return stored === '' ? [] : stored.split(' ');
}
