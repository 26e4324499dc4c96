import { Type, type Static } from 'typebox';
import { describedId, Id } from '../http/params.js';

// The admin API's shapes, apart from the routes so the dashboard can import their types.

export const ADMIN_USERS_PAGE_SIZE = 50;
export const ADMIN_QUERY_MAX_LENGTH = 200;

export const AdminUserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    email_verified: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    last_sign_in_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'The last successful sign-in within the security history kept (AUDIT_RETENTION_DAYS); null when none is',
    }),
    disabled: Type.Boolean({ description: 'Disabled by an administrator: the account signs in nowhere and none of its credentials is honoured' }),
    instance_admin: Type.Boolean(),
  },
  { $id: 'AdminUser' },
);
export type AdminUserJson = Static<typeof AdminUserSchema>;

export const AdminUserPage = Type.Object({
  users: Type.Array(AdminUserSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last' }),
});
export type AdminUserPageJson = Static<typeof AdminUserPage>;

export const AdminUserQuery = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: ADMIN_QUERY_MAX_LENGTH, description: 'Part of the e-mail address or name, any case' })),
    cursor: Type.Optional(describedId('next_cursor of the page before')),
  },
  { additionalProperties: false },
);

export const AdminUserParams = Type.Object({ id: Id });

export const AdminUserResponse = Type.Object({ user: AdminUserSchema });
