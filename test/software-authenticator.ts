import { createECDH, createHash, createPrivateKey, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A WebAuthn authenticator in software, so API tests can make real registration and sign-in
 * responses without a browser. It is written from the WebAuthn and CTAP2 specifications with
 * node:crypto only (not with the library under test): ES256 keys, "none" attestation, CBOR and
 * COSE encoded by hand. Every field a test may want wrong (origin, ceremony type, challenge, user
 * verification, counter, signature) can be overridden.
 */

// --- CBOR (RFC 8949), just the subset WebAuthn needs: integers, byte and text strings, arrays, maps.

type CborValue = number | string | Uint8Array | CborValue[] | Map<CborValue, CborValue>;

function cborHead(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value]);
  if (value < 0x10000) {
    const head = Buffer.alloc(3);
    head[0] = (major << 5) | 25;
    head.writeUInt16BE(value, 1);
    return head;
  }
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(value, 1);
  return head;
}

export function cborEncode(value: CborValue): Buffer {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('only integers are supported');
    return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([cborHead(4, value.length), ...value.map(cborEncode)]);
  const entries = [...value.entries()];
  return Buffer.concat([cborHead(5, entries.length), ...entries.flatMap(([key, item]) => [cborEncode(key), cborEncode(item)])]);
}

// --- WebAuthn

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_BACKUP_ELIGIBLE = 0x08;
const FLAG_BACKED_UP = 0x10;
const FLAG_ATTESTED_CREDENTIAL = 0x40;
const COSE_ES256 = -7;

export interface SoftwareCredential {
  id: Buffer;
  privateKey: KeyObject;
  /** The public key as a COSE_Key map (EC2, P-256). */
  publicKeyCose: Buffer;
  rpId: string;
  userHandle: Buffer;
  /** The sign counter: goes up by one per use on a device-bound authenticator, stays 0 when synced. */
  counter: number;
}

/** The parts of PublicKeyCredentialCreationOptionsJSON the authenticator reads. */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

/** The parts of PublicKeyCredentialRequestOptionsJSON the authenticator reads. */
export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/** What PublicKeyCredential.toJSON() gives for a new credential. */
export interface RegistrationResponse {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

/** What PublicKeyCredential.toJSON() gives for an assertion. */
export interface AuthenticationResponse {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

/** Ways a test makes a response wrong. */
export interface Overrides {
  origin?: string;
  type?: string;
  challenge?: string;
  userVerified?: boolean;
  /** The counter to report (and keep); by default the authenticator's own rule. */
  counter?: number;
  userHandle?: Buffer;
}

function sha256(data: Buffer | string): Buffer {
  return createHash('sha256').update(data).digest();
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter, 0);
  return bytes;
}

export class SoftwareAuthenticator {
  readonly credentials: SoftwareCredential[] = [];
  readonly #origin: string;
  readonly #synced: boolean;

  /**
   * `origin` is what the browser would write into the client data (the page's origin). A synced
   * authenticator (a password manager, a platform keychain) reports the backup flags and a counter
   * that is always 0.
   */
  constructor(settings: { origin: string; synced?: boolean }) {
    this.#origin = settings.origin;
    this.#synced = settings.synced ?? false;
  }

  /** navigator.credentials.create(): a new resident ES256 credential, attested with "none". */
  create(options: CreationOptions, overrides: Overrides = {}): RegistrationResponse {
    const rpId = options.rp.id ?? new URL(this.#origin).hostname;
    const { privateKey, x, y } = newP256Key();
    const publicKeyCose = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 2], // kty: EC2
        [3, COSE_ES256], // alg
        [-1, 1], // crv: P-256
        [-2, x],
        [-3, y],
      ]),
    );
    const credential: SoftwareCredential = {
      id: randomBytes(32),
      privateKey,
      publicKeyCose,
      rpId,
      userHandle: Buffer.from(options.user.id, 'base64url'),
      counter: 0,
    };
    this.credentials.push(credential);
    return this.attest(credential, options, overrides);
  }

  /** The registration response for an existing credential (to register one credential twice). */
  attest(credential: SoftwareCredential, options: CreationOptions, overrides: Overrides = {}): RegistrationResponse {
    const clientDataJSON = this.#clientData('webauthn.create', options.challenge, overrides);
    if (overrides.counter !== undefined) credential.counter = overrides.counter;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length, 0);
    const authenticatorData = Buffer.concat([
      sha256(credential.rpId),
      Buffer.from([this.#flags(overrides) | FLAG_ATTESTED_CREDENTIAL]),
      counterBytes(credential.counter),
      Buffer.alloc(16), // AAGUID: zeros, as "none" attestation allows
      idLength,
      credential.id,
      credential.publicKeyCose,
    ]);
    const attestationObject = cborEncode(
      new Map<CborValue, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authenticatorData],
      ]),
    );
    const id = credential.id.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: { clientDataJSON: clientDataJSON.toString('base64url'), attestationObject: attestationObject.toString('base64url'), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get() without allowCredentials: the authenticator picks its (only, or
   * the given) credential for the RP and signs authenticatorData || SHA-256(clientDataJSON).
   */
  get(options: RequestOptions, overrides: Overrides & { credential?: SoftwareCredential } = {}): AuthenticationResponse {
    const rpId = options.rpId ?? new URL(this.#origin).hostname;
    const credential = overrides.credential ?? this.credentials.find((candidate) => candidate.rpId === rpId);
    if (credential === undefined) throw new Error(`no credential for ${rpId}`);
    if (overrides.counter !== undefined) credential.counter = overrides.counter;
    else if (!this.#synced) credential.counter += 1;

    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, overrides);
    const authenticatorData = Buffer.concat([sha256(rpId), Buffer.from([this.#flags(overrides)]), counterBytes(credential.counter)]);
    // ECDSA over SHA-256, DER-encoded, as WebAuthn specifies for ES256.
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    const id = credential.id.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: (overrides.userHandle ?? credential.userHandle).toString('base64url'),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  #clientData(type: string, challenge: string, overrides: Overrides): Buffer {
    return Buffer.from(
      JSON.stringify({
        type: overrides.type ?? type,
        challenge: overrides.challenge ?? challenge,
        origin: overrides.origin ?? this.#origin,
        crossOrigin: false,
      }),
      'utf8',
    );
  }

  #flags(overrides: Overrides): number {
    let flags = FLAG_USER_PRESENT;
    if (overrides.userVerified ?? true) flags |= FLAG_USER_VERIFIED;
    if (this.#synced) flags |= FLAG_BACKUP_ELIGIBLE | FLAG_BACKED_UP;
    return flags;
  }
}

/**
 * A P-256 key pair made through ECDH rather than generateKeyPair: Node 20 can deadlock when a
 * garbage collection during a KeyObject's JWK export frees an earlier key-generation job (both
 * take the same lock), which hung whole test files now and then.
 */
function newP256Key(): { privateKey: KeyObject; x: Buffer; y: Buffer } {
  const ecdh = createECDH('prime256v1');
  // Uncompressed point: 0x04, then x and y of 32 bytes each.
  const point = ecdh.generateKeys();
  const x = point.subarray(1, 33);
  const y = point.subarray(33, 65);
  const secret = ecdh.getPrivateKey();
  const d = Buffer.concat([Buffer.alloc(32 - secret.length), secret]);
  const privateKey = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x: x.toString('base64url'), y: y.toString('base64url'), d: d.toString('base64url') }, format: 'jwk' });
  return { privateKey, x, y };
}
