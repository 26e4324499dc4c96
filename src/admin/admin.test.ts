import assert from 'node:assert/strict';
import { beforeEach, afterEach, describe, test } from 'node:test';
import {
  buildTestAppWithMail,
  createAccessToken,
  createUserAsOperator,
  mailedMagicLink,
  sessionCookie,
  signUp,
  STRONG_PASSWORD,
  type SignedUpUser,
  type TestApp,
} from '../../test/helpers.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { ADMIN_ERRORS } from './errors.js';
import { AdminService } from './service.js';

const ORIGIN = 'http://localhost:3000';
const WINDOW_MS = 600 * 1000;
const NO_SUCH_ID = '01900000-0000-7000-8000-000000000000';

let smtp: TestSmtpServer;
let t: TestApp;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());

function admins(): AdminService {
  return new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
}

/** A signed-up user made an instance administrator, with a fresh JWT (recent authentication). */
async function administrator(): Promise<SignedUpUser> {
  const user = await signUp(t.app);
  await admins().promote(user.email);
  return user;
}

function call(method: 'GET' | 'POST' | 'DELETE', url: string, authorization?: string, extra: Record<string, string> = {}) {
  return t.app.inject({ method, url, headers: { ...(authorization === undefined ? {} : { authorization }), ...extra } });
}

async function webSignIn(email: string) {
  return t.app.inject({ method: 'POST', url: '/auth/session', headers: { origin: ORIGIN }, payload: { email, password: STRONG_PASSWORD } });
}

function routes(id: string): Array<['GET' | 'POST' | 'DELETE', string]> {
  return [
    ['GET', '/api/v1/admin/users'],
    ['POST', `/api/v1/admin/users/${id}/disable`],
    ['POST', `/api/v1/admin/users/${id}/enable`],
    ['DELETE', `/api/v1/admin/users/${id}/sessions`],
  ];
}

