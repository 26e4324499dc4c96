import { Type, type Static } from 'typebox';
import { SECURITY_EVENT_TYPES } from './event-types.js';

// The stored security history's answer, apart from the routes so the dashboard can import its types.

export const SECURITY_EVENTS_DEFAULT_LIMIT = 20;
export const SECURITY_EVENTS_MAX_LIMIT = 100;

export const SecurityEventSchema = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  type: Type.Enum(SECURITY_EVENT_TYPES),
  method: Type.Union([Type.String(), Type.Null()], { description: 'How the person proved who they are: password, magic_link, passkey, totp, recovery_code, oidc (at a single sign-on provider; details.provider names it)' }),
  credential: Type.Union([Type.String(), Type.Null()], { description: 'The credential the request came with: session, jwt, access_token' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why a sign-in failed or was refused, in a word' }),
  ip: Type.String(),
  user_agent: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'Facts that name no secret, such as a token’s or passkey’s name' }),
});
export type SecurityEventJson = Static<typeof SecurityEventSchema>;
export const SecurityEventPage = Type.Object({
  events: Type.Array(SecurityEventSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next (older) page; null on the last' }),
});
export type SecurityEventPageJson = Static<typeof SecurityEventPage>;
export const SecurityEventQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SECURITY_EVENTS_MAX_LIMIT, default: SECURITY_EVENTS_DEFAULT_LIMIT })),
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
