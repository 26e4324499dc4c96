import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { Mailer } from '../mail/mailer.js';
import type { AuthenticationMethod, CredentialKind, RequestOrigin, SecurityEventType } from './event-types.js';
import { securityNoticeMessage } from './notices.js';
import { insertSecurityEvent } from './queries.js';

// The vocabulary lives apart from the recorder, so the notices it mails can name it without importing the recorder.
export { SECURITY_EVENT_TYPES, type AuthenticationMethod, type CredentialKind, type RequestOrigin, type SecurityEventType } from './event-types.js';

export interface SecurityEvent {
  type: SecurityEventType;
  /** The account it concerns; null when no account is known (a failed sign-in for an unknown address). */
  user: { id: string; email: string } | null;
  origin: RequestOrigin;
  method?: AuthenticationMethod;
  credential?: CredentialKind;
  /** Why a sign-in failed or was refused, in a word: `invalid_credentials`, `rate_limited`, `otp_invalid`. */
  reason?: string;
  /** Facts that name no secret: a token's or passkey's name, how many sessions ended. */
  details?: Record<string, string | number | boolean>;
  /**
   * False when the owner is not to be mailed about an event MAILED lists: the account was made by
   * this very sign-in, so there is no one else to warn.
   */
  notify?: boolean;
}

/**
 * Events after which the account's owner is mailed: each is a change an intruder would make to keep
 * access or lock the owner out, so the owner must learn of it even when the intruder holds the
 * session. Removals are mailed too: an intruder removing the owner's passkey or a working token is
 * as much the owner's business as one adding theirs.
 */
const MAILED: ReadonlySet<SecurityEventType> = new Set<SecurityEventType>([
  'password.changed',
  'email.changed',
  'totp.enabled',
  'totp.disabled',
  'recovery_codes.regenerated',
  'passkey.added',
  'passkey.removed',
  'access_token.created',
  'access_token.revoked',
  // A new identity signs in as the account; one unlinked no longer does.
  'identity.linked',
  'identity.unlinked',
  'sessions.revoked',
  'account.taken_over',
  // The last word to the address: if it was not its owner, the administrator can still restore a backup.
  'account.deleted',
]);

const USER_AGENT_MAX_LENGTH = 300;

export function requestOrigin(request: FastifyRequest): RequestOrigin {
  return { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '').slice(0, USER_AGENT_MAX_LENGTH), requestId: request.id };
}

/**
 * The one place security events go: a structured log line for each (the operator's record, with no
 * secret in it), and a notice to the account's address for the changes in MAILED.
 */
export class SecurityEvents {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: FastifyBaseLogger,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores the event in the account's history (GET /api/v1/me/security-events), logs it, and mails
   * the owner for the changes in MAILED. Storing is awaited, so the history shows an event as soon
   * as the request that made it has answered; a failure to store is logged, not thrown: the change
   * it records has already happened.
   */
  async record(event: SecurityEvent): Promise<void> {
    await this.#store(event);
    const outcome = event.type === 'sign_in.failed' || event.type === 'sign_in.refused' ? 'failure' : 'success';
    this.log.info(
      {
        reqId: event.origin.requestId,
        security_event: event.type,
        outcome,
        user_id: event.user?.id ?? null,
        method: event.method,
        credential: event.credential,
        reason: event.reason,
        ip: event.origin.ip,
        user_agent: event.origin.userAgent,
        details: event.details,
      },
      `security: ${event.type}`,
    );
    if (event.user !== null && MAILED.has(event.type) && event.notify !== false) {
      this.mailer.send(securityNoticeMessage(event.user.email, event.type, { at: this.clock.now(), origin: event.origin, details: event.details ?? {} }));
    }
  }

  /**
   * A sign-in attempt that ended in `error`: refused by a limit before any credential was checked
   * (429, `sign_in.refused`), or failed (401, `sign_in.failed`, the reason being the error's code
   * unless one is given). Anything else (a malformed request, a bug) is not a sign-in outcome and
   * records nothing. The error's detail is never logged: only its code.
   */
  async recordSignInError(error: unknown, attempt: { user: { id: string; email: string } | null; origin: RequestOrigin; method: AuthenticationMethod; reason?: string }): Promise<void> {
    if (!(error instanceof AppError)) return;
    const { user, origin, method } = attempt;
    if (error.status === 429) await this.record({ type: 'sign_in.refused', user, origin, method, reason: 'rate_limited' });
    else if (error.status === 401) await this.record({ type: 'sign_in.failed', user, origin, method, reason: attempt.reason ?? error.code, ...(attempt.reason === undefined ? {} : { details: { code: error.code } }) });
  }

  async #store(event: SecurityEvent): Promise<void> {
    // No account, nothing to show anyone; a deleted account's rows went with it. Refusals come past
    // a limit, as many as anyone cares to send: they are logged, not stored.
    if (event.user === null || event.type === 'account.deleted' || event.type === 'sign_in.refused') return;
    const now = this.clock.now();
    try {
      await insertSecurityEvent(this.db, {
        id: newId(now),
        user_id: event.user.id,
        at: now.toISOString(),
        type: event.type,
        method: event.method ?? null,
        credential: event.credential ?? null,
        reason: event.reason ?? null,
        ip: event.origin.ip,
        user_agent: event.origin.userAgent,
        details: JSON.stringify(event.details ?? {}),
      });
    } catch (error) {
      this.log.error({ err: error, reqId: event.origin.requestId, security_event: event.type }, 'security event not stored');
    }
  }
}
