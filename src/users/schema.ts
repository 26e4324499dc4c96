import { Type, type Static } from 'typebox';

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    email_verified: Type.Boolean({ description: 'Whether the holder of the address has confirmed it (a verification or sign-in link)' }),
    has_password: Type.Boolean({ description: 'False after an account reset: a password can then be set without the current one' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'User' },
);
export type UserJson = Static<typeof UserSchema>;

export { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from './contract.js';
