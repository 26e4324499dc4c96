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
