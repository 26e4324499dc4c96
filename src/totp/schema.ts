import { Type, type Static } from 'typebox';

/** A TOTP code ("123456", spaces allowed) or a recovery code ("abcde-fghij"). */
export const CodeBody = Type.Object(
  { code: Type.String({ maxLength: 64, description: 'A 6-digit code from the authenticator app, or (where allowed) a recovery code' }) },
  { additionalProperties: false },
);

export const TotpSetupResponse = Type.Object({
  secret: Type.String({ description: 'Base32; for apps that cannot scan. Shown during setup only' }),
  otpauth_url: Type.String({ description: 'otpauth://totp/Siteward:<e-mail>?… (SHA1, 6 digits, 30 s)' }),
  qr_svg: Type.String({ description: 'The otpauth URL as an SVG QR code' }),
});
export type TotpSetupJson = Static<typeof TotpSetupResponse>;

export const RecoveryCodesResponse = Type.Object({
  recovery_codes: Type.Array(Type.String(), { description: 'Ten single-use codes, shown this once' }),
});

export const TotpStatusResponse = Type.Object({
  enabled: Type.Boolean(),
  recovery_codes_remaining: Type.Integer({ description: 'Unused recovery codes (0 when 2FA is off)' }),
});
export type TotpStatusJson = Static<typeof TotpStatusResponse>;
