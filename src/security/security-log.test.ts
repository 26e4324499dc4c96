import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createAccessToken, createSite, enableTotp, mailedMagicLink, type SignedUpUser, signUp, signUpConfirmed, type TestApp } from '../../test/helpers.js';
import { type HttpClient, listenOnLoopback, TEST_ORIGIN } from '../../test/http.js';
import { totp } from '../../test/rfc6238.js';
import { until } from '../../test/wait.js';
import { startSmtpServer, type TestSmtpServer, verificationLinkIn, verificationMailTo } from '../../test/smtp.js';
import { RATE_LIMITS } from '../rate-limit/rate-limit.js';
import { WorkspaceService } from '../workspaces/service.js';

/**
 * What the operator's log must let them reconstruct (ASVS 16.2.1, 16.3.1, 16.3.3): who asked from
 * where on every request line, and as `security_event` lines the attempts that failed a check a
 * thief would have to pass: a re-authentication, an e-mail link, the guard's cross-site and
 * access-token rules. Over real HTTP, so the client address is the socket's (or the proxy's word).
 */

type Line = Record<string, unknown>;

let smtp: TestSmtpServer;
let t: TestApp;
let http: HttpClient;

async function start(env: Record<string, string> = {}): Promise<void> {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url, ...env } });
  http = await listenOnLoopback(t);
}
afterEach(async () => {
  await t.close();
  await smtp.close();
});

function lines(): Line[] {
  return t
    .logs()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

/** The security events of the type logged after the first `from` lines. */
function eventsSince(from: number, type: string): Line[] {
  return lines()
    .slice(from)
    .filter((line) => line.security_event === type);
}

function onlyEventSince(from: number, type: string): Line {
  const found = eventsSince(from, type);
  assert.equal(found.length, 1, `one ${type} line, got ${JSON.stringify(found)}`);
  return found[0] ?? assert.fail();
}

describe('request lines', () => {
  test('carry the client address: the socket\'s, or behind TRUST_PROXY the one the proxy names', async () => {
    await start({ TRUST_PROXY: '127.0.0.1' });
    const user = await signUp(t.app);
    await http.request('GET', '/api/v1/me?line=direct', { headers: { authorization: user.bearer } });
    await http.request('GET', '/api/v1/me?line=proxied', { headers: { authorization: user.bearer, 'x-forwarded-for': '198.51.100.23' } });
    await http.request('GET', '/api/v1/nothing-here?line=failed', { headers: { 'x-forwarded-for': '198.51.100.24' } });
    const byUrl = (url: string) => lines().find((line) => line.msg === 'request' && line.url === url) ?? assert.fail(`no line for ${url}`);
    assert.equal(byUrl('/api/v1/me?line=direct').ip, '127.0.0.1');
    assert.equal(byUrl('/api/v1/me?line=proxied').ip, '198.51.100.23');
    assert.equal(byUrl('/api/v1/me?line=proxied').user_id, user.id);
    assert.equal(byUrl('/api/v1/nothing-here?line=failed').ip, '198.51.100.24');
  });

  test('a public configuration names the same address whether Fastify answered it or the fast path before it', async () => {
    await start({ TRUST_PROXY: '127.0.0.1' });
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer);
    const url = `/public/v1/sites/${String(site.public_key)}`;
    const get = async () => assert.equal((await http.request('GET', url, { headers: { 'x-forwarded-for': '198.51.100.25' } })).status, 200);
    // The first request reads the database through Fastify's route and gets its own request line.
    // Once the cache holds the document (on PostgreSQL, after the creation's notification has come
    // back and emptied it once more), the fast path answers from memory and counts the answer in
    // its summed line, written each second.
    await get();
    const summedLine = () => lines().find((line) => line.msg === 'public configurations served' && line.url === url);
    const summed = await until(async () => summedLine() ?? (await get(), summedLine()), 'the summed line of the fast path', { intervalMs: 100 });
    const routed = lines().filter((line) => line.msg === 'request' && line.url === url);
    assert.ok(routed.length >= 1, 'the first answer came through Fastify');
    assert.deepEqual([...new Set(routed.map((line) => line.ip))], ['198.51.100.25']);
    assert.equal(summed.ip, '198.51.100.25');
    // Only 200s, each from this address: however many the fast path answered before the line was written.
    assert.deepEqual(Object.keys(summed.answers ?? {}), ['GET 200']);
  });

  test('without TRUST_PROXY a forwarded address is not believed', async () => {
    await start();
    await http.request('GET', '/healthz?line=spoofed', { headers: { 'x-forwarded-for': '198.51.100.23' } });
    const line = lines().find((each) => each.msg === 'request' && each.url === '/healthz?line=spoofed');
    assert.equal(line?.ip, '127.0.0.1');
  });
});

