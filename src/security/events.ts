import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { Mailer } from '../mail/mailer.js';
import { SECURITY_FAILURE_TYPES, type AuthenticationMethod, type CredentialKind, type LinkRefusal, type MailedLink, type RequestOrigin, type SecurityEventType } from './event-types.js';
import { isMailed, securityNoticeMessage } from './notices.js';
import { insertSecurityEvent } from './queries.js';

// The vocabulary lives apart from the recorder, so the notices it mails can name it without importing the recorder.
export { SECURITY_EVENT_TYPES, type AuthenticationMethod, type CredentialKind, type LinkRefusal, type MailedLink, type RequestOrigin, type SecurityEventType } from './event-types.js';

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
   * False when the owner is not to be mailed about an event that has a notice (notices.ts): the account was made by
   * this very sign-in, so there is no one else to warn.
   */
  notify?: boolean;
}

/** Events that are an attempt turned away: their log lines say `outcome: "failure"`. */
const FAILURES: ReadonlySet<SecurityEventType> = new Set<SecurityEventType>(SECURITY_FAILURE_TYPES);

/**
 * Events that are logged, not stored in the account's history. A deleted account's rows went with
 * it. Refusals past a limit come as many as anyone cares to send, and so do refused links (a mail
 * scanner opening a used link) and refused requests: stored, they would let anyone fill the table
 * and bury what the owner needs to see. The failures that count against a limit are stored.
 */
const LOGGED_ONLY: ReadonlySet<SecurityEventType> = new Set<SecurityEventType>(['account.deleted', 'sign_in.refused', 'reauthentication.refused', 'link.refused', 'request.refused']);

const USER_AGENT_MAX_LENGTH = 300;

export function requestOrigin(request: FastifyRequest): RequestOrigin {
  return { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '').slice(0, USER_AGENT_MAX_LENGTH), requestId: request.id };
}

/**
 * The one place security events go: a structured log line for each (the operator's record, with no
 * secret in it), and a notice to the account's address for the changes that have one (notices.ts).
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
   * the owner for the changes that have a notice (notices.ts). Storing is awaited, so the history shows an event as soon
   * as the request that made it has answered; a failure to store is logged, not thrown: the change
   * it records has already happened.
   */
  async record(event: SecurityEvent): Promise<void> {
    await this.#store(event);
    this.#log(event);
    if (event.user !== null && isMailed(event.type) && event.notify !== false) {
      this.mailer.send(securityNoticeMessage(event.user.email, event.type, { at: this.clock.now(), origin: event.origin, details: event.details ?? {} }));
    }
  }

  /** The event's structured line: the operator's record, with no secret in it. */
  #log(event: SecurityEvent): void {
    const outcome = FAILURES.has(event.type) ? 'failure' : 'success';
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
  }

  /**
   * A sign-in attempt that ended in `error`: refused by a limit before any credential was checked
   * (429, `sign_in.refused`), or failed (401, `sign_in.failed`, the reason being the error's code
   * unless one is given), or refused for a disabled account (403, `sign_in.refused`, reason
   * `account_disabled`). Anything else (a malformed request, a bug) is not a sign-in outcome and
   * records nothing. The error's detail is never logged: only its code.
   */
  async recordSignInError(error: unknown, attempt: { user: { id: string; email: string } | null; origin: RequestOrigin; method: AuthenticationMethod; reason?: string }): Promise<void> {
    if (!(error instanceof AppError)) return;
    const { user, origin, method } = attempt;
    if (error.status === 429) await this.record({ type: 'sign_in.refused', user, origin, method, reason: 'rate_limited' });
    else if (error.status === 403 && error.code === AUTH_ERRORS.ACCOUNT_DISABLED) await this.record({ type: 'sign_in.refused', user, origin, method, reason: 'account_disabled' });
    else if (error.status === 401) await this.record({ type: 'sign_in.failed', user, origin, method, reason: attempt.reason ?? error.code, ...(attempt.reason === undefined ? {} : { details: { code: error.code } }) });
  }

  /**
   * A re-authentication that ended in `error`: past the account's limit (429,
   * `reauthentication.refused`, logged only), or a wrong password, code or passkey (403,
   * `reauthentication.failed`, stored: the owner sees that someone holding their session tried).
   * Anything else (a malformed request) records nothing.
   */
  async recordReauthenticationError(error: unknown, attempt: { user: { id: string; email: string }; origin: RequestOrigin; method: AuthenticationMethod; credential: CredentialKind }): Promise<void> {
    if (!(error instanceof AppError)) return;
    if (error.status === 429) await this.record({ type: 'reauthentication.refused', ...attempt, reason: 'rate_limited' });
    else if (error.status === 403) await this.record({ type: 'reauthentication.failed', ...attempt, reason: error.code });
  }

  /**
   * An attempt turned away that is logged only (LOGGED_ONLY): a refused link or request. Written at
   * once, so a request that ends with the refusal has its line before its request line.
   */
  refused(event: SecurityEvent & { type: 'link.refused' | 'request.refused' }): void {
    this.#log(event);
  }

  /**
   * A mailed link that no longer works, as a `link.refused` line (ASVS 16.3.3): a used sign-in link
   * tried again is what a copy of someone's mail looks like in use. Names the account the link was
   * for (or the signed-in caller, for an invitation) and why; never the token.
   */
  linkRefused(request: FastifyRequest, refusal: { link: MailedLink; reason: LinkRefusal; user: { id: string; email: string } | null; workspaceId?: string }): void {
    this.refused({
      type: 'link.refused',
      user: refusal.user,
      origin: requestOrigin(request),
      reason: refusal.reason,
      details: { link: refusal.link, ...(refusal.workspaceId === undefined ? {} : { workspace_id: refusal.workspaceId }) },
    });
  }

  async #store(event: SecurityEvent): Promise<void> {
    // No account, nothing to show anyone; see LOGGED_ONLY for the rest.
    if (event.user === null || LOGGED_ONLY.has(event.type)) return;
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
      // The account was deleted between the change and its record (a request racing the deletion):
      // there is no history left to add to, and its line below still records the event.
      if (isForeignKeyViolation(error)) {
        this.log.info({ reqId: event.origin.requestId, security_event: event.type, user_id: event.user.id }, 'security event not stored: the account was deleted meanwhile');
        return;
      }
      this.log.error({ err: error, reqId: event.origin.requestId, security_event: event.type }, 'security event not stored');
    }
  }
}

/** A foreign-key failure of SQLite or PostgreSQL: the row referred to is gone. */
function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = String(error.code);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
