import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { currentPrincipal, currentUser } from '../auth/principal.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { requestOrigin, type SecurityEvents } from '../security/events.js';
import { CodeBody, RecoveryCodesResponse, TotpSetupResponse, TotpStatusResponse } from './schema.js';
import type { TotpService } from './service.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 409: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema };
const tags = ['two-factor authentication'];
const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }];

/**
 * Two-factor settings of the signed-in user. "account" requirement: a personal access token cannot
 * turn 2FA off or read recovery codes, and a session still waiting for its second factor is refused
 * by the guard like everywhere under /api/v1. Every change needs a recent authentication ("recent"):
 * a thief with a stolen session could otherwise put 2FA on with their own secret and lock the owner
 * out. Each change is recorded and mailed to the owner.
 */
export function registerTotpRoutes(app: App, deps: { guard: Guard; totp: TotpService; securityEvents: SecurityEvents }): void {
  const onRequest = deps.guard.require('account');
  const recent = deps.guard.require('recent');
  const { totp, securityEvents } = deps;

  app.get(
    '/api/v1/me/totp',
    { onRequest, schema: { summary: 'Whether two-factor authentication is on, and how many recovery codes are left', tags, security, response: { 200: TotpStatusResponse, ...errors } } },
    async (request) => {
      const status = await totp.status(currentUser(request).id);
      return { enabled: status.enabled, recovery_codes_remaining: status.recoveryCodesRemaining };
    },
  );

  app.post(
    '/api/v1/me/totp/setup',
    {
      onRequest: recent,
      schema: {
        summary: 'Start TOTP setup: a new secret to scan. 2FA is on only after POST /api/v1/me/totp/enable',
        tags,
        security,
        response: { 200: TotpSetupResponse, ...errors },
      },
    },
    async (request, reply) => {
      const setup = await totp.setup(currentUser(request));
      return reply.header('cache-control', 'no-store').send({ secret: setup.secret, otpauth_url: setup.otpauthUrl, qr_svg: setup.qrSvg });
    },
  );

  app.post(
    '/api/v1/me/totp/enable',
    {
      onRequest: recent,
      schema: {
        summary: 'Confirm setup with a code from the app: 2FA is on. Answers the recovery codes, shown this once',
        tags,
        security,
        body: CodeBody,
        response: { 200: RecoveryCodesResponse, ...errors },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const codes = await totp.enable(principal.user.id, request.body.code);
      // Whether the user has a second factor is kept with their principal (a workspace may require one).
      deps.guard.forgetUser(principal.user.id);
      await securityEvents.record({ type: 'totp.enabled', user: principal.user, origin: requestOrigin(request), credential: principal.method });
      return reply.header('cache-control', 'no-store').send({ recovery_codes: codes });
    },
  );

  app.delete(
    '/api/v1/me/totp',
    {
      onRequest: recent,
      schema: { summary: 'Turn two-factor authentication off; needs a TOTP or recovery code', tags, security, body: CodeBody, response: { 204: Type.Null(), ...errors } },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      await totp.disable(principal.user.id, request.body.code);
      deps.guard.forgetUser(principal.user.id);
      await securityEvents.record({ type: 'totp.disabled', user: principal.user, origin: requestOrigin(request), credential: principal.method });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/me/totp/recovery-codes',
    {
      onRequest: recent,
      schema: {
        summary: 'Replace the recovery codes (the old ones stop working); needs a TOTP or recovery code',
        tags,
        security,
        body: CodeBody,
        response: { 200: RecoveryCodesResponse, ...errors },
      },
    },
    async (request, reply) => {
      const principal = currentPrincipal(request);
      const codes = await totp.regenerateRecoveryCodes(principal.user.id, request.body.code);
      await securityEvents.record({ type: 'recovery_codes.regenerated', user: principal.user, origin: requestOrigin(request), credential: principal.method });
      return reply.header('cache-control', 'no-store').send({ recovery_codes: codes });
    },
  );
}
