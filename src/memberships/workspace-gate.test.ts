import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { buildTestAppWithMail, enableTotp, type SignedUpUser, signUpConfirmed, type TestApp } from '../../test/helpers.js';
import { assertProblem, type HttpAnswer, type HttpClient, listenOnLoopback } from '../../test/http.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { WorkspaceService } from '../workspaces/service.js';
import { WORKSPACE_ERRORS } from './errors.js';

/**
 * Every workspace-scoped route passes one gate (DESIGN "Security rules"): this walks the app's own
 * OpenAPI document, so a route added later is either gated or named below with the reason it takes
 * no workspace. Each operation is called, over real HTTP, by an owner of a workspace that requires
 * two-factor authentication who has no second factor, with real ids, and must answer 403
 * two_factor_required. An owner, so that no role check can stand in for the gate; a bad or empty
 * body, since the gate runs before the body is validated.
 */

/** Operations that take no workspace of the caller's, each with why. Everything else is walked. */
const TAKES_NO_WORKSPACE: ReadonlyArray<{ reason: string; operations: readonly string[] }> = [
  {
    reason: 'signing in, signing up and out, and the pages of those steps: no workspace is reached before them',
    operations: [
      'POST /auth/login',
      'GET /auth/config',
      'POST /auth/signup',
      'POST /auth/session',
      'POST /auth/logout',
      'POST /auth/magic-link',
      'POST /auth/verify-email/resend',
      'GET /auth/oidc/{provider}/start',
      'GET /auth/oidc/{provider}/callback',
      'POST /auth/passkey/options',
      'POST /auth/passkey/verify',
      'GET /magic',
      'POST /magic',
      'POST /magic/resend',
      'GET /auth/2fa',
      'POST /auth/2fa',
      'POST /auth/2fa/cancel',
      'GET /verify-email',
      'POST /verify-email',
      'GET /auth/claim',
      'POST /auth/claim',
    ],
  },
  {
    reason: "the caller's own account, sign-in methods and security events: setting up the second factor a workspace requires happens here",
    operations: [
      'GET /api/v1/me/identities',
      'POST /api/v1/me/identities/{provider}/link',
      'DELETE /api/v1/me/identities/{provider}',
      'PATCH /api/v1/me',
      'GET /api/v1/me',
      'DELETE /api/v1/me',
      'GET /api/v1/me/email',
      'POST /api/v1/me/email',
      'DELETE /api/v1/me/email',
      'POST /api/v1/me/reauthenticate/passkey-options',
      'POST /api/v1/me/reauthenticate',
      'GET /api/v1/me/sessions',
      'DELETE /api/v1/me/sessions',
      'DELETE /api/v1/me/sessions/{id}',
      'POST /api/v1/me/password',
      'GET /api/v1/me/totp',
      'DELETE /api/v1/me/totp',
      'POST /api/v1/me/totp/setup',
      'POST /api/v1/me/totp/enable',
      'POST /api/v1/me/totp/recovery-codes',
      'GET /api/v1/me/security-events',
      'POST /api/v1/me/passkeys/options',
      'POST /api/v1/me/passkeys',
      'GET /api/v1/me/passkeys',
      'PATCH /api/v1/me/passkeys/{id}',
      'DELETE /api/v1/me/passkeys/{id}',
    ],
  },
  {
    reason: "the caller's access tokens are credentials of their own; a token limited to a workspace is gated like any credential when it is used",
    operations: ['GET /api/v1/access-tokens', 'POST /api/v1/access-tokens', 'DELETE /api/v1/access-tokens/{id}'],
  },
  {
    reason: 'lists across all of the caller\'s workspaces leave out those whose requirement they do not meet (proven in two-factor-requirement.test.ts); with ?workspace_id= they are walked',
    operations: ['GET /api/v1/workspaces'],
  },
  {
    reason: 'creating a workspace makes a new one; accepting an invitation joins one, whose requirement then applies to everything in it',
    operations: ['POST /api/v1/workspaces', 'POST /api/v1/invitations/accept', 'GET /invitations/accept', 'POST /invitations/accept'],
  },
  {
    reason: 'the schemas of the settings groups are the same for every site and workspace',
    operations: ['GET /api/v1/settings-schemas', 'GET /api/v1/settings-schemas/{group}'],
  },
  {
    reason: "the public path is for visitors' browsers, by a site's public key, with no credential",
    operations: ['GET /public/v1/sites/{public_key}', 'GET /public/v1/sites/{public_key}/events'],
  },
  {
    reason: "the instance's operators manage users, not workspaces",
    operations: ['GET /api/v1/admin/users', 'POST /api/v1/admin/users/{id}/disable', 'POST /api/v1/admin/users/{id}/enable', 'DELETE /api/v1/admin/users/{id}/sessions'],
  },
];

