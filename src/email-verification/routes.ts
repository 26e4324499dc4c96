import formBody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { assertSameOrigin } from '../auth/csrf.js';
import type { Guard } from '../auth/guard.js';
import { unauthorized } from '../errors.js';
import { EMAIL_VERIFICATION_ERRORS } from './errors.js';
import { type SessionService, startWebSession } from '../auth/sessions.js';
import { sendPage } from '../pages/layout.js';
import { currentUser } from '../auth/principal.js';
import { CHECKED_BY_ROUTE } from '../http/params.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { claimPage } from '../pages/claim.js';
import {
  emailChangeConfirmPage,
  emailChangeDonePage,
  emailChangeTakenPage,
  verifyEmailConfirmPage,
  verifyEmailDonePage,
  verifyEmailInvalidPage,
} from '../pages/verify-email.js';
import type { EmailChangeService } from '../profile/email-change.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { UserSchema } from '../users/schema.js';
import { userToJson } from '../users/presenter.js';
import { emailTaken } from '../users/service.js';
import { type AccountClaimService, CLAIM_DECISIONS, CLAIM_EMAIL_CHANGE_CHOICES, type ClaimDecision, type ClaimEmailChangeChoice, type PendingClaimSignIns } from './claim.js';
import { type EmailVerificationService, verificationTokenInvalid } from './service.js';

export interface EmailVerificationDeps {
  guard: Guard;
  sessions: SessionService;
  emailVerification: EmailVerificationService;
  /** Address-change links share the confirmation page and its URL. */
  emailChanges: EmailChangeService;
  claims: AccountClaimService;
  /** Sign-ins through a provider that wait for the claim too (src/oidc/). */
  pendingClaimSignIns: PendingClaimSignIns;
  securityEvents: SecurityEvents;
  publicOrigin: string;
}

const tags = ['e-mail verification'];

const claimNotPending = () => unauthorized(EMAIL_VERIFICATION_ERRORS.CLAIM_NOT_PENDING, 'No sign-in is waiting for this choice (it may have been answered, or expired after 10 minutes); sign in again.');

function isForm(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(location, 303);
}

/**
 * Verifying an account's address (the link mailed at sign-up) and the choice that follows a magic
 * link to an unverified account that already has credentials (pre-account hijacking).
 */
