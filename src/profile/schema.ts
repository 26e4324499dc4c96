import { Type, type Static } from 'typebox';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from '../users/schema.js';

export const UpdateProfileBody = Type.Object(
  {
    // Longer than the rule allows, so an over-long name is told in the rule's words (checkName).
    name: Type.Optional(Type.String({ maxLength: NAME_MAX_LENGTH * 4, description: `Trimmed; at most ${NAME_MAX_LENGTH} characters; "" clears it` })),
  },
  { additionalProperties: false },
);

export const ChangeEmailBody = Type.Object({ email: Type.String({ maxLength: EMAIL_MAX_LENGTH * 2 }) }, { additionalProperties: false });

export const PendingEmailChangeSchema = Type.Object({
  email: Type.String({ description: 'The address the account moves to once its link is used' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const EmailChangeAccepted = Type.Object({ detail: Type.String(), pending_email_change: PendingEmailChangeSchema });
export const EmailState = Type.Object({
  email: Type.String(),
  email_verified: Type.Boolean(),
  pending_email_change: Type.Union([PendingEmailChangeSchema, Type.Null()], { description: 'The change waiting for its link; null when none' }),
});

export type PendingEmailChangeJson = Static<typeof PendingEmailChangeSchema>;