describe('failed re-authentication', () => {
  beforeEach(() => start());

  function reauthenticate(user: SignedUpUser, body: Record<string, unknown>) {
    return http.request('POST', '/api/v1/me/reauthenticate', { headers: { authorization: user.bearer }, json: body });
  }

  test('a wrong password, a missing and a wrong code are security_event lines naming the user and the reason, and are in the account\'s history', async () => {
    const user = await signUp(t.app);
    let from = lines().length;
    assert.equal((await reauthenticate(user, { password: 'not-the-password-at-all' })).status, 403);
    const wrongPassword = onlyEventSince(from, 'reauthentication.failed');
    assert.deepEqual([wrongPassword.user_id, wrongPassword.reason, wrongPassword.outcome, wrongPassword.ip, wrongPassword.credential], [user.id, 'password_invalid', 'failure', '127.0.0.1', 'jwt']);
    assert.equal(typeof wrongPassword.reqId, 'string');

    const { secret } = await enableTotp(t, user);
    from = lines().length;
    assert.equal((await reauthenticate(user, { password: 'violet-harbour-cinnamon-42' })).status, 403);
    assert.equal(onlyEventSince(from, 'reauthentication.failed').reason, 'otp_required');
    from = lines().length;
    const wrongCode = totp(secret, t.clock.now()) === '000000' ? '111111' : '000000';
    assert.equal((await reauthenticate(user, { password: 'violet-harbour-cinnamon-42', otp: wrongCode })).status, 403);
    assert.equal(onlyEventSince(from, 'reauthentication.failed').reason, 'otp_invalid');
    assert.ok(!t.logs().includes('not-the-password-at-all'), 'no password in the log');

    const history = await http.request('GET', '/api/v1/me/security-events', { headers: { authorization: user.bearer } });
    const failures = history.json<{ events: Array<{ type: string; reason: string | null }> }>().events.filter((event) => event.type === 'reauthentication.failed');
    assert.deepEqual(failures.map((event) => event.reason), ['otp_invalid', 'otp_required', 'password_invalid']);
  });

  test('past the limit, each refusal is a reauthentication.refused line (rate_limited); the history keeps the failures that counted', async () => {
    const user = await signUp(t.app);
    const from = lines().length;
    const answers = await Promise.all(Array.from({ length: RATE_LIMITS.loginFailuresPerAccount.limit + 3 }, (_, i) => reauthenticate(user, { password: `wrong-password-number-${i}` })));
    assert.equal(answers.filter((answer) => answer.status === 429).length, 3);
    assert.equal(eventsSince(from, 'reauthentication.failed').length, RATE_LIMITS.loginFailuresPerAccount.limit);
    const refused = eventsSince(from, 'reauthentication.refused');
    assert.equal(refused.length, 3);
    assert.ok(refused.every((line) => line.user_id === user.id && line.reason === 'rate_limited'));
    const history = await http.request('GET', '/api/v1/me/security-events?limit=100', { headers: { authorization: user.bearer } });
    const types = history.json<{ events: Array<{ type: string }> }>().events.map((event) => event.type);
    assert.equal(types.filter((type) => type === 'reauthentication.failed').length, RATE_LIMITS.loginFailuresPerAccount.limit);
    assert.ok(!types.includes('reauthentication.refused'), 'refusals past a limit are logged, not stored');
  });
});

