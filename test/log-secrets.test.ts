import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildTestAppWithMail, sessionCookie, STRONG_PASSWORD, type TestApp } from './helpers.js';
import { startOidcProvider, type TestOidcProvider } from './oidc-provider.js';
import { freePort } from './processes.js';
import { totp } from './rfc6238.js';
import { linkIn, type TestSmtpServer, verificationLinkIn, verificationMailTo } from './smtp.js';

// Every kind of secret the product issues, used over real HTTP the way people and programs use
// them, links and callbacks included; then the whole log is searched for each value. On SQLite
// and (with TEST_DATABASE_URL) PostgreSQL.

let idp: TestOidcProvider;
let t: TestApp;
let smtp: TestSmtpServer;
let origin: string;
let closed = false;
const CLIENT_SECRET = `secret-${randomBytes(12).toString('hex')}`;

before(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({
    clients: [{ client_id: 'siteward', client_secret: CLIENT_SECRET, redirect_uris: [`${origin}/auth/oidc/oidc/callback`] }],
    accounts: { sam: { email: 'sam@example.com', email_verified: true, name: 'Sam Example' } },
  });
  ({ t, smtp } = await buildTestAppWithMail({ env: { PUBLIC_URL: origin, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'siteward', OIDC_CLIENT_SECRET: CLIENT_SECRET } }));
  await t.app.listen({ host: '127.0.0.1', port });
});
after(async () => {
  if (!closed) await t.close();
  await idp.close();
});

