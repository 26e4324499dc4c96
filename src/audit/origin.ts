import type { FastifyRequest } from 'fastify';
import { currentPrincipal } from '../auth/principal.js';
import type { AuditViaType } from './contract.js';

/** Who made a change, with which credential, and from where: what every audit event records. */
export interface ChangeOrigin {
  /** Null for the command line and Siteward itself. */
  actor: { id: string; email: string; name: string } | null;
  via: { type: AuditViaType; accessToken?: { id: string; name: string } };
  ip: string | null;
  userAgent: string | null;
}

/** A change made by a signed-in person (or their token), as every route's is. */
export interface PersonOrigin extends ChangeOrigin {
  actor: NonNullable<ChangeOrigin['actor']>;
}

const USER_AGENT_MAX_LENGTH = 300;

/** The origin of a change made through the API or the dashboard, by the request's principal. */
export function changeOriginOf(request: FastifyRequest): PersonOrigin {
  const principal = currentPrincipal(request);
  const { user } = principal;
  const via: ChangeOrigin['via'] =
    principal.accessToken === null ? { type: principal.method } : { type: 'access_token', accessToken: { ...principal.accessToken } };
  const userAgent = request.headers['user-agent'];
  return {
    actor: { id: user.id, email: user.email, name: user.name },
    via,
    ip: request.ip,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null,
  };
}

/** A change made on the server's command line by its operator. */
export const COMMAND_LINE: ChangeOrigin = { actor: null, via: { type: 'cli' }, ip: null, userAgent: null };

/** How a change's origin is stored beside it (the audit log, a site's versions): named as it was then. */
export interface OriginColumns {
  actor_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  via_type: AuditViaType;
  via_token_id: string | null;
  via_token_name: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** The origin columns read one by one, as a prepared insert binds each as a parameter. */
export function originValues(row: OriginColumns): OriginColumns {
  return {
    actor_id: row.actor_id,
    actor_email: row.actor_email,
    actor_name: row.actor_name,
    via_type: row.via_type,
    via_token_id: row.via_token_id,
    via_token_name: row.via_token_name,
    ip: row.ip,
    user_agent: row.user_agent,
  };
}

export function originColumns(origin: ChangeOrigin): OriginColumns {
  return {
    actor_id: origin.actor?.id ?? null,
    actor_email: origin.actor?.email ?? null,
    actor_name: origin.actor?.name ?? null,
    via_type: origin.via.type,
    via_token_id: origin.via.accessToken?.id ?? null,
    via_token_name: origin.via.accessToken?.name ?? null,
    ip: origin.ip,
    user_agent: origin.userAgent,
  };
}

/** Who and how, as the API shows a stored origin. */
export function originJson(row: OriginColumns): {
  actor: { id: string; email: string; name: string } | null;
  via: { type: AuditViaType; access_token?: { id: string; name: string } };
} {
  const via: { type: AuditViaType; access_token?: { id: string; name: string } } = { type: row.via_type };
  if (row.via_token_id !== null) via.access_token = { id: row.via_token_id, name: row.via_token_name ?? '' };
  return { actor: row.actor_id === null ? null : { id: row.actor_id, email: row.actor_email ?? '', name: row.actor_name ?? '' }, via };
}

/** A change Siteward makes on its own: a scheduled check's result, a webhook turned off after failing. */
export const SYSTEM: ChangeOrigin = { actor: null, via: { type: 'system' }, ip: null, userAgent: null };