export function registerEmailVerificationRoutes(app: App, deps: EmailVerificationDeps): void {
  const { guard, sessions, emailVerification, emailChanges, claims, securityEvents } = deps;

  app.post(
    '/auth/verify-email/resend',
    {
      onRequest: guard.require('account'),
      schema: {
        summary: 'Mail a new link that confirms your e-mail address (at most 3 an hour)',
        tags,
        response: { 202: Type.Object({ detail: Type.String() }), 401: ProblemSchema, 403: ProblemSchema, 409: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      await emailVerification.resend(user.id);
      return reply.header('cache-control', 'no-store').code(202).send({ detail: `We have sent a new confirmation link to ${user.email}. It expires in 24 hours.` });
    },
  );

  /** POST /verify-email with a link that is not a verification's: an address change, or nothing. */
  async function completeEmailChange(request: FastifyRequest, reply: FastifyReply, token: string): Promise<FastifyReply> {
    const completed = await emailChanges.complete(token);
    if (completed === undefined) {
      securityEvents.linkRefused(request, await emailVerification.whyRefused(token));
      if (isForm(request)) return sendPage(reply, 410, verifyEmailInvalidPage());
      throw verificationTokenInvalid();
    }
    if (completed.outcome === 'taken') {
      if (isForm(request)) return sendPage(reply, 409, emailChangeTakenPage(completed.newEmail));
      throw emailTaken();
    }
    // Principals remembered with the old address would show it, and name it in notices.
    guard.forgetUser(completed.user.id);
    // The old address is told: if the change was not its owner's, that is how they learn of it.
    await securityEvents.record({ type: 'email.changed', user: completed.previous, origin: requestOrigin(request) });
    if (isForm(request)) return sendPage(reply, 200, emailChangeDonePage(completed.user.email));
    return reply.header('cache-control', 'no-store').send({ user: userToJson(completed.user) });
  }

  // The pages post HTML forms; only they accept form bodies.
  void app.register(async (pages) => {
    await pages.register(formBody, { bodyLimit: 4096 });

    pages.get(
      '/verify-email',
      {
        schema: {
          summary: 'Confirmation page for an e-mail verification or address-change link. Never verifies or changes anything (HEAD neither): mail scanners open links',
          tags,
          querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200, [CHECKED_BY_ROUTE]: true })) }),
        },
      },
      async (request, reply) => {
        const token = (request.query as { token?: string }).token ?? '';
        const link = await emailVerification.inspect(token);
        if (link !== undefined) return sendPage(reply, 200, verifyEmailConfirmPage(token, link.email));
        const change = await emailChanges.inspect(token);
        if (change !== undefined) return sendPage(reply, 200, emailChangeConfirmPage(token, change.newEmail));
        securityEvents.linkRefused(request, await emailVerification.whyRefused(token));
        return sendPage(reply, 410, verifyEmailInvalidPage());
      },
    );

    pages.post(
      '/verify-email',
      {
        schema: {
          summary:
            'Use an e-mail verification or address-change link (form field or JSON token): 200 page (form) or {user} (JSON); 409 email_taken when another account took the new address meanwhile (nothing changes); 410 when unknown, used or expired',
          tags,
          body: Type.Object({ token: Type.String({ maxLength: 200 }) }),
        },
      },
      async (request, reply) => {
        // A forged cross-site confirmation could confirm a sign-up, or an address change, the
        // mailbox's owner never made.
        assertSameOrigin(request.headers, deps.publicOrigin);
        const token = (request.body as { token: string }).token;
        const verified = await emailVerification.verify(token);
        if (verified === undefined) return completeEmailChange(request, reply, token);
        guard.forgetUser(verified.user.id);
        if (verified.newlyVerified) await securityEvents.record({ type: 'email.verified', user: verified.user, origin: requestOrigin(request) });
        if (isForm(request)) return sendPage(reply, 200, verifyEmailDonePage(verified.user.email));
        return reply.header('cache-control', 'no-store').send({ user: userToJson(verified.user) });
      },
    );

    pages.get(
      '/auth/claim',
      { schema: { summary: 'The choice after a magic link to an unverified account that has credentials: keep or reset. 303 to the app when no choice waits', tags } },
      async (request, reply) => {
        const cookie = request.cookies[sessions.cookieName];
        const pending = cookie === undefined || cookie === '' ? undefined : await sessions.findPendingClaim(cookie);
        if (pending === undefined) return redirect(reply, '/');
        return sendPage(reply, 200, claimPage(pending.user.email, await emailChanges.pending(pending.user.id)));
      },
    );

    pages.post(
      '/auth/claim',
      {
        schema: {
          summary:
            'Answer the choice once (form fields or JSON decision, email_change): keep verifies the address and keeps every credential (with email_change "withdraw", a pending change of address is withdrawn); reset verifies it and ends every password, session, JWT, access token, passkey, TOTP and pending change of address set up before. 303 to the 2FA step, the app or the password form (form), or 200 {user, second_factor_required} (JSON)',
          tags,
          body: Type.Object({
            decision: Type.Enum([...CLAIM_DECISIONS]),
            email_change: Type.Optional(Type.Enum([...CLAIM_EMAIL_CHANGE_CHOICES], { description: 'With keep: "withdraw" voids a change of address waiting for its link; "keep" (the default) leaves it' })),
          }),
          response: { 200: Type.Object({ user: UserSchema, second_factor_required: Type.Boolean() }), 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema },
        },
      },
      async (request, reply) => {
        // Answered from another site, the choice could reset a victim's account or keep a squatter's.
        assertSameOrigin(request.headers, deps.publicOrigin);
        const { decision, email_change: emailChange } = request.body as { decision: ClaimDecision; email_change?: ClaimEmailChangeChoice };
        const cookie = request.cookies[sessions.cookieName] ?? '';
        // Read before the answer ends the pending session it waits with.
        const other = cookie === '' ? undefined : await deps.pendingClaimSignIns.find(cookie);
        const outcome = cookie === '' ? undefined : await claims.decide(cookie, decision, emailChange);
        if (outcome === undefined) {
          if (isForm(request)) return redirect(reply, '/');
          throw claimNotPending();
        }
        const origin = requestOrigin(request);
        const method = other?.method ?? 'magic_link';
        const secondFactorPending = outcome.secondFactorPending && (other?.secondFactor ?? true);
        guard.forgetUser(outcome.user.id);
        if (outcome.newlyVerified) await securityEvents.record({ type: 'email.verified', user: outcome.user, origin, method, details: { claim: decision } });
        if (decision === 'reset') await securityEvents.record({ type: 'account.taken_over', user: outcome.user, origin, method });
        await other?.finish(outcome.user, origin);
        await startWebSession(sessions, request, reply, outcome.user.id, { secondFactorPending });
        if (!secondFactorPending) {
          await securityEvents.record({ type: 'sign_in.succeeded', user: outcome.user, origin, method, credential: 'session', details: { claim: decision } });
        }
        if (isForm(request)) {
          // After a reset the account has no password: the dashboard's password form sets one,
          // unless a provider's sign-in waited, which is then the way in.
          if (secondFactorPending) return redirect(reply, '/auth/2fa');
          if (other !== undefined) return redirect(reply, other.next);
          return redirect(reply, decision === 'reset' ? '/settings/security#password' : '/');
        }
        return reply.header('cache-control', 'no-store').send({ user: userToJson(outcome.user), second_factor_required: secondFactorPending });
      },
    );
  });
}