async function call(method: string, path: string, options: { authorization?: string; cookie?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { origin };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${origin}${path}`, { method, headers, redirect: 'manual', ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
}

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  return JSON.parse(text) as T;
}

/** A mailed link's path and query, the way a mail client opens it. */
function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

test('no secret the product issues reaches the log: not in a query, a header, a body or a callback', async () => {
  const secrets = new Map<string, string>();
  const keep = (kind: string, value: string | null | undefined): string => {
    assert.ok(typeof value === 'string' && value.length >= 8, `${kind} was issued`);
    secrets.set(kind, value);
    return value;
  };

  // A JWT, from signing up; also sent where a careless client puts it, in the query.
  const email = 'logs@example.com';
  const signedUp = await json<{ token: string }>(await call('POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD } }), 201);
  const jwt = keep('JWT', signedUp.token);
  const bearer = `Bearer ${jwt}`;
  await json(await call('GET', '/api/v1/me', { authorization: bearer }), 200);
  await call('GET', `/api/v1/me?access_token=${jwt}`);
  keep('password', STRONG_PASSWORD);

  // The address verification link, opened (GET, a page) and confirmed.
  const verification = new URL(verificationLinkIn(await verificationMailTo(smtp, email)));
  const verificationToken = keep('verification token', verification.searchParams.get('token'));
  assert.equal((await call('GET', pathOf(verification.href))).status, 200);
  await json(await call('POST', '/verify-email', { body: { token: verificationToken } }), 200);

  // A personal access token (swd_), used as a header and in a query.
  const created = await json<{ access_token: { token: string } }>(await call('POST', '/api/v1/access-tokens', { authorization: bearer, body: { name: 'logs' } }), 201);
  const accessToken = keep('access token', created.access_token.token);
  assert.match(accessToken, /^swd_/);
  await json(await call('GET', '/api/v1/me', { authorization: `Token ${accessToken}` }), 200);
  await call('GET', `/api/v1/sites?token=${accessToken}`);

  // A magic link: its page, then the sign-in, which sets a session cookie.
  const before = smtp.messages.length;
  assert.equal((await call('POST', '/auth/magic-link', { body: { email } })).status, 202);
  const magic = new URL(linkIn(await smtp.waitForMessage(before, (message) => message.to.includes(email) && message.subject === 'Your Siteward sign-in link')));
  const magicToken = keep('magic link token', magic.searchParams.get('token'));
  assert.equal((await call('GET', pathOf(magic.href))).status, 200);
  const signedIn = await call('POST', '/magic', { body: { token: magicToken } });
  assert.ok(signedIn.status < 400, await signedIn.text());
  const session = sessionCookie(signedIn.headers.getSetCookie());
  const sessionValue = keep('session cookie', session?.value);
  await json(await call('GET', '/api/v1/me', { cookie: `${session?.name}=${sessionValue}` }), 200);

  // TOTP: its secret and recovery codes.
  const setup = await json<{ secret: string }>(await call('POST', '/api/v1/me/totp/setup', { authorization: bearer }), 200);
  const totpSecret = keep('TOTP secret', setup.secret);
  const enabled = await json<{ recovery_codes: string[] }>(await call('POST', '/api/v1/me/totp/enable', { authorization: bearer, body: { code: totp(totpSecret, t.clock.now()) } }), 200);
  enabled.recovery_codes.forEach((code, index) => keep(`recovery code ${index + 1}`, code));

  // A webhook's signing secret (whsec_).
  const workspaces = await json<{ workspaces: Array<{ id: string; personal: boolean }> }>(await call('GET', '/api/v1/workspaces', { authorization: bearer }), 200);
  const personal = workspaces.workspaces.find((workspace) => workspace.personal)?.id ?? '';
  const webhook = await json<{ webhook: { secret: string } }>(
    await call('POST', `/api/v1/workspaces/${personal}/webhooks`, { authorization: bearer, body: { url: 'https://hooks.example/siteward', events: ['site.updated'] } }),
    201,
  );
  assert.match(keep('webhook secret', webhook.webhook.secret), /^whsec_/);

  // A change request's preview token (swp_), used on the public path.
  const site = await json<{ site: { id: string; public_key: string } }>(await call('POST', '/api/v1/sites', { authorization: `Token ${accessToken}`, body: { name: 'Logged' } }), 201);
  const proposed = await json<{ change_request: { preview_token: string } }>(
    await call('POST', `/api/v1/sites/${site.site.id}/change-requests`, { authorization: `Token ${accessToken}`, body: { title: 'Greeting', description: 'Friendlier', changes: { widget: '{"greeting":"Hi"}' } } }),
    201,
  );
  const previewToken = keep('preview token', proposed.change_request.preview_token);
  assert.match(previewToken, /^swp_/);
  assert.equal((await fetch(`${origin}/public/v1/sites/${site.site.public_key}?preview=${previewToken}`)).status, 200);

  // An invitation, its link opened signed out, and handed on to signing in as `next`.
  const team = await json<{ workspace: { id: string } }>(await call('POST', '/api/v1/workspaces', { authorization: bearer, body: { name: 'Support' } }), 201);
  const invitedAt = smtp.messages.length;
  await json(await call('POST', `/api/v1/workspaces/${team.workspace.id}/invitations`, { authorization: bearer, body: { email: 'invitee@example.com', role: 'editor' } }), 201);
  const invitationMail = await smtp.waitForMessage(invitedAt, (message) => message.to.includes('invitee@example.com'));
  const invitation = new URL(/https?:\/\/\S+\/invitations\/accept\?token=[A-Za-z0-9_-]+/.exec(invitationMail.text)?.[0] ?? assert.fail('no invitation link'));
  keep('invitation token', invitation.searchParams.get('token'));
  assert.equal((await call('GET', pathOf(invitation.href))).status, 200);

  // Single sign-on: the state Siteward issues and the code the provider returns, on the callback;
  // the start carries the invitation's link as `next`.
  const start = await fetch(`${origin}/auth/oidc/oidc/start?next=${encodeURIComponent(pathOf(invitation.href))}`, { redirect: 'manual' });
  assert.equal(start.status, 302);
  const browser = start.headers.getSetCookie().find((line) => line.startsWith('siteward_oidc='))?.split(';')[0] ?? '';
  keep('OIDC browser binding', browser.split('=')[1]);
  const callback = await idp.authorize(String(start.headers.get('location')), 'sam');
  keep('OIDC state', callback.searchParams.get('state'));
  keep('OIDC code', callback.searchParams.get('code'));
  const finished = await fetch(`${origin}${pathOf(callback.href)}`, { redirect: 'manual', headers: { cookie: browser } });
  assert.equal(finished.status, 303, await finished.text());
  keep('OIDC session cookie', sessionCookie(finished.headers.getSetCookie())?.value);

  // Everything written, the summed public lines included.
  await t.close();
  closed = true;
  const log = t.logs();
  for (const path of ['/verify-email?token=', '/magic?token=', '/invitations/accept?token=', `?preview=`, '/auth/oidc/oidc/callback?', '/auth/oidc/oidc/start?next=']) {
    assert.ok(log.includes(path), `the log has the request line of ${path}`);
  }
  const leaked = [...secrets].filter(([, value]) => log.includes(value)).map(([kind]) => kind);
  assert.deepEqual(leaked, [], 'secrets found in the log');
});
