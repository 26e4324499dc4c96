import { Type, type Static } from 'typebox';

/** A web session as GET /api/v1/me/sessions lists it. */
export const SessionSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  user_agent: Type.String(),
  ip: Type.String(),
  current: Type.Boolean({ description: 'The session this request was made with' }),
  second_factor_pending: Type.Boolean({ description: 'A sign-in that passed the password or magic link but not yet the 2FA step' }),
});
export type SessionJson = Static<typeof SessionSchema>;