describe('who may use the admin API', () => {
  test('/api/v1/me says who is an instance administrator', async () => {
    const admin = await administrator();
    const member = await signUp(t.app);
    assert.equal((await call('GET', '/api/v1/me', admin.bearer)).json().instance_admin, true);
    assert.equal((await call('GET', '/api/v1/me', member.bearer)).json().instance_admin, false);
  });

  test('the role matrix: nobody 401, a member 403 for any id, an access token 403, a stale sign-in 403, an administrator 200', async () => {
    const admin = await administrator();
    const member = await signUp(t.app);
    const target = await signUp(t.app);
    const adminToken = await createAccessToken(t.app, admin);
    for (const id of [target.id, NO_SUCH_ID, admin.id]) {
      for (const [method, url] of routes(id)) {
        const anonymous = await call(method, url);
        assert.equal(anonymous.statusCode, 401, `${method} ${url} anonymous`);
        const asMember = await call(method, url, member.bearer);
        // The same answer whether or not the id names an account: a member learns nothing of users.
        assert.equal(asMember.statusCode, 403, `${method} ${url} member`);
        assert.equal(asMember.json().code, ADMIN_ERRORS.INSTANCE_ADMIN_REQUIRED);
        const withToken = await call(method, url, adminToken.header);
        assert.equal(withToken.statusCode, 403, `${method} ${url} token`);
        assert.equal(withToken.json().code, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
      }
    }
    // The member's rights, not the target's existence, decide: the target is untouched.
    assert.equal((await call('GET', '/api/v1/me', target.bearer)).statusCode, 200);

    t.clock.advance(WINDOW_MS + 1000);
    for (const [method, url] of routes(target.id)) {
      const stale = await call(method, url, admin.bearer);
      assert.equal(stale.statusCode, 403, `${method} ${url} stale`);
      assert.equal(stale.json().code, AUTH_ERRORS.REAUTHENTICATION_REQUIRED);
    }
  });

  test('a demoted administrator is refused at once, though their principal was remembered', async () => {
    const admin = await administrator();
    const other = await administrator();
    assert.equal((await call('GET', '/api/v1/admin/users', admin.bearer)).statusCode, 200);
    await admins().demote(admin.email);
    assert.equal((await call('GET', '/api/v1/admin/users', admin.bearer)).json().code, ADMIN_ERRORS.INSTANCE_ADMIN_REQUIRED);
    assert.equal((await call('GET', '/api/v1/admin/users', other.bearer)).statusCode, 200);
  });

  test('a cookie-authenticated write from another site is refused', async () => {
    const admin = await administrator();
    const target = await signUp(t.app);
    const cookie = sessionCookie((await webSignIn(admin.email)).headers['set-cookie']);
    assert.ok(cookie !== undefined);
    const crossSite = await call('POST', `/api/v1/admin/users/${target.id}/disable`, undefined, { cookie: cookie.header, origin: 'https://evil.example' });
    assert.equal(crossSite.statusCode, 403);
    assert.equal(crossSite.json().code, AUTH_ERRORS.CROSS_SITE_REQUEST);
    const sameSite = await call('POST', `/api/v1/admin/users/${target.id}/disable`, undefined, { cookie: cookie.header, origin: ORIGIN });
    assert.equal(sameSite.statusCode, 200);
  });
});

describe('the user list', () => {
  test('searches address and name in any case, treats % and _ as text, and pages by cursor', async () => {
    const admin = await administrator();
    for (let i = 0; i < 52; i++) await createUserAsOperator(t, `listed${String(i).padStart(2, '0')}@example.com`);
    await createUserAsOperator(t, 'per%cent_under@example.com');
    const first = await call('GET', '/api/v1/admin/users?query=LISTED', admin.bearer);
    assert.equal(first.statusCode, 200);
    const page = first.json();
    assert.equal(page.users.length, 50);
    assert.ok(page.users.every((user: { email: string }) => user.email.startsWith('listed')));
    assert.equal(typeof page.next_cursor, 'string');
    const second = (await call('GET', `/api/v1/admin/users?query=listed&cursor=${page.next_cursor}`, admin.bearer)).json();
    assert.deepEqual(second.users.map((user: { email: string }) => user.email), ['listed50@example.com', 'listed51@example.com']);
    assert.equal(second.next_cursor, null);
    const literal = (await call('GET', `/api/v1/admin/users?query=${encodeURIComponent('%c')}`, admin.bearer)).json();
    assert.deepEqual(literal.users.map((user: { email: string }) => user.email), ['per%cent_under@example.com']);
    assert.equal((await call('GET', `/api/v1/admin/users?query=${encodeURIComponent('t_u')}`, admin.bearer)).json().users.length, 1);
    const bad = await call('GET', '/api/v1/admin/users?cursor=not-an-id', admin.bearer);
    assert.equal(bad.statusCode, 400);
    const extra = await call('GET', '/api/v1/admin/users?role=x', admin.bearer);
    assert.equal(extra.statusCode, 400);
  });

  test('shows the last sign-in, whether disabled, and never a password hash', async () => {
    const admin = await administrator();
    const target = await signUp(t.app);
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: STRONG_PASSWORD } })).statusCode, 200);
    const found = (await call('GET', `/api/v1/admin/users?query=${encodeURIComponent(target.email)}`, admin.bearer)).json().users;
    assert.equal(found.length, 1);
    assert.deepEqual(Object.keys(found[0]).sort(), ['created_at', 'disabled', 'email', 'email_verified', 'id', 'instance_admin', 'last_sign_in_at', 'name']);
    assert.equal(found[0].last_sign_in_at, t.clock.now().toISOString());
    assert.equal(found[0].disabled, false);
  });
});

