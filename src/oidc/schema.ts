import { Type, type Static } from 'typebox';

// The identities' answers, apart from the routes so the dashboard can import their types.

export const IdentitySchema = Type.Object({
  provider: Type.String({ description: 'The provider’s id, as GET /auth/config lists it' }),
  subject: Type.String({ description: 'Who the person is at the provider (its "sub")' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'The address the provider gave at the last sign-in; null when it gave none' }),
  linked_at: Type.String({ format: 'date-time' }),
});
export type IdentityJson = Static<typeof IdentitySchema>;

export const IdentityList = Type.Object({ identities: Type.Array(IdentitySchema) });
export type IdentityListJson = Static<typeof IdentityList>;

export const IdentityParams = Type.Object({ provider: Type.String({ maxLength: 64 }) });

export const ProviderSummarySchema = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'What the sign-in button says' }),
});
export type ProviderSummaryJson = Static<typeof ProviderSummarySchema>;

/** GET /auth/config: what the sign-in and sign-up screens may offer. */
export const AuthConfigSchema = Type.Object({
  signup: Type.Enum(['open', 'closed']),
  oidc: Type.Array(ProviderSummarySchema, { description: 'The single sign-on providers, one button each: GET /auth/oidc/{id}/start' }),
});
export type AuthConfigJson = Static<typeof AuthConfigSchema>;
