import formBody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { changeOriginOf } from '../audit/origin.js';
import { assertSameOrigin } from '../auth/csrf.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import type { Guard, Principal } from '../auth/guard.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { AppError } from '../errors.js';
import { CHECKED_BY_ROUTE } from '../http/params.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import {
  invitationAcceptedPage,
  invitationConfirmPage,
  invitationInvalidPage,
  invitationMismatchPage,
  invitationSignInPage,
} from '../pages/invitation.js';
import { sendPage } from '../pages/layout.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { normalizeEmail } from '../users/service.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import type { AcceptedInvitation, InvitationService } from './invitations.js';
import { InvitationAcceptBody, InvitationCreateBody, InvitationEnvelope, InvitationList, InvitationParams, WorkspaceEnvelope, WorkspaceParams } from './schema.js';

export interface InvitationRouteDeps {
  guard: Guard;
  invitations: InvitationService;
  securityEvents: SecurityEvents;
  publicOrigin: string;
  /** Whether the accept page may offer to create an account (SIGNUP). */
  signupOpen: boolean;
  /** The single sign-on providers the accept page offers to a signed-out invitee. */
  singleSignOnProviders: () => ReadonlyArray<{ id: string; name: string }>;
}

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }];
const tags = ['workspaces'];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 415: ProblemSchema };

/**
 * Invitations: admins invite an address with a role; the person holding that address accepts,
 * signed in. Managing them needs a signed-in person, as members do (an access token reaches sites
 * only). The link's page (GET) never accepts: mail scanners open every link in a message.
 */
