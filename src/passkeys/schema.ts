import { Type, type Static } from 'typebox';
import { Id } from '../http/params.js';

export const PASSKEY_NAME_MAX_LENGTH = 100;

export const PasskeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The last sign-in with this passkey' }),
  device_type: Type.Enum(['single_device', 'multi_device'], {
    description: 'single_device: bound to one authenticator (a security key); multi_device: may be synced between devices (a password manager, a platform keychain)',
  }),
  backed_up: Type.Boolean({ description: 'The authenticator reports the passkey as backed up (synced), as of its last use' }),
});
export type PasskeyJson = Static<typeof PasskeySchema>;

export const PasskeyEnvelope = Type.Object({ passkey: PasskeySchema });
export const PasskeyList = Type.Object({ passkeys: Type.Array(PasskeySchema) });
export const PasskeyParams = Type.Object({ id: Id });

const PasskeyName = Type.String({ minLength: 1, maxLength: PASSKEY_NAME_MAX_LENGTH });

/** WebAuthn options exactly as navigator.credentials.create/get take them, with binary values in base64url. */
const CredentialOptions = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const RegistrationOptionsResponse = Type.Object({
  options: CredentialOptions('PublicKeyCredentialCreationOptionsJSON: pass to PublicKeyCredential.parseCreationOptionsFromJSON() or @simplewebauthn/browser startRegistration()'),
});

export const SignInOptionsResponse = Type.Object({
  options: CredentialOptions('PublicKeyCredentialRequestOptionsJSON: pass to PublicKeyCredential.parseRequestOptionsFromJSON() or @simplewebauthn/browser startAuthentication()'),
  challenge_id: Type.String({ description: 'Send back with the response to POST /auth/passkey/verify; valid 5 minutes, once' }),
});

// Credential ids are at most 1023 bytes (WebAuthn), 1364 characters of base64url.
const CredentialId = Type.String({ minLength: 1, maxLength: 1400, pattern: '^[A-Za-z0-9_-]+$' });
const Base64Url = (maxLength: number) => Type.String({ maxLength });
/** What browsers add beyond the fields we read (authenticatorAttachment, newer fields) is accepted and ignored. */
const ExtensionResults = Type.Optional(Type.Object({}, { additionalProperties: true }));

/** PublicKeyCredential.toJSON() of navigator.credentials.create(). */
export const RegistrationResponse = Type.Object(
  {
    id: CredentialId,
    rawId: CredentialId,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url(8192),
        attestationObject: Base64Url(65536),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: ExtensionResults,
  },
  { additionalProperties: true, description: 'PublicKeyCredential.toJSON() of the credential navigator.credentials.create() made' },
);

/** PublicKeyCredential.toJSON() of navigator.credentials.get(). */
export const AuthenticationResponse = Type.Object(
  {
    id: CredentialId,
    rawId: CredentialId,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url(8192),
        authenticatorData: Base64Url(8192),
        signature: Base64Url(8192),
        userHandle: Type.Optional(Type.Union([Base64Url(128), Type.Null()])),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: ExtensionResults,
  },
  { additionalProperties: true, description: 'PublicKeyCredential.toJSON() of the assertion navigator.credentials.get() made' },
);

export const RegisterPasskeyBody = Type.Object(
  { name: Type.Optional(PasskeyName), response: RegistrationResponse },
  { additionalProperties: false },
);

export const RenamePasskeyBody = Type.Object({ name: PasskeyName }, { additionalProperties: false });

export const PasskeySignInBody = Type.Object(
  { challenge_id: Type.String({ maxLength: 64 }), response: AuthenticationResponse },
  { additionalProperties: false },
);
