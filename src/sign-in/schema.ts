import { Type } from 'typebox';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, UserSchema } from '../users/schema.js';
import { PASSWORD_MAX_LENGTH } from '../passwords/passwords.js';
import { ProblemSchema } from '../http/schema.js';

export const LoginBody = Type.Object(
  {
    email: Type.String({ maxLength: EMAIL_MAX_LENGTH }),
    // Longer than the policy allows, so an over-long password is "wrong", not a validation hint.
    password: Type.String({ maxLength: PASSWORD_MAX_LENGTH * 4 }),
    otp: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const SignupBody = Type.Object(
  {
    email: Type.String({ maxLength: EMAIL_MAX_LENGTH }),
    password: Type.String({ maxLength: PASSWORD_MAX_LENGTH * 4 }),
    name: Type.Optional(Type.String({ maxLength: NAME_MAX_LENGTH * 4 })),
  },
  { additionalProperties: false },
);

export const TokenResponse = Type.Object({
  token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_at: Type.String({ format: 'date-time' }),
  user: UserSchema,
});

export const authErrorResponses = {
  400: ProblemSchema,
  401: ProblemSchema,
  415: ProblemSchema,
  429: ProblemSchema,
};