export function registerInvitationRoutes(app: App, deps: InvitationRouteDeps): void {
  const { guard, invitations } = deps;
  const onRequest = guard.require('signed_in');
  // A route of one workspace: closed to a member who lacks the second factor it requires.
  const inWorkspace = guard.require('signed_in', { workspaceParam: 'id' });

  app.post(
    '/api/v1/workspaces/:id/invitations',
    {
      onRequest: inWorkspace,
      schema: {
        summary: 'Invite an e-mail address to the workspace with a role (admin; an owner only by an owner; inviting an admin or owner needs a recent sign-in). Mails it a link valid 7 days; needs a verified address',
        tags,
        security,
        params: WorkspaceParams,
        body: InvitationCreateBody,
        response: { 201: InvitationEnvelope, ...errors, 409: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const invitation = await invitations.create(changeOriginOf(request), request.params.id, request.body.email, request.body.role, deps.guard.isRecent(request));
      return reply.code(201).send({ invitation });
    },
  );

  app.get(
    '/api/v1/workspaces/:id/invitations',
    {
      onRequest: inWorkspace,
      schema: { summary: "List the workspace's pending invitations (admin)", tags, security, params: WorkspaceParams, response: { 200: InvitationList, ...errors } },
    },
    async (request) => ({ invitations: await invitations.list(currentUser(request).id, request.params.id) }),
  );

  app.delete(
    '/api/v1/workspaces/:id/invitations/:invitation_id',
    {
      onRequest: inWorkspace,
      schema: { summary: 'Withdraw a pending invitation (admin): its link stops working', tags, security, params: InvitationParams, response: { 204: Type.Null(), ...errors } },
    },
    async (request, reply) => {
      await invitations.revoke(changeOriginOf(request), request.params.id, request.params.invitation_id);
      return reply.code(204).send(null);
    },
  );

  /** After an acceptance: principals remembered with the unverified address are read afresh. */
  async function afterAccepting(request: FastifyRequest, accepted: AcceptedInvitation): Promise<void> {
    if (!accepted.newlyVerified) return;
    guard.forgetUser(accepted.user.id);
    await deps.securityEvents.record({ type: 'email.verified', user: accepted.user, origin: requestOrigin(request), details: { via: 'invitation' } });
  }

  app.post(
    '/api/v1/invitations/accept',
    {
      onRequest,
      schema: {
        summary:
          'Accept an invitation: join its workspace with its role, if the invited address is yours (a member keeps their role). Verifies an unverified address. 403 invitation_email_mismatch; 410 invitation_invalid when unknown, used, withdrawn or expired',
        tags,
        security,
        body: InvitationAcceptBody,
        response: { 200: WorkspaceEnvelope, ...errors, 409: ProblemSchema, 410: ProblemSchema },
      },
    },
    async (request) => {
      let accepted: AcceptedInvitation;
      try {
        accepted = await invitations.accept(changeOriginOf(request), request.body.token);
      } catch (error) {
        await logRefusal(request, request.body.token, currentUser(request), error);
        throw error;
      }
      await afterAccepting(request, accepted);
      return { workspace: accepted.workspace };
    },
  );

  /** A refused link (unknown, used, withdrawn, expired; `mismatch`: another address's) is a security event. */
  async function logRefusedLink(request: FastifyRequest, token: string, caller: { id: string; email: string } | null, mismatch = false): Promise<void> {
    deps.securityEvents.linkRefused(request, { link: 'invitation', user: caller, ...(await invitations.whyRefused(token, mismatch)) });
  }

  /** An acceptance refused for the link itself is a security event; other failures are not about the link. */
  async function logRefusal(request: FastifyRequest, token: string, caller: { id: string; email: string } | null, error: unknown): Promise<void> {
    if (!(error instanceof AppError)) return;
    if (error.code === WORKSPACE_ERRORS.INVITATION_INVALID) await logRefusedLink(request, token, caller);
    else if (error.code === WORKSPACE_ERRORS.INVITATION_EMAIL_MISMATCH) await logRefusedLink(request, token, caller, true);
  }

  /** The signed-in person behind a page request, or undefined (signed out, or mid-sign-in). */
  async function signedInOrNot(request: FastifyRequest): Promise<Principal | undefined> {
    try {
      await guard.require('signed_in')(request);
      return currentPrincipal(request);
    } catch (error) {
      if (error instanceof AppError && (error.status === 401 || error.code === AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED)) {
        // Treated as signed out: the page names nobody.
        request.principal = null;
        return undefined;
      }
      throw error;
    }
  }

  function redirect(reply: FastifyReply, location: string): FastifyReply {
    return reply.header('cache-control', 'no-store').redirect(location, 303);
  }

  // The page posts an HTML form; only it accepts form bodies.
  void app.register(async (pages) => {
    await pages.register(formBody, { bodyLimit: 4096 });

    pages.get(
      '/invitations/accept',
      {
        schema: {
          summary: 'The page of an invitation link: what it offers, and a form to accept (signed in with the invited address) or the way to sign in or up. Never accepts (HEAD neither)',
          tags,
          querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200, [CHECKED_BY_ROUTE]: true })) }),
        },
      },
      async (request, reply) => {
        const token = (request.query as { token?: string }).token ?? '';
        const invitation = await invitations.inspect(token);
        if (invitation === undefined) {
          await logRefusedLink(request, token, null);
          return sendPage(reply, 410, invitationInvalidPage());
        }
        const principal = await signedInOrNot(request);
        if (principal === undefined) return sendPage(reply, 200, invitationSignInPage(token, invitation, deps.signupOpen, deps.singleSignOnProviders()));
        if (normalizeEmail(principal.user.email) !== invitation.email) return sendPage(reply, 200, invitationMismatchPage(invitation, principal.user.email));
        return sendPage(reply, 200, invitationConfirmPage(token, invitation));
      },
    );

    pages.post(
      '/invitations/accept',
      {
        schema: {
          summary: 'Accept an invitation from its page (form field token): 200 page when joined; signed out, 303 back to the page. 403 page for another address, 410 page when it no longer works',
          tags,
          body: Type.Object({ token: Type.String({ maxLength: 200 }) }),
        },
      },
      async (request, reply) => {
        // A forged cross-site form would add the victim to a workspace of the forger's choosing.
        assertSameOrigin(request.headers, deps.publicOrigin);
        const token = (request.body as { token: string }).token;
        const principal = await signedInOrNot(request);
        if (principal === undefined) return redirect(reply, `/invitations/accept?token=${encodeURIComponent(token)}`);
        let accepted: AcceptedInvitation;
        try {
          accepted = await invitations.accept(changeOriginOf(request), token);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          await logRefusal(request, token, principal.user, error);
          if (error.code === WORKSPACE_ERRORS.INVITATION_INVALID) return sendPage(reply, 410, invitationInvalidPage());
          if (error.code === WORKSPACE_ERRORS.INVITATION_EMAIL_MISMATCH) {
            const invitation = await invitations.inspect(token);
            if (invitation !== undefined) return sendPage(reply, 403, invitationMismatchPage(invitation, principal.user.email));
          }
          throw error;
        }
        await afterAccepting(request, accepted);
        return sendPage(reply, 200, invitationAcceptedPage(accepted.workspace, !accepted.joined));
      },
    );
  });
}
