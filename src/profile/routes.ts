import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { currentUser } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { UserSchema } from '../users/schema.js';
import { userToJson } from '../users/presenter.js';
import { isEmailVerified } from '../users/service.js';
import { EMAIL_CHANGE_LIFETIME_MS, EMAIL_CHANGES_PER_ACCOUNT, type EmailChangeService } from './email-change.js';
import { ChangeEmailBody, EmailChangeAccepted, EmailState, UpdateProfileBody } from './schema.js';
import type { ProfileService } from './service.js';

const errors = { 401: ProblemSchema, 403: ProblemSchema };
const tags = ['account'];

export interface ProfileRouteDeps {
  guard: Guard;
  profile: ProfileService;
  emailChanges: EmailChangeService;
}

/**
 * The signed-in user's own profile: the name, and moving the account to another address (which
 * the new address completes through /verify-email, see email-verification/routes.ts).
 */
export function registerProfileRoutes(app: App, deps: ProfileRouteDeps): void {
  const { guard, profile, emailChanges } = deps;

  app.patch(
    '/api/v1/me',
    {
      // "account": an integration's access token has no business renaming its person.
      onRequest: guard.require('account'),
      schema: {
        summary: 'Change your profile: the display name. A field left out keeps its value',
        tags,
        body: UpdateProfileBody,
        response: { 200: Type.Object({ user: UserSchema }), 400: ProblemSchema, ...errors, 415: ProblemSchema },
      },
    },
    async (request) => {
      const name = request.body.name;
      if (name === undefined) return { user: userToJson(currentUser(request)) };
      const user = await profile.rename(currentUser(request).id, name);
      // This process's remembered principals carry the old name.
      guard.forgetUser(user.id);
      return { user: userToJson(user) };
    },
  );

  app.get(
    '/api/v1/me/email',
    {
      onRequest: guard.require('account'),
      schema: { summary: 'Your address and the change of address waiting for its link, if any', tags, response: { 200: EmailState, ...errors } },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const pending = await emailChanges.pending(user.id);
      return reply.header('cache-control', 'no-store').send({ email: user.email, email_verified: isEmailVerified(user), pending_email_change: pending });
    },
  );

  app.post(
    '/api/v1/me/email',
    {
      // "recent": with a stolen session alone, nobody moves the account to their own mailbox.
      onRequest: guard.require('recent'),
      schema: {
        summary: `Move your account to another address: mails the new address a link (${EMAIL_CHANGE_LIFETIME_MS / 3_600_000} hours, one use) whose page completes the change, and tells the old address then. Needs a recent authentication. A new request replaces older ones. At most ${EMAIL_CHANGES_PER_ACCOUNT.limit} an hour`,
        tags,
        body: ChangeEmailBody,
        response: { 202: EmailChangeAccepted, 400: ProblemSchema, ...errors, 409: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema },
      },
    },
    async (request, reply) => {
      const pending = await emailChanges.request(currentUser(request).id, request.body.email);
      return reply
        .header('cache-control', 'no-store')
        .code(202)
        .send({
          detail: `We have sent a link to ${pending.email}. Open it and confirm to finish the change; until then you keep signing in with your current address.`,
          pending_email_change: pending,
        });
    },
  );

  app.delete(
    '/api/v1/me/email',
    {
      onRequest: guard.require('account'),
      schema: { summary: 'Withdraw the change of address waiting for its link: the link stops working', tags, response: { 204: Type.Null(), ...errors } },
    },
    async (request, reply) => {
      await emailChanges.cancel(currentUser(request).id);
      return reply.code(204).send(null);
    },
  );
}
