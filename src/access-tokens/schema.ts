import { Type, type Static } from 'typebox';
import { ACCESS_TOKEN_SCOPES } from '../auth/scopes.js';
import { Id } from '../http/params.js';

const Scope = Type.Enum(ACCESS_TOKEN_SCOPES);

export const AccessTokenSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Scope),
  last_four: Type.String({ description: 'The last four characters of the token, to tell tokens apart' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  workspace_id: Type.Union([Type.String(), Type.Null()], { description: 'The one workspace the token reaches; null for every workspace of yours' }),
});
export type AccessTokenJson = Static<typeof AccessTokenSchema>;

export const CreateAccessTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, uniqueItems: true })),
    workspace_id: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description: 'Limit the token to this workspace (you must be a member); null or left out: every workspace you are in',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreatedAccessToken = Type.Object({
  access_token: Type.Object({
    ...AccessTokenSchema.properties,
    token: Type.String({ description: 'The secret, shown this once' }),
  }),
});

export type CreatedAccessTokenJson = Static<typeof CreatedAccessToken>['access_token'];

export const AccessTokenList = Type.Object({ access_tokens: Type.Array(AccessTokenSchema) });

export const AccessTokenParams = Type.Object({ id: Id });