describe('refused e-mail links', () => {
  beforeEach(() => start());

  test('a used, an expired and an unknown sign-in link: link.refused with the account when known, and why', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const used = await mailedMagicLink(t.app, smtp, user.email);
    const usedToken = used.searchParams.get('token') ?? '';
    assert.equal((await http.request('POST', '/magic', { headers: { origin: TEST_ORIGIN }, form: { token: usedToken } })).status, 303);

    let from = lines().length;
    assert.equal((await http.request('POST', '/magic', { headers: { origin: TEST_ORIGIN }, form: { token: usedToken } })).status, 410);
    assert.equal((await http.request('GET', `/magic?token=${usedToken}`)).status, 410);
    const replays = eventsSince(from, 'link.refused');
    assert.equal(replays.length, 2);
    for (const line of replays) assert.deepEqual([line.user_id, line.reason, (line.details as Line).link, line.outcome], [user.id, 'used', 'magic_link', 'failure']);

    const expiring = (await mailedMagicLink(t.app, smtp, user.email)).searchParams.get('token') ?? '';
    t.clock.advance(16 * 60 * 1000);
    from = lines().length;
    assert.equal((await http.request('POST', '/magic', { headers: { origin: TEST_ORIGIN }, form: { token: expiring } })).status, 410);
    assert.deepEqual([onlyEventSince(from, 'link.refused').reason, onlyEventSince(from, 'link.refused').user_id], ['expired', user.id]);

    from = lines().length;
    assert.equal((await http.request('POST', '/magic', { headers: { origin: TEST_ORIGIN }, form: { token: 'A'.repeat(43) } })).status, 410);
    const unknown = onlyEventSince(from, 'link.refused');
    assert.deepEqual([unknown.reason, unknown.user_id], ['unknown', null]);
    assert.ok(!t.logs().includes(usedToken) && !t.logs().includes(expiring), 'no token in the log');
  });

  test('a used verification link and a used invitation are link.refused too', async () => {
    const user = await signUp(t.app);
    const verification = new URL(verificationLinkIn(await verificationMailTo(smtp, user.email))).searchParams.get('token') ?? '';
    assert.equal((await http.request('POST', '/verify-email', { headers: { origin: TEST_ORIGIN }, json: { token: verification } })).status, 200);
    let from = lines().length;
    assert.equal((await http.request('POST', '/verify-email', { headers: { origin: TEST_ORIGIN }, json: { token: verification } })).status, 410);
    const refusedVerification = onlyEventSince(from, 'link.refused');
    assert.deepEqual([refusedVerification.user_id, refusedVerification.reason, (refusedVerification.details as Line).link], [user.id, 'used', 'email_verification']);

    const invitee = await signUpConfirmed(t.app, smtp);
    const workspace = (await http.request('POST', '/api/v1/workspaces', { headers: { authorization: user.bearer }, json: { name: 'Team' } })).json<{ workspace: { id: string } }>().workspace.id;
    const mailsBefore = smtp.messages.length;
    assert.equal((await http.request('POST', `/api/v1/workspaces/${workspace}/invitations`, { headers: { authorization: user.bearer }, json: { email: invitee.email, role: 'viewer' } })).status, 201);
    const mail = await smtp.waitForMessage(mailsBefore, (message) => message.to.includes(invitee.email) && message.text.includes('/invitations/accept?token='));
    const invitation = /token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
    assert.equal((await http.request('POST', '/api/v1/invitations/accept', { headers: { authorization: invitee.bearer }, json: { token: invitation } })).status, 200);
    from = lines().length;
    assert.equal((await http.request('POST', '/api/v1/invitations/accept', { headers: { authorization: invitee.bearer }, json: { token: invitation } })).status, 410);
    assert.equal((await http.request('GET', `/invitations/accept?token=${invitation}`)).status, 410);
    const refusedInvitations = eventsSince(from, 'link.refused');
    assert.deepEqual(
      refusedInvitations.map((line) => [line.user_id, line.reason, (line.details as Line).link]),
      [
        [invitee.id, 'used', 'invitation'],
        [null, 'used', 'invitation'],
      ],
    );
  });
});

describe('the guard\'s refusals', () => {
  beforeEach(() => start());

  test('a cross-site write with a session cookie, a cross-site sign-in form and an access token where it may not go are request.refused lines', async () => {
    const user = await signUpConfirmed(t.app, smtp);
    const session = await http.webSession(user.email);
    let from = lines().length;
    const crossSite = await http.request('POST', '/api/v1/sites', { headers: { cookie: session.cookie ?? '', origin: 'https://evil.example' }, json: { name: 'Forged' } });
    assert.equal(crossSite.status, 403);
    const forged = onlyEventSince(from, 'request.refused');
    assert.deepEqual([forged.user_id, forged.reason, forged.credential, forged.outcome], [user.id, 'cross_site_request', 'session', 'failure']);

    from = lines().length;
    assert.equal((await http.request('POST', '/auth/session', { headers: { origin: 'https://evil.example' }, json: { email: user.email, password: 'x' } })).status, 403);
    const loginCsrf = onlyEventSince(from, 'request.refused');
    assert.deepEqual([loginCsrf.user_id, loginCsrf.reason], [null, 'cross_site_request']);

    const token = await createAccessToken(t.app, user);
    from = lines().length;
    assert.equal((await http.request('GET', '/api/v1/workspaces', { headers: { authorization: token.header } })).status, 403);
    const tokenRefused = onlyEventSince(from, 'request.refused');
    assert.deepEqual([tokenRefused.user_id, tokenRefused.reason, tokenRefused.credential], [user.id, 'access_token_not_allowed', 'access_token']);
    assert.ok(!t.logs().includes(token.token), 'the token is not in the log');
  });

  test('a member whose role is too low is a request.refused line naming the role rule', async () => {
    const owner = await signUp(t.app);
    const viewer = await signUp(t.app);
    const workspace = (await http.request('POST', '/api/v1/workspaces', { headers: { authorization: owner.bearer }, json: { name: 'Team' } })).json<{ workspace: { id: string } }>().workspace.id;
    await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspace, viewer.id, 'viewer');
    const from = lines().length;
    assert.equal((await http.request('POST', '/api/v1/sites', { headers: { authorization: viewer.bearer }, json: { name: 'Not mine to make', workspace_id: workspace } })).status, 403);
    const refused = onlyEventSince(from, 'request.refused');
    assert.deepEqual([refused.user_id, refused.reason], [viewer.id, 'insufficient_role']);
  });
});