describe('disabling an account', () => {
  test("every credential of the account stops at once, every sign-in is refused, and enabling brings back sign-in and tokens", async () => {
    const admin = await administrator();
    const target = await signUp(t.app);
    const token = await createAccessToken(t.app, target);
    const cookie = sessionCookie((await webSignIn(target.email)).headers['set-cookie']);
    assert.ok(cookie !== undefined);
    // Remembered by the guard before the change: the change must reach what it holds.
    assert.equal((await call('GET', '/api/v1/sites', token.header)).statusCode, 200);
    assert.equal((await call('GET', '/api/v1/me', target.bearer)).statusCode, 200);

    const disabled = await call('POST', `/api/v1/admin/users/${target.id}/disable`, admin.bearer);
    assert.equal(disabled.statusCode, 200);
    assert.equal(disabled.json().user.disabled, true);

    assert.equal((await call('GET', '/api/v1/me', target.bearer)).statusCode, 401);
    assert.equal((await call('GET', '/api/v1/me', undefined, { cookie: cookie.header })).statusCode, 401);
    const byToken = await call('GET', '/api/v1/sites', token.header);
    assert.equal(byToken.statusCode, 403);
    assert.equal(byToken.json().code, AUTH_ERRORS.ACCOUNT_DISABLED);

    const apiLogin = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: STRONG_PASSWORD } });
    assert.equal(apiLogin.statusCode, 403);
    assert.equal(apiLogin.json().code, AUTH_ERRORS.ACCOUNT_DISABLED);
    const web = await webSignIn(target.email);
    assert.equal(web.statusCode, 403);
    assert.equal(web.json().code, AUTH_ERRORS.ACCOUNT_DISABLED);
    assert.equal(sessionCookie(web.headers['set-cookie']), undefined);
    // A wrong password still says only that it is wrong: "disabled" is told to the holder alone.
    const wrong = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: 'not-the-password-at-all' } });
    assert.equal(wrong.statusCode, 401);
    // A sign-in link ends in the same place every web sign-in does: no session.
    const link = await mailedMagicLink(t.app, smtp, target.email);
    const redeemed = await t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${link.searchParams.get('token') ?? ''}` });
    assert.equal(redeemed.statusCode, 403);
    assert.equal(sessionCookie(redeemed.headers['set-cookie']), undefined);
    // A page, as every other outcome of the link is, told to whoever holds the mailbox.
    assert.match(String(redeemed.headers['content-type']), /^text\/html/);
    assert.match(redeemed.body, /This account is disabled/);
    const replayed = await t.app.inject({ method: 'POST', url: '/magic', headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${link.searchParams.get('token') ?? ''}` });
    assert.equal(replayed.statusCode, 410, 'the link is used up');
    assert.doesNotMatch(replayed.body, /disabled/);
    assert.ok(t.logs().includes('"reason":"account_disabled"'), 'the refusal is a security event');

    const again = await call('POST', `/api/v1/admin/users/${target.id}/disable`, admin.bearer);
    assert.equal(again.statusCode, 200, 'disabling twice is harmless');

    const enabled = await call('POST', `/api/v1/admin/users/${target.id}/enable`, admin.bearer);
    assert.equal(enabled.statusCode, 200);
    assert.equal(enabled.json().user.disabled, false);
    assert.equal((await call('GET', '/api/v1/sites', token.header)).statusCode, 200);
    assert.equal((await call('GET', '/api/v1/me', target.bearer)).statusCode, 401, 'JWTs from before stay ended');
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: STRONG_PASSWORD } })).statusCode, 200);
  });

  test('each action is a security event of the target naming the administrator, and a log line', async () => {
    const admin = await administrator();
    const target = await signUp(t.app);
    await call('POST', `/api/v1/admin/users/${target.id}/disable`, admin.bearer);
    await call('POST', `/api/v1/admin/users/${target.id}/enable`, admin.bearer);
    assert.equal((await call('DELETE', `/api/v1/admin/users/${target.id}/sessions`, admin.bearer)).statusCode, 204);
    const fresh = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: STRONG_PASSWORD } });
    const events = (await call('GET', '/api/v1/me/security-events', `Bearer ${fresh.json().token}`)).json().events as Array<{ type: string; details: Record<string, unknown> }>;
    for (const type of ['account.disabled', 'account.enabled', 'sessions.revoked']) {
      const event = events.find((candidate) => candidate.type === type);
      assert.ok(event !== undefined, type);
      assert.equal(event.details.administrator_id, admin.id);
    }
    const lines = t.logs().split('\n').filter((line) => line.includes('"security_event":"account.disabled"'));
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', new RegExp(`"user_id":"${target.id}"`));
    assert.match(lines[0] ?? '', new RegExp(`"administrator_id":"${admin.id}"`));
    // The administrator's own history holds none of it.
    const own = (await call('GET', '/api/v1/me/security-events', admin.bearer)).json().events as Array<{ type: string }>;
    assert.ok(!own.some((event) => event.type === 'account.disabled'));
  });

  test('ending sessions signs the account out everywhere but keeps its access tokens', async () => {
    const admin = await administrator();
    const target = await signUp(t.app);
    const token = await createAccessToken(t.app, target);
    const cookie = sessionCookie((await webSignIn(target.email)).headers['set-cookie']);
    assert.ok(cookie !== undefined);
    assert.equal((await call('DELETE', `/api/v1/admin/users/${target.id}/sessions`, admin.bearer)).statusCode, 204);
    assert.equal((await call('GET', '/api/v1/me', target.bearer)).statusCode, 401);
    assert.equal((await call('GET', '/api/v1/me', undefined, { cookie: cookie.header })).statusCode, 401);
    assert.equal((await call('GET', '/api/v1/sites', token.header)).statusCode, 200);
    assert.equal((await call('DELETE', `/api/v1/admin/users/${NO_SUCH_ID}/sessions`, admin.bearer)).statusCode, 404);
    assert.equal((await call('POST', `/api/v1/admin/users/${NO_SUCH_ID}/disable`, admin.bearer)).statusCode, 404);
    assert.equal((await call('POST', '/api/v1/admin/users/not-an-id/disable', admin.bearer)).statusCode, 400);
  });

  test('an administrator cannot disable themselves, and two disabling each other at once leave one enabled', async () => {
    const first = await administrator();
    const second = await administrator();
    const self = await call('POST', `/api/v1/admin/users/${first.id}/disable`, first.bearer);
    assert.equal(self.statusCode, 409);
    assert.equal(self.json().code, ADMIN_ERRORS.CANNOT_DISABLE_SELF);
    const [a, b] = await Promise.all([
      call('POST', `/api/v1/admin/users/${second.id}/disable`, first.bearer),
      call('POST', `/api/v1/admin/users/${first.id}/disable`, second.bearer),
    ]);
    // Exactly one wins. The other is refused by the last-administrator rule when both got past
    // sign-in checks first, or as signed out (401) when the winner's commit came before its own
    // credential was checked: a disabled administrator's JWT is dead at once.
    const loser = [a, b].find((answer) => answer.statusCode !== 200);
    assert.equal([a, b].filter((answer) => answer.statusCode === 200).length, 1);
    assert.ok(loser !== undefined && [401, 409].includes(loser.statusCode), loser?.body);
    if (loser.statusCode === 409) assert.equal(loser.json().code, ADMIN_ERRORS.LAST_ADMINISTRATOR);
    const left = await t.database.db.selectFrom('users').select('id').where('instance_admin', '=', 1).where('disabled_at', 'is', null).execute();
    assert.equal(left.length, 1);
  });

  test('the last enabled administrator cannot be demoted; an unknown address is named', async () => {
    const only = await administrator();
    await assert.rejects(admins().demote(only.email), (error: unknown) => error instanceof Error && 'code' in error && error.code === ADMIN_ERRORS.LAST_ADMINISTRATOR);
    await assert.rejects(admins().promote('nobody@example.com'), /nobody@example.com/);
    const other = await administrator();
    assert.deepEqual(await admins().demote(only.email), { userId: only.id, changed: true });
    assert.deepEqual(await admins().demote(only.email), { userId: only.id, changed: false });
    await assert.rejects(admins().demote(other.email));
  });
});
