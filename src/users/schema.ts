import { Type } from 'typebox';

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'User' },
);

export const EMAIL_MAX_LENGTH = 254;
export const NAME_MAX_LENGTH = 200;
