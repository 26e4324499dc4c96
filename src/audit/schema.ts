import { type Static, Type } from 'typebox';
import { Id } from '../http/params.js';
import { AUDIT_ACTIONS, AUDIT_LOG_DEFAULT_LIMIT, AUDIT_LOG_MAX_LIMIT, AUDIT_VIA_TYPES } from './contract.js';

export const AuditEventSchema = Type.Object(
  {
    id: Type.String(),
    at: Type.String({ format: 'date-time' }),
    action: Type.String({ description: `What happened: ${AUDIT_ACTIONS.join(', ')}` }),
    actor: Type.Union([Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }), Type.Null()], {
      description: 'Who acted, as they were named then; null for the command line and Siteward itself',
    }),
    via: Type.Object({
      type: Type.Enum(AUDIT_VIA_TYPES),
      access_token: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
    }),
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    target: Type.Object({ type: Type.String(), id: Type.String(), name: Type.String() }),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'Facts about the change (a role before and after, changed paths); never a secret' }),
  },
  { $id: 'AuditEvent' },
);
export type AuditEventJson = Static<typeof AuditEventSchema>;

export const AuditLogPage = Type.Object({
  events: Type.Array(AuditEventSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next (older) page; null on the last' }),
});
export type AuditLogPageJson = Static<typeof AuditLogPage>;

export const AuditLogQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_LOG_MAX_LIMIT, default: AUDIT_LOG_DEFAULT_LIMIT })),
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
    action: Type.Optional(Type.Enum(AUDIT_ACTIONS)),
    actor_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type AuditLogQueryJson = Static<typeof AuditLogQuery>;