/** Operations whose workspace is named in the body, not the path or query: called with one that names it. */
const WORKSPACE_IN_BODY: ReadonlySet<string> = new Set(['POST /api/v1/sites']);

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string }>;
}
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

let smtp: TestSmtpServer;
let t: TestApp;
let http: HttpClient;
beforeEach(async () => {
  ({ t, smtp } = await buildTestAppWithMail());
  http = await listenOnLoopback(t);
});
afterEach(() => t.close());

function call(method: string, url: string, authorization: string, json?: unknown): Promise<HttpAnswer> {
  return http.request(method, url, { headers: { authorization }, ...(json === undefined ? {} : { json }) });
}

async function created<T>(answer: Promise<HttpAnswer>, status = 201): Promise<T> {
  const settled = await answer;
  assert.equal(settled.status, status, settled.text);
  return settled.json<T>();
}

/** Whether an operation names a site, workspace or change request: such an operation may never be exempt. */
function namesWorkspaceScopedThing(path: string, operation: OpenApiOperation): boolean {
  if ((operation.parameters ?? []).some((parameter) => parameter.in === 'query' && parameter.name === 'workspace_id')) return true;
  return /^\/api\/v1\/(sites|workspaces|trash|change-requests)\/\{/.test(path);
}

test('every operation that takes a workspace refuses a member who lacks the second factor it requires: 403 two_factor_required', async () => {
  const owner = await signUpConfirmed(t.app, smtp);
  const member = await signUpConfirmed(t.app, smtp);
  await enableTotp(t, owner);
  const workspace = (await created<{ workspace: { id: string } }>(call('POST', '/api/v1/workspaces', owner.bearer, { name: 'Strict' }))).workspace.id;
  const service = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  // An owner: no role check can refuse them, so only the gate can.
  assert.equal(await service.addMember(workspace, member.id, 'owner'), true);

  const site = (await created<{ site: { id: string } }>(call('POST', '/api/v1/sites', owner.bearer, { name: 'Help', workspace_id: workspace }))).site.id;
  const trashed = (await created<{ site: { id: string } }>(call('POST', '/api/v1/sites', owner.bearer, { name: 'Old', workspace_id: workspace }))).site.id;
  assert.equal((await call('DELETE', `/api/v1/sites/${trashed}`, owner.bearer)).status, 204);
  const changeRequest = (
    await created<{ change_request: { id: string } }>(call('POST', `/api/v1/sites/${site}/change-requests`, owner.bearer, { title: 'Greeting', changes: { ai_settings: 'Be brief' } }))
  ).change_request.id;
  const invitation = (await created<{ invitation: { id: string } }>(call('POST', `/api/v1/workspaces/${workspace}/invitations`, owner.bearer, { email: 'invited@example.com', role: 'viewer' }))).invitation.id;
  const webhook = (
    await created<{ webhook: { id: string } }>(call('POST', `/api/v1/workspaces/${workspace}/webhooks`, owner.bearer, { url: 'https://hooks.example.com/siteward', events: ['site.updated'] }))
  ).webhook.id;
  assert.equal((await call('PATCH', `/api/v1/workspaces/${workspace}`, owner.bearer, { require_two_factor: true })).status, 200);

  const values: Record<string, string> = {
    site_id: trashed,
    cr_id: changeRequest,
    version: '1',
    user_id: owner.id,
    invitation_id: invitation,
    webhook_id: webhook,
    // No delivery has been made: the gate answers before the delivery is looked for.
    delivery_id: '00000000-0000-7000-8000-000000000000',
  };
  const exempt = new Map(TAKES_NO_WORKSPACE.flatMap(({ reason, operations }) => operations.map((operation) => [operation, reason] as const)));

  const document = await created<OpenApiDocument>(http.request('GET', '/api/v1/openapi.json'), 200);
  const walked: string[] = [];
  const notGated: string[] = [];
  const wronglyExempt: string[] = [];
  const listed = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.has(method)) continue;
      const name = `${method.toUpperCase()} ${path}`;
      listed.add(name);
      if (exempt.has(name)) {
        if (namesWorkspaceScopedThing(path, operation)) wronglyExempt.push(name);
        continue;
      }
      const url = path.replace(/\{(\w+)\}/g, (_, param: string) => {
        if (param === 'id') return path.startsWith('/api/v1/workspaces/') ? workspace : site;
        const value = values[param];
        assert.ok(value !== undefined, `${name}: no id for {${param}}; add one to the walk`);
        return value;
      });
      const takesWorkspaceQuery = (operation.parameters ?? []).some((parameter) => parameter.in === 'query' && parameter.name === 'workspace_id');
      const target = takesWorkspaceQuery ? `${url}?workspace_id=${workspace}` : url;
      const body = method === 'get' ? undefined : WORKSPACE_IN_BODY.has(name) ? { name: 'Gated', workspace_id: workspace } : {};
      const answer = await call(method.toUpperCase(), target, member.bearer, body);
      walked.push(name);
      if (answer.status !== 403 || answer.json<{ code?: string }>().code !== WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED) notGated.push(`${name} → ${answer.status} ${answer.text.slice(0, 200)}`);
    }
  }

  assert.deepEqual(notGated, [], 'operations that answered a member who lacks the required second factor');
  assert.deepEqual(wronglyExempt, [], 'exempt operations that name a site, workspace or change request');
  assert.deepEqual([...exempt.keys()].filter((name) => !listed.has(name)), [], 'exemptions of operations the document no longer has');
  // The walk reached the routes it is about, not only a few.
  for (const name of ['POST /api/v1/sites/{id}/public-key/rotate', 'GET /api/v1/sites', 'GET /api/v1/workspaces/{id}/audit-log', 'POST /api/v1/trash/{site_id}/restore']) assert.ok(walked.includes(name), name);

  // The gate refused: nothing changed. The site is still where it was, with its key, and the owner still owns it.
  const still = await call('GET', `/api/v1/sites/${site}`, owner.bearer);
  assert.equal(still.status, 200, still.text);
  const members = await call('GET', `/api/v1/workspaces/${workspace}/members`, owner.bearer);
  assert.equal(members.json<{ members: unknown[] }>().members.length, 2);
});

test('leaving a workspace stays open to a member who lacks the second factor it requires', async () => {
  const owner: SignedUpUser = await signUpConfirmed(t.app, smtp);
  const member = await signUpConfirmed(t.app, smtp);
  await enableTotp(t, owner);
  const workspace = (await created<{ workspace: { id: string } }>(call('POST', '/api/v1/workspaces', owner.bearer, { name: 'Strict' }))).workspace.id;
  const service = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  assert.equal(await service.addMember(workspace, member.id, 'editor'), true);
  assert.equal((await call('PATCH', `/api/v1/workspaces/${workspace}`, owner.bearer, { require_two_factor: true })).status, 200);

  assertProblem(await call('GET', `/api/v1/workspaces/${workspace}/members`, member.bearer), 403, WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED);
  assert.equal((await call('DELETE', `/api/v1/workspaces/${workspace}/members/${member.id}`, member.bearer)).status, 204);
  assertProblem(await call('GET', `/api/v1/workspaces/${workspace}`, member.bearer), 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
});
